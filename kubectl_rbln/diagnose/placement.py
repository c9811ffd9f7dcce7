"""Could the Pod run on this node, devices aside? Taints, nodeSelector, required affinity.

These are the scheduler's non-DRA filters a device diagnosis must not confuse
with a device problem: a Pod that waits for an untolerated taint is
`not-device-related`, whatever its claims look like.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kubectl_rbln.dra.model import Node, Pod
from kubectl_rbln.selectors import node_selector_matches

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
