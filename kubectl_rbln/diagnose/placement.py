"""Could the Pod run on this node, devices aside? Taints, nodeSelector, required affinity.

These are the scheduler's non-DRA filters a device diagnosis must not confuse
with a device problem: a Pod that waits for an untolerated taint is
`not-device-related`, whatever its claims look like.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kubectl_rbln.dra.model import Node, Pod, Snapshot
from kubectl_rbln.selectors import node_selector_matches

BLOCKING_TAINT_EFFECTS = ("NoSchedule", "NoExecute")


@dataclass(frozen=True, slots=True)
class Exclusion:
    """Why a node is out for this Pod before devices are even considered."""

    kind: str  # "taint" | "node-selector" | "affinity" | "anti-affinity" | "unschedulable" | "not-ready"
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


HOSTNAME = "kubernetes.io/hostname"
ANTI_AFFINITY_TEXT = "node(s) didn't match pod anti-affinity rules"  # interpodaffinity's reason


def anti_affinity_exclusions(snapshot: Snapshot, pod: Pod, node: Node) -> list[Exclusion]:
    """Required podAntiAffinity: a running Pod on the node's topology domain matches a term's selector
    (interpodaffinity; matchLabels and matchExpressions, the term's namespaces or the Pod's own)."""
    affinity = pod.affinity if isinstance(pod.affinity, dict) else {}
    terms = (affinity.get("podAntiAffinity") or {}).get("requiredDuringSchedulingIgnoredDuringExecution")
    if not isinstance(terms, list) or not terms:
        return []  # nearly every Pod: nothing to look at
    for term in (t for t in terms if isinstance(t, dict)):
        key = str(term.get("topologyKey") or "")
        domain = node.name if key == HOSTNAME else node.labels.get(key)
        if not key or domain is None:
            continue
        namespaces = set(term.get("namespaces") or [pod.namespace])
        for other in _running_in(snapshot, key).get(domain, ()):
            if (
                other is not pod
                and other.namespace in namespaces
                and _selects(term.get("labelSelector"), other.labels)
            ):
                return [Exclusion("anti-affinity", ANTI_AFFINITY_TEXT)]
    return []


def _running_in(snapshot: Snapshot, key: str) -> dict[str, list[Pod]]:
    """Topology domain (the node's value of `key`; its name for the hostname) -> the bound Pods that are
    not finished, indexed once per key: the simulation asks it of every node."""

    def build() -> dict[str, list[Pod]]:
        out: dict[str, list[Pod]] = {}
        for other in snapshot.pods:
            if not other.node_name or other.phase in ("Succeeded", "Failed"):
                continue
            there = snapshot.nodes.get(other.node_name)
            domain = other.node_name if key == HOSTNAME else (there.labels.get(key) if there else None)
            if domain is not None:
                out.setdefault(domain, []).append(other)
        return out

    return snapshot.memo(f"running-pods-by-topology:{key}", build)


def _selects(selector: Any, labels: dict[str, str]) -> bool:
    """A LabelSelector (matchLabels ANDed with matchExpressions); an empty or absent one selects none."""
    if not isinstance(selector, dict) or not (
        selector.get("matchLabels") or selector.get("matchExpressions")
    ):
        return False
    wanted = selector.get("matchLabels") or {}
    if any(labels.get(str(k)) != str(v) for k, v in wanted.items()):
        return False
    for expression in selector.get("matchExpressions") or []:
        if not isinstance(expression, dict):
            return False
        key, values = str(expression.get("key")), {str(v) for v in expression.get("values") or []}
        operator = expression.get("operator")
        present = key in labels
        held = {
            "In": present and labels.get(key) in values,
            "NotIn": not present or labels.get(key) not in values,
            "Exists": present,
            "DoesNotExist": not present,
        }.get(str(operator), False)
        if not held:
            return False
    return True


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
