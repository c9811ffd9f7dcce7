"""`why --watch`: what one look at the cluster saw of a Pod, and what changed since the last look.

Each poll reads a new Snapshot; the Pod, its ResourceClaims, the ResourceSlices and the events
of the Pod and its claims are reduced to one fingerprint each, so the CLI re-diagnoses and prints
a line only when one of them changed, and stops once the Pod is scheduled and Running.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields

from kubectl_rbln.dra.model import Pod, ResourceSlice, Snapshot

PARTS = ("pod", "claims", "slices", "events")


@dataclass(frozen=True, slots=True)
class Look:
    """One poll's view of the watched Pod (found False: the Pod is not there)."""

    found: bool
    phase: str = ""
    node: str = ""
    scheduled: bool = False
    fingerprints: dict[str, int] = field(default_factory=dict)

    @property
    def running(self) -> bool:
        """The end of the watch: scheduled on a node and Running."""
        return self.found and self.scheduled and self.phase == "Running"

    def changed_since(self, before: Look | None) -> list[str]:
        """Which of PARTS differ from the previous look (all of them on the first look)."""
        if before is None or before.found != self.found:
            return list(PARTS)
        return [p for p in PARTS if self.fingerprints.get(p) != before.fingerprints.get(p)]


def _claim_names(pod: Pod) -> set[str]:
    names = {n for n in pod.claim_statuses.values() if n}
    names |= {ref.resource_claim_name for ref in pod.resource_claims if ref.resource_claim_name}
    return names


def look(snapshot: Snapshot, namespace: str, name: str) -> Look:
    """The watched Pod's state and the fingerprints of what its diagnosis reads."""
    pod = snapshot.pod(namespace, name)
    if pod is None:
        return Look(found=False)
    names = _claim_names(pod)
    claims = sorted(
        repr(c)
        for c in snapshot.claims
        if c.namespace == namespace and (c.name in names or c.owner_pod == name)
    )
    events = sorted(
        repr(e)
        for e in snapshot.events
        if (e.involved_namespace or e.namespace) == namespace
        and ((e.involved_kind == "Pod" and e.involved_name == name) or e.involved_name in names)
    )
    scheduled = pod.conditions.get("PodScheduled")
    return Look(
        found=True,
        phase=pod.phase,
        node=pod.node_name or "",
        scheduled=bool(pod.node_name) or (scheduled is not None and scheduled.status == "True"),
        fingerprints={
            "pod": hash(repr(pod)),
            "claims": hash(tuple(claims)),
            "slices": hash(tuple(sorted(slice_content(s) for s in snapshot.slices))),
            "events": hash(tuple(events)),
        },
    )


# A slice's content as its equality sees it: a slice of a known node type is a TypedSlice, the first
# of its type a plain ResourceSlice (dra/node_types.py), and which one is first may differ from read
# to read; the class's name in a repr would then read as a change.
_SLICE_FIELDS = tuple(f.name for f in fields(ResourceSlice) if f.compare)


def slice_content(resource_slice: ResourceSlice) -> str:
    return repr(tuple(getattr(resource_slice, name) for name in _SLICE_FIELDS))
