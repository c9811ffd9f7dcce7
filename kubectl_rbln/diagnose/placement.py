"""Could the Pod run on this node, devices aside? Taints, nodeSelector, required affinity.

These are the scheduler's non-DRA filters a device diagnosis must not confuse
with a device problem: a Pod that waits for an untolerated taint is
`not-device-related`, whatever its claims look like.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kubectl_rbln.dra.model import Node, Pod

BLOCKING_TAINT_EFFECTS = ("NoSchedule", "NoExecute")


@dataclass(frozen=True, slots=True)
class Exclusion:
    """Why a node is out for this Pod before devices are even considered."""

    kind: str  # "taint" | "node-selector" | "affinity" | "unschedulable" | "not-ready"
    text: str  # in the scheduler's words where it has them


def tolerates(tolerations: list[dict[str, Any]], taint: dict[str, Any]) -> bool:
    """core/v1 Toleration.ToleratesTaint."""
    for toleration in tolerations:
        effect = toleration.get("effect") or ""
        if effect and effect != taint.get("effect"):
            continue
        key = toleration.get("key") or ""
        operator = toleration.get("operator") or "Equal"
        if not key:
            if operator == "Exists":
                return True
            continue
        if key != taint.get("key"):
            continue
        if operator == "Exists" or (toleration.get("value") or "") == (taint.get("value") or ""):
            return True
    return False


def _requirement_holds(labels: dict[str, str], requirement: dict[str, Any]) -> bool:
    key = requirement.get("key", "")
    operator = requirement.get("operator", "")
    values = [str(v) for v in requirement.get("values") or []]
    present = key in labels
    value = labels.get(key)
    if operator == "In":
        return present and value in values
    if operator == "NotIn":
        return not present or value not in values
    if operator == "Exists":
        return present
    if operator == "DoesNotExist":
        return not present
    if operator in ("Gt", "Lt") and present and values:
        try:
            left, right = int(str(value)), int(values[0])
        except ValueError:
            return False
        return left > right if operator == "Gt" else left < right
    return False


def node_selector_term_matches(term: dict[str, Any], node_name: str, labels: dict[str, str]) -> bool:
    """A NodeSelectorTerm: all matchExpressions on labels and all matchFields (metadata.name) hold."""
    expressions = term.get("matchExpressions") or []
    fields = term.get("matchFields") or []
    if not expressions and not fields:
        return False  # an empty term matches no objects
    if not all(_requirement_holds(labels, r) for r in expressions if isinstance(r, dict)):
        return False
    field_labels = {"metadata.name": node_name}
    return all(_requirement_holds(field_labels, r) for r in fields if isinstance(r, dict))


def node_selector_matches(selector: dict[str, Any] | None, node_name: str, labels: dict[str, str]) -> bool:
    """A NodeSelector: any term matches (terms are ORed)."""
    if not selector:
        return True
    terms = [t for t in selector.get("nodeSelectorTerms") or [] if isinstance(t, dict)]
    return any(node_selector_term_matches(t, node_name, labels) for t in terms)


def exclusions(pod: Pod, node: Node) -> list[Exclusion]:
    """Every non-device reason the scheduler would reject `node` for `pod` (empty: it could run there)."""
    found: list[Exclusion] = []
    if node.unschedulable:
        found.append(Exclusion("unschedulable", "node(s) were unschedulable"))
    for taint in node.taints:
        if taint.get("effect") in BLOCKING_TAINT_EFFECTS and not tolerates(pod.tolerations, taint):
            text = f"node(s) had untolerated taint {{{taint.get('key')}: {taint.get('value') or ''}}}"
            found.append(Exclusion("taint", text))
    missing = {k: v for k, v in pod.node_selector.items() if node.labels.get(k) != v}
    if missing:
        labels = ", ".join(f"{k}={v}" for k, v in sorted(missing.items()))
        found.append(
            Exclusion("node-selector", f"node(s) didn't match Pod's node affinity/selector ({labels})")
        )
    required = (
        (pod.affinity.get("nodeAffinity") or {}).get("requiredDuringSchedulingIgnoredDuringExecution")
        if isinstance(pod.affinity, dict)
        else None
    )
    if isinstance(required, dict) and not node_selector_matches(required, node.name, node.labels):
        found.append(Exclusion("affinity", "node(s) didn't match Pod's node affinity/selector"))
    return found


def required_labels(pod: Pod) -> dict[str, str]:
    """Labels the Pod demands with certainty: nodeSelector, and single-value `In` affinity terms."""
    labels = dict(pod.node_selector)
    required = (pod.affinity.get("nodeAffinity") or {}).get("requiredDuringSchedulingIgnoredDuringExecution")
    terms = (required or {}).get("nodeSelectorTerms") or [] if isinstance(required, dict) else []
    if len(terms) == 1:
        for expression in terms[0].get("matchExpressions") or []:
            values = expression.get("values") or []
            if expression.get("operator") == "In" and len(values) == 1:
                labels[str(expression.get("key"))] = str(values[0])
    return labels
