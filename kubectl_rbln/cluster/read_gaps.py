"""What a read that answered still lacks: the kinds a command needs that came back with nothing.

Why: a bundle without Nodes, or a live list that answered an empty PodList while claims are reserved
for Pods, reads as a cluster where nothing is wrong. Each gap is a `missing` SourceProblem, which
`why` and `check` report as `source-degraded` (case `missing`, an error): never an all-clear.
"""

from __future__ import annotations

from collections.abc import Collection

from kubectl_rbln.dra.model import Snapshot, SourceProblem
from kubectl_rbln.errors import EXIT_FINDINGS

SHOWN = 3  # names a message shows, then "and N more"

# The kinds every command that diagnoses Pods needs; the ones that draw devices need slices too.
NEEDS_PODS = ("Node", "Pod")
NEEDS_DEVICES = ("Node", "Pod", "ResourceSlice")


def _listed(names: list[str]) -> str:
    more = len(names) - SHOWN
    return ", ".join(names[:SHOWN]) + (f" and {more} more" if more > 0 else "")


def _read_badly(snapshot: Snapshot, kind: str) -> bool:
    """A problem already says this kind was not read (forbidden, a wrong answer): no second one."""
    return any(p.kind == kind and p.code != "malformed" for p in snapshot.problems)


def read_gaps(
    snapshot: Snapshot, needs: Collection[str], *, live: bool, pod_scope: Collection[str] | None = None
) -> list[SourceProblem]:
    """The `missing` problems of `snapshot` for the kinds in `needs`. Offline, an input without Nodes
    (or, when its slices are needed and no dump's ClusterInfo vouches for none, without slices) lacks
    them; live, an empty Node list while slices or Pods name nodes, and (both) no Pod while claims in
    `pod_scope` (None: any namespace) are reserved for Pods."""
    gaps: list[SourceProblem] = []
    if "Node" in needs and not snapshot.nodes and not _read_badly(snapshot, "Node"):
        named = sorted({s.node_name for s in snapshot.slices if s.node_name})
        by = "ResourceSlices" if named else "Pods"
        named = named or sorted({p.node_name for p in snapshot.pods if p.node_name})
        if named or not live:
            held = "the Node list answered no Node" if live else "the input holds no Node"
            why = f", while {by} name nodes {_listed(named)}" if named else ""
            gaps.append(SourceProblem("Node", held + why, code="missing"))
    if "Pod" in needs and not snapshot.pods and not _read_badly(snapshot, "Pod"):
        reserved = sorted(
            f"{claim.namespace}/{ref.get('name')}"
            for claim in snapshot.claims
            if pod_scope is None or claim.namespace in pod_scope
            for ref in claim.reserved_for
            if ref.get("resource") == "pods" and ref.get("name")
        )
        if reserved:
            plural = "s" if len(pod_scope or ()) > 1 else ""
            where = f" in namespace{plural} {', '.join(sorted(pod_scope))}" if pod_scope else ""
            held = f"the Pod list answered no Pod{where}" if live else f"the input holds no Pod{where}"
            why = f", while ResourceClaims are reserved for Pods {_listed(reserved)}"
            gaps.append(SourceProblem("Pod", held + why, code="missing"))
    wanted = "ResourceSlice" in needs and not live and not snapshot.from_dump
    if wanted and not snapshot.slices and not _read_badly(snapshot, "ResourceSlice"):
        message = "the input holds no ResourceSlice, and no ClusterInfo of a dump that found none"
        gaps.append(SourceProblem("ResourceSlice", message, code="missing"))
    return gaps


def degraded_exit(snapshot: Snapshot, code: int) -> int:
    """A command's exit code, at least 1 (findings) when a list came back with nothing where something
    must be: the stderr `warning:` line says which, and the output is never an all-clear."""
    missing = any(p.code == "missing" for p in snapshot.problems)
    return max(code, EXIT_FINDINGS) if missing else code
