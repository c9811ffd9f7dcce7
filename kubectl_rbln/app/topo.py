"""`topo` as one pure use case, and the one-node view `why` draws.

The command line reads the snapshot (and an `--rct-file`) and prints; choosing the RCT,
the nodes and the allocator features and laying the devices out happen here, so a test calls
exactly what the command calls. Renderers (render/topo_text.py, render/topo_svg.py) only draw.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from kubectl_rbln.diagnose.features import allocator_features, choose_features
from kubectl_rbln.diagnose.findings import Finding
from kubectl_rbln.diagnose.rules.layers import malformed_findings
from kubectl_rbln.diagnose.topology import (
    NodeTopology,
    RctChoice,
    Topology,
    build_topology,
    choose_rct,
    claim_choice,
    device_nodes,
    device_pod_namespaces,
    every_namespace_layout,
    node_topology,
    node_topology_from_result,
)
from kubectl_rbln.domain import DEFAULT_RCT
from kubectl_rbln.dra.allocator import Features, NodeResult
from kubectl_rbln.dra.model import ClaimSpec, ResourceClaimTemplate, Snapshot
from kubectl_rbln.errors import NotFoundError


class LabelMatcher(Protocol):
    """One parsed `-l` requirement."""

    def matches(self, labels: dict[str, str]) -> bool: ...


@dataclass(frozen=True, slots=True)
class TopoRequest:
    """What the user asked: nodes (else every node with devices), `-l`, and the RCT that decides usable."""

    namespace: str  # -n, else the context's namespace
    nodes: Sequence[str] = ()
    selector: Sequence[LabelMatcher] | None = None
    namespace_given: bool = False  # -n was passed: never guess another namespace
    rct: str | None = None  # --rct
    rct_template: ResourceClaimTemplate | None = None  # --rct-file, read by the caller
    rct_origin: str = ""  # "--rct-file <basename>"
    k8s_version: str | None = None
    feature_gates: str | None = None
    all_namespaces: bool = False  # -A: the layout once, and the fits of every namespace's RCT


@dataclass(slots=True)
class TopoReport:
    """The laid-out nodes; `topo` prints no findings, and its exit code is 0 but for `findings`: the
    `malformed` errors of the RCT it counts with (an impossible count fits nowhere, and says why not)."""

    topology: Topology
    findings: list[Finding] = field(default_factory=list)

    def to_document(self, lang: str) -> dict[str, Any]:
        """The `-o json` document (the same in every language: topo prints no sentences)."""
        return self.topology.to_dict()


def _choose(snapshot: Snapshot, request: TopoRequest) -> RctChoice:
    template = request.rct_template
    if template is not None:
        where = (
            (request.namespace if request.namespace_given else None)
            or template.namespace
            or request.namespace
        )
        return RctChoice(template.name, where, template.spec, request.rct_origin or "--rct-file")
    choice = choose_rct(snapshot, request.namespace, request.rct)
    others = device_pod_namespaces(snapshot)
    if choice.spec is None and not request.namespace_given and len(others) == 1:
        # no -n and nothing here: a bundle's one namespace with device Pods is what was meant
        choice = choose_rct(snapshot, others[0], request.rct)
    if request.rct and choice.spec is None:
        raise NotFoundError(
            f'resourceclaimtemplate "{request.rct}" not found in namespace "{request.namespace}"',
            hint="-n NAMESPACE, or --rct-file FILE for one not applied yet",
        )
    return choice


def select_nodes(
    snapshot: Snapshot, names: Sequence[str], selector: Sequence[LabelMatcher] | None
) -> list[str]:
    """Named nodes (an error if unknown), else every node with devices, filtered by -l."""
    with_devices = device_nodes(snapshot)
    for name in names:
        if name not in snapshot.nodes and name not in with_devices:
            raise NotFoundError(f'node "{name}" not found ({snapshot.source or "the cluster"})')
    chosen = list(names) or with_devices
    if selector:
        labels = {n: (snapshot.nodes[n].labels if n in snapshot.nodes else {}) for n in chosen}
        chosen = [n for n in chosen if all(r.matches(labels[n]) for r in selector)]
    return chosen


def namespace_choices(snapshot: Snapshot, rct: str | None) -> list[RctChoice]:
    """`topo -A`: each namespace's RCT, as `topo -n NS` chooses it. With `--rct NAME`, the namespaces
    that hold an RCT of that name; otherwise the namespaces whose Pods use an RCT (the one most of
    them use) and those holding the chart's default RCT."""
    holding = {t.namespace for t in snapshot.templates if t.name == (rct or DEFAULT_RCT)}
    namespaces = holding if rct else holding | set(device_pod_namespaces(snapshot))
    return [choose_rct(snapshot, ns, rct) for ns in sorted(namespaces)]


def topo(snapshot: Snapshot, request: TopoRequest) -> TopoReport:
    """Choose the RCT and the nodes, lay each node out and count how many more Pods fit."""
    features = choose_features(snapshot, request.k8s_version, request.feature_gates)
    if request.all_namespaces:
        nodes = select_nodes(snapshot, request.nodes, request.selector)
        choices = namespace_choices(snapshot, request.rct)
        features_used = allocator_features(features)
        layout = every_namespace_layout(snapshot, nodes, choices, features_used, features.describe())
        found = [
            f
            for c in choices
            if c.spec is not None
            for f in malformed_findings(snapshot, "ResourceClaimTemplate", c.namespace, c.name)
        ]
        return TopoReport(layout, found)
    choice = _choose(snapshot, request)
    nodes = select_nodes(snapshot, request.nodes, request.selector)
    topology = build_topology(snapshot, nodes, choice, allocator_features(features), features.describe())
    stored = request.rct_template is None and choice.spec is not None
    found = (
        malformed_findings(snapshot, "ResourceClaimTemplate", choice.namespace, choice.name) if stored else []
    )
    return TopoReport(topology, found)


@dataclass(slots=True)
class NodeView:
    """One node's layout and the RCT it was marked for: what render_node draws."""

    topology: NodeTopology
    rct: RctChoice


def node_view(
    snapshot: Snapshot,
    node: str,
    *,
    namespace: str,
    spec: ClaimSpec | None = None,
    rct: str | None = None,
    direct: bool = False,
    features: Features | None = None,
    result: NodeResult | None = None,
    simulate: bool = True,
) -> NodeView:
    """The one node `why` draws. `spec` is the Pod's claim spec when the caller has it (its RCT's
    name as `rct`, or with `direct` the name of the ResourceClaim the Pod names itself); otherwise
    the RCT is chosen as `topo` chooses it. `features` should be the ones `why` simulated with (None
    infers them as `why` does).

    With `result` (that node's NodeResult from why's own simulation) or `simulate=False`, a node the
    Pod does not fit on is drawn from `result` without running the allocator again; where it fits,
    how many more Pods fit is counted as `topo` counts it (`count_fits`), so both say one number.
    """
    if spec is not None:
        choice = claim_choice(namespace, spec, rct, direct)
    else:
        choice = choose_rct(snapshot, namespace, rct)
    if features is None:
        features = allocator_features(choose_features(snapshot, None, None))
    if result is not None or not simulate:
        return NodeView(node_topology_from_result(snapshot, node, choice, features, result), choice)
    return NodeView(node_topology(snapshot, node, choice, features), choice)
