"""Where each device sits and who holds it: the data behind `kubectl rbln topo`.

Most device problems are questions of place (issue 8): which NUMA node an NPU or
NIC is on, which PCIe root it hangs from, and which Pod holds it. This module is
pure: a Snapshot, the chosen RCT and the allocator features in; per node, NUMA
groups -> PCIe roots -> devices, each free, held, or unusable for the RCT with a
one-word reason, plus how many more Pods of the RCT the allocator fits there.
"""

from __future__ import annotations

import heapq
import operator
import re
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from kubectl_rbln.catalog import Phrase, say
from kubectl_rbln.diagnose.simulation import reason_phrase
from kubectl_rbln.domain import (
    DEFAULT_RCT,
    DRANET_NUMA_ATTR,
    IF_NAME_ATTR,
    NIC_DRIVER,
    NPU_DRIVER,
    NUMA_ATTR,
    PCI_ADDRESS_ATTR,
    PCI_BUS_ID_ATTR,
    PCIE_ROOT_ATTR,
)
from kubectl_rbln.dra.allocator import ClaimToAllocate, Features, NodeResult, allocate
from kubectl_rbln.dra.cel import CelError, compile_selector
from kubectl_rbln.dra.constraints import blocking_taints, lookup_attribute, taint_text
from kubectl_rbln.dra.explain import value_text
from kubectl_rbln.dra.model import ClaimSpec, Device, DeviceClass, Node, ResourceSlice, Snapshot
from kubectl_rbln.dra.references import cached_references, split_conjuncts
from kubectl_rbln.dra.typed_reads import is_typed, materialized, stands_in, type_devices
from kubectl_rbln.schemas import api_version

STANDARD_NUMA = NUMA_ATTR
DRANET_NUMA = DRANET_NUMA_ATTR
PCIE_ROOT = PCIE_ROOT_ATTR
ADDRESS_KEYS = (PCI_BUS_ID_ATTR, PCI_ADDRESS_ATTR)
IF_NAME = IF_NAME_ATTR
REFERENCE_RCT = DEFAULT_RCT
MAX_PODS = 16  # more Pods than this on one node is "16+": the count is a glance, not a capacity plan
FREE, HELD, UNUSABLE = "free", "held", "unusable"


@dataclass(frozen=True, slots=True)
class Holder:
    """The claim holding a device, and the Pod it was made for (if it says)."""

    claim: str  # "ns/name"
    pod: str | None  # "ns/name"

    def to_dict(self) -> dict[str, Any]:
        return {"claim": self.claim, "pod": self.pod}


@dataclass(slots=True)
class Spot:
    """One device as the drawing shows it."""

    name: str
    driver: str
    pool: str
    kind: str  # "npu" | "nic" | "device"
    label: str  # what a person recognises: rbln0, ens84f0np0
    numa: int | str | None
    pcie_root: str | None
    address: str | None
    state: str  # FREE | HELD | UNUSABLE
    reason: str = ""  # UNUSABLE: `rdma=false`, `pciSubsystem=0101`, `no numaNode`, `not requested`
    request: str | None = None  # the RCT request it could serve
    holder: Holder | None = None
    next_pod: int | None = None  # free and taken by the Nth more Pod of the RCT
    numa_hint: str | None = None  # unplaced, yet another NUMA attribute names a node ("dra.net/numaNode=0")

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "name": self.name,
            "driver": self.driver,
            "pool": self.pool,
            "kind": self.kind,
            "label": self.label,
            "numaNode": self.numa,
            "pcieRoot": self.pcie_root,
            "pciAddress": self.address,
            "state": self.state,
        }
        if self.reason:
            out["reason"] = self.reason
        if self.request:
            out["request"] = self.request
        if self.holder:
            out["heldBy"] = self.holder.to_dict()
        if self.next_pod is not None:
            out["nextPod"] = self.next_pod
        if self.numa_hint:
            out["numaHint"] = self.numa_hint
        return out


@dataclass(slots=True)
class RootGroup:
    root: str | None  # None: the device publishes no PCIe root
    devices: list[Spot]

    def to_dict(self) -> dict[str, Any]:
        return {"pcieRoot": self.root, "devices": [d.to_dict() for d in self.devices]}


@dataclass(slots=True)
class NumaGroup:
    numa: int | str | None  # None: the "unplaced" group
    roots: list[RootGroup]

    @property
    def devices(self) -> list[Spot]:
        return [d for r in self.roots for d in r.devices]

    def to_dict(self) -> dict[str, Any]:
        return {"numaNode": self.numa, "pcieRoots": [r.to_dict() for r in self.roots]}


@dataclass(slots=True)
class FitSummary:
    pods: int | None  # more Pods of the RCT the node takes, one after the other; None: no RCT to try
    capped: bool = False  # stopped counting at MAX_PODS
    reason: str = ""  # why the next one does not fit (the simulation's first reason)
    phrase: Phrase | str = ""  # `reason` in any language (the text view's)

    def reason_in(self, lang: str) -> str:
        return say(self.phrase, lang) if self.phrase else self.reason

    def to_dict(self) -> dict[str, Any]:
        return {"podsFit": self.pods, "capped": self.capped, "nextFailsBecause": self.reason or None}


@dataclass(slots=True)
class NodeTopology:
    node: str
    numa_attributes: list[str]  # placed by the first one a device has
    root_attribute: str
    groups: list[NumaGroup]  # NUMA nodes in order, then "unplaced" if any device lacks NUMA
    summary: FitSummary

    @property
    def devices(self) -> list[Spot]:
        return [d for g in self.groups for d in g.devices]

    def holders(self) -> list[Holder]:
        """Distinct holders in drawing order (the drawing names them A, B, C...)."""
        seen: list[Holder] = []
        for spot in self.devices:
            if spot.holder is not None and spot.holder not in seen:
                seen.append(spot.holder)
        return seen

    def to_dict(self) -> dict[str, Any]:
        counts = Counter(d.state for d in self.devices)
        placed = [g for g in self.groups if g.numa is not None]
        unplaced = [g for g in self.groups if g.numa is None]
        return {
            "name": self.node,
            "summary": self.summary.to_dict(),
            "counts": {state: counts.get(state, 0) for state in (FREE, HELD, UNUSABLE)},
            "numaAttributes": self.numa_attributes,
            "pcieRootAttribute": self.root_attribute,
            "numaNodes": [g.to_dict() for g in placed],
            "unplaced": unplaced[0].to_dict()["pcieRoots"] if unplaced else [],
        }


@dataclass(slots=True)
class RctChoice:
    """The requests that decide "usable": which RCT, and how it was chosen."""

    name: str
    namespace: str
    spec: ClaimSpec | None  # None: the RCT does not exist; devices are then only free or held
    origin: str  # "--rct", "--rct-file", "used by Pods in <ns>", "default"
    direct: bool = False  # a ResourceClaim the Pod names itself: allocated once, shared by its Pods

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "namespace": self.namespace,
            "chosenBy": self.origin,
            "found": self.spec is not None,
        }


@dataclass(slots=True)
class NamespaceFit:
    """`topo -A`: one namespace's RCT and how many more of its Pods each node takes (by node name)."""

    rct: RctChoice
    nodes: dict[str, FitSummary]

    def to_dict(self) -> dict[str, Any]:
        return {
            "namespace": self.rct.namespace,
            "rct": self.rct.to_dict(),
            "nodes": [{"name": name, **fit.to_dict()} for name, fit in self.nodes.items()],
        }


@dataclass(slots=True)
class Topology:
    rct: RctChoice
    nodes: list[NodeTopology]
    source: str = ""
    assumptions: dict[str, Any] = field(default_factory=dict)
    fits: list[NamespaceFit] | None = None  # `topo -A`: per namespace's RCT (the layout marks no RCT)

    def to_dict(self) -> dict[str, Any]:
        document: dict[str, Any] = {
            "apiVersion": api_version("TopoReport"),
            "kind": "TopoReport",
            "source": self.source,
            "rct": self.rct.to_dict(),
            "assumptions": self.assumptions,
            "nodes": [n.to_dict() for n in self.nodes],
        }
        if self.fits is not None:
            document["allNamespaces"] = True
            document["fits"] = [f.to_dict() for f in self.fits]
        return document


# ---------------------------------------------------------------- choosing the RCT and the nodes


def rct_used_by_pods(snapshot: Snapshot, namespace: str) -> str | None:
    """The RCT most device Pods of the namespace name (ties: alphabetical)."""
    names = Counter(
        ref.resource_claim_template_name
        for pod in snapshot.pods
        if pod.namespace == namespace
        for ref in pod.resource_claims
        if ref.resource_claim_template_name
    )
    if not names:
        return None
    return sorted(names.items(), key=lambda item: (-item[1], item[0]))[0][0]


def device_pod_namespaces(snapshot: Snapshot) -> list[str]:
    """Namespaces whose Pods use a ResourceClaimTemplate, sorted."""
    return sorted(
        {p.namespace for p in snapshot.pods if any(r.resource_claim_template_name for r in p.resource_claims)}
    )


def choose_rct(snapshot: Snapshot, namespace: str, name: str | None = None) -> RctChoice:
    """`--rct NAME`, else the RCT the namespace's device Pods use, else `npu-rdma`."""
    if name:
        origin = "--rct"
    else:
        used = rct_used_by_pods(snapshot, namespace)
        name, origin = (used, f"used by Pods in {namespace}") if used else (REFERENCE_RCT, "default")
    template = snapshot.template(namespace, name)
    return RctChoice(name, namespace, template.spec if template else None, origin)


def device_nodes(snapshot: Snapshot) -> list[str]:
    """Nodes that publish node-local devices, sorted; the Node object may be missing from a bundle."""
    return sorted(
        {
            s.node_name
            for s in snapshot.slices
            if s.node_name and not s.per_device_node_selection and s.any_devices()
        }
    )


def _node_object(snapshot: Snapshot, name: str) -> Node:
    return snapshot.nodes.get(name) or Node(name=name, labels={}, taints=[], allocatable={})


def _slices_for(snapshot: Snapshot, node: str) -> list[ResourceSlice]:
    """The node's own slices plus those any node may see (what the allocator gathers), in the
    snapshot's order; a typed slice not built yet comes built apart from the snapshot
    (dra/typed_reads.py `materialized`), so `topo` over every node keeps one node's devices at a time."""
    own, shared = _slice_index(snapshot)
    mine = own.get(node, [])
    entries = heapq.merge(mine, shared, key=operator.itemgetter(0)) if shared else mine
    return [materialized(s) for _, s in entries]


def _own_devices(slices: list[ResourceSlice], node: str) -> list[Device]:
    """The devices of the slices that are the node's alone (its `nodeName`, no per-device selection)."""
    return [d for s in slices if s.node_name == node and not s.per_device_node_selection for d in s.devices]


def _slice_index(
    snapshot: Snapshot,
) -> tuple[dict[str, list[tuple[int, ResourceSlice]]], list[tuple[int, ResourceSlice]]]:
    """(node -> its own slices, the slices every node may see), each with its place in the snapshot:
    built once, so laying out every node reads each slice once, not once per node."""

    def build() -> tuple[dict[str, list[tuple[int, ResourceSlice]]], list[tuple[int, ResourceSlice]]]:
        own: dict[str, list[tuple[int, ResourceSlice]]] = {}
        shared: list[tuple[int, ResourceSlice]] = []
        for index, slice_ in enumerate(snapshot.slices):
            if not slice_.node_name or slice_.per_device_node_selection:
                shared.append((index, slice_))
            else:
                own.setdefault(slice_.node_name, []).append((index, slice_))
        return own, shared

    return snapshot.memo("topology-slice-index", build)


def held_devices(snapshot: Snapshot) -> _HeldByPool:
    """The devices the snapshot's claims hold, by pool (once per snapshot)."""
    return snapshot.memo("topology-held-by-pool", lambda: _HeldByPool(set(_holders(snapshot))))


def _held_of(
    snapshot: Snapshot, holders: dict[tuple[str, str, str], Holder]
) -> set[tuple[str, str, str]] | _HeldByPool:
    """`holders`' devices: the snapshot's own by pool, else (a caller's holders) as a set."""
    return held_devices(snapshot) if holders is _holders(snapshot) else set(holders)


class _HeldByPool:
    """The held devices by pool: a node's allocator run needs only its pools' (it looks devices up by
    driver/pool/device), so counting fits on every node does not copy every held device per node."""

    def __init__(self, held: set[tuple[str, str, str]]) -> None:
        self.by_pool: dict[tuple[str, str], set[tuple[str, str, str]]] = {}
        for key in held:
            self.by_pool.setdefault(key[:2], set()).add(key)

    def on(self, slices: list[ResourceSlice]) -> set[tuple[str, str, str]]:
        out: set[tuple[str, str, str]] = set()
        for pool in dict.fromkeys((s.driver, s.pool) for s in slices):
            out |= self.by_pool.get(pool, set())
        return out


# ---------------------------------------------------------------- usability of one device


def _short(attribute: str) -> str:
    return attribute.rsplit("/", 1)[-1]


def _selects(expressions: list[str], device: Device, consumable: bool) -> str | None:
    """The first expression that rejects the device (or fails on it); None when all select it."""
    for expr in expressions:
        try:
            if not compile_selector(expr, consumable_capacity=consumable).matches(device):
                return expr
        except CelError:
            return expr
    return None


def selector_rejecting(expressions: list[str], device: Device) -> str | None:
    """The first selector that no longer selects `device` (its attributes as published now)."""
    return _selects(expressions, device, consumable=True)


def selector_reads(expressions: list[str], consumable: bool = True) -> frozenset[str] | None:
    """The attribute names whose values decide what `_selects` says of a device, beside its driver,
    attribute names, capacity and flags (a selector's memo key, dra/cel.py `Selector.key_of`); None
    when a selector reaches attributes in a way not known statically (every value counts)."""
    return _selector_reads(tuple(expressions), consumable)


def rejecting_at(slice_: ResourceSlice, position: int, expressions: list[str]) -> str | None:
    """`selector_rejecting(expressions, slice_.devices[position])`, without building a typed slice
    where the device holds none of the values the selectors read: its type's representative answers
    for it (dra/typed_reads.py `stands_in`)."""
    if stands_in(slice_, position, selector_reads(expressions)):
        return selector_rejecting(expressions, type_devices(slice_)[position])
    return selector_rejecting(expressions, slice_.devices[position])


@lru_cache(maxsize=1024)
def _selector_reads(expressions: tuple[str, ...], consumable: bool) -> frozenset[str] | None:
    names: set[str] = set()
    for expr in expressions:
        try:
            selector = compile_selector(expr, consumable_capacity=consumable)
        except CelError:
            continue  # rejects every device alike, whatever it holds
        if not selector.references.complete:
            return None
        names.update(selector.attribute_names)
    return frozenset(names)


def _word(expression: str, device: Device, consumable: bool) -> str:
    """The failing `&&` term in one word: `rdma=false`, `pciSubsystem=0101`, `no numaNode`."""
    term = next((p for p in split_conjuncts(expression) if _selects([p], device, consumable)), expression)
    attributes = sorted(cached_references(term).attributes | cached_references(term).guarded)
    for name in attributes:
        if lookup_attribute(device, name) is None:
            return f"no {_short(name)}"
    if attributes:
        return f"{_short(attributes[0])}={value_text(lookup_attribute(device, attributes[0]))}"
    return "selector"


def _constraint_gap(device: Device, spec: ClaimSpec, request: str) -> str | None:
    """A constraint over this request names an attribute the device lacks: it can never be chosen."""
    for constraint in spec.constraints:
        if constraint.requests and request not in constraint.requests:
            continue
        attribute = constraint.match_attribute or constraint.distinct_attribute
        if attribute and lookup_attribute(device, attribute) is None:
            return attribute
    return None


def usability(
    device: Device, spec: ClaimSpec, classes: dict[str, DeviceClass], features: Features
) -> tuple[str | None, str]:
    """(request the device could serve, ""), or (None, why not in one word)."""
    consumable = features.consumable_capacity
    reasons: list[str] = []
    for request in spec.requests:
        for alt in request.alternatives:
            cls = classes.get(alt.device_class)
            if cls is None or _selects(cls.selectors, device, consumable) is not None:
                continue  # another class's device: says nothing about this one
            failing = _selects(alt.selectors, device, consumable)
            if failing is not None:
                reasons.append(_word(failing, device, consumable))
                continue
            lacking = _constraint_gap(device, spec, request.name)
            if lacking:
                reasons.append(f"no {_short(lacking)}")
                continue
            return request.name, ""
    return None, reasons[0] if reasons else "not requested"


# ---------------------------------------------------------------- one node


def _holders(snapshot: Snapshot) -> dict[tuple[str, str, str], Holder]:
    """Every allocated device's holder (once per snapshot: `why` draws a node from it, `topo` every node)."""
    return snapshot.memo("topology-holders", lambda: _find_holders(snapshot))


def _find_holders(snapshot: Snapshot) -> dict[tuple[str, str, str], Holder]:
    out: dict[tuple[str, str, str], Holder] = {}
    for claim in snapshot.claims:
        if claim.allocation is None:
            continue
        reserved = (r.get("name") for r in claim.reserved_for if r.get("resource") == "pods")
        pod = claim.owner_pod or next(reserved, None)
        holder = Holder(f"{claim.namespace}/{claim.name}", f"{claim.namespace}/{pod}" if pod else None)
        for result in claim.allocation.results:
            if not result.admin_access:
                out.setdefault(result.key, holder)
    return out


def _kind(device: Device) -> str:
    if device.driver == NPU_DRIVER:
        return "npu"
    if device.driver == NIC_DRIVER or IF_NAME in device.attributes:
        return "nic"
    return "device"


def _placement_attributes(spec: ClaimSpec | None) -> tuple[str | None, str]:
    """Place by the attributes the RCT constrains on, so the drawing shows what the allocator sees."""
    numa: str | None = None
    root = PCIE_ROOT
    for constraint in spec.constraints if spec else []:
        attribute = constraint.match_attribute or constraint.distinct_attribute or ""
        if attribute.endswith("/numaNode") and numa is None:
            numa = attribute
        elif attribute.endswith("/pcieRoot"):
            root = attribute
    return numa, root


def _numa_of(device: Device, numa_attr: str | None) -> tuple[int | str | None, str | None]:
    """(NUMA node, hint): the RCT's NUMA attribute, or when it constrains none the standard then dranet's."""
    keys = (numa_attr,) if numa_attr else (STANDARD_NUMA, DRANET_NUMA)
    for key in keys:
        value = lookup_attribute(device, key)
        if value is not None and not isinstance(value, bool):
            return (value if isinstance(value, int) else str(value)), None
    for key in (STANDARD_NUMA, DRANET_NUMA):
        value = lookup_attribute(device, key)
        if value is not None:
            return None, f"{key}={value_text(value)}"
    return None, None


def _spot(device: Device, numa_attr: str | None, root_attr: str) -> Spot:
    numa, hint = _numa_of(device, numa_attr)
    root = lookup_attribute(device, root_attr)
    address = next((str(v) for k in ADDRESS_KEYS if (v := lookup_attribute(device, k)) is not None), None)
    label = device.name
    if_name = lookup_attribute(device, IF_NAME)
    if isinstance(if_name, str) and if_name:
        label = if_name
    return Spot(
        device.name,
        device.driver,
        device.pool,
        _kind(device),
        label,
        numa,
        None if root is None else value_text(root),
        address,
        FREE,
        numa_hint=hint,
    )


def _natural(text: str) -> list[Any]:
    return [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", text)]


def _group(spots: list[Spot]) -> list[NumaGroup]:
    by_numa: dict[int | str | None, dict[str | None, list[Spot]]] = {}
    for spot in spots:
        by_numa.setdefault(spot.numa, {}).setdefault(spot.pcie_root, []).append(spot)
    kind_order = {"npu": 0, "nic": 1}

    def numa_key(numa: int | str | None) -> tuple[int, Any]:
        return (2, "") if numa is None else (0, numa) if isinstance(numa, int) else (1, _natural(numa))

    groups = []
    for numa in sorted(by_numa, key=numa_key):
        roots = by_numa[numa]
        ordered = sorted(roots, key=lambda r: (r is None, r or ""))  # hex roots sort as text
        groups.append(
            NumaGroup(
                numa,
                [
                    RootGroup(
                        root, sorted(roots[root], key=lambda s: (kind_order.get(s.kind, 2), _natural(s.name)))
                    )
                    for root in ordered
                ],
            )
        )
    return groups


def count_fits(
    snapshot: Snapshot,
    node: str,
    spec: ClaimSpec,
    namespace: str,
    name: str,
    features: Features,
    held: set[tuple[str, str, str]] | _HeldByPool,
    limit: int = MAX_PODS,
    slices: list[ResourceSlice] | None = None,
) -> tuple[FitSummary, list[list[tuple[str, str, str]]]]:
    """Allocate one more Pod's claim at a time, keeping earlier ones, as the scheduler would; stop at
    the first failure. Returns the summary and, per fitted Pod, the devices it took. `held`: the
    devices held before, or the snapshot's indexed by pool (`held_devices`: `topo` counts every node
    against them)."""
    node_obj = _node_object(snapshot, node)
    slices = _slices_for(snapshot, node) if slices is None else slices
    allocated = held.on(slices) if isinstance(held, _HeldByPool) else set(held)
    taken: list[list[tuple[str, str, str]]] = []
    for index in range(limit):
        claim = ClaimToAllocate(namespace, f"{name}-pod-{index + 1}", spec)
        result = allocate(node_obj, [claim], slices, snapshot.device_classes, allocated, features)
        if not result.fits:
            phrase = _failure_phrase(result)
            return FitSummary(index, reason=say(phrase, "en"), phrase=phrase), taken
        keys = [r.key for r in result.results.get(claim.key, []) if not r.admin_access]
        taken.append(keys)
        allocated.update(keys)
    return FitSummary(limit, capped=True), taken


def _failure_phrase(result: NodeResult) -> Phrase | str:
    if result.error is not None:
        return Phrase("reason-allocator-error", {"message": result.error.message})
    return reason_phrase(result) or Phrase("reason-no-solution")


def _node_spots(
    snapshot: Snapshot,
    node: str,
    rct: RctChoice,
    features: Features,
    holders: dict[tuple[str, str, str], Holder],
    slices: list[ResourceSlice],
) -> tuple[list[Spot], str | None, str]:
    """The node's devices (of `slices`, what `_slices_for` gives) as spots, each free, held or
    unusable for the RCT's requests."""
    numa_attr, root_attr = _placement_attributes(rct.spec)
    devices = _own_devices(slices, node)
    spots = []
    tolerations = _tolerations(rct.spec)
    for device in devices:
        spot = _spot(device, numa_attr, root_attr)
        spot.holder = holders.get(device.key)
        if rct.spec is not None:
            spot.request, reason = usability(device, rct.spec, snapshot.device_classes, features)
            if spot.request is None:
                spot.state, spot.reason = UNUSABLE, reason
        taints = _blocking(device, tolerations, features) if features.device_taints else []
        if taints and spot.state == FREE:  # the allocator skips a device with a taint it does not tolerate
            spot.state, spot.reason = UNUSABLE, f"tainted {taint_text(taints[0])}"
        if spot.holder is not None:
            spot.state, spot.reason = HELD, ""
        spots.append(spot)
    for device in unpublished_devices(snapshot, node):  # what the driver publishes on every other node
        spot = _spot(device, numa_attr, root_attr)
        spot.state, spot.reason = UNUSABLE, NOT_PUBLISHED
        spots.append(spot)
    return spots, numa_attr, root_attr


NOT_PUBLISHED = "not published"


def _tolerations(spec: ClaimSpec | None) -> list[dict[str, Any]]:
    if spec is None:
        return []
    return [t for r in spec.requests for alt in r.alternatives for t in alt.tolerations]


def _blocking(device: Device, tolerations: list[dict[str, Any]], features: Features) -> list[dict[str, Any]]:
    return blocking_taints(device, tolerations, features.version, rules=features.device_taint_rules)


def unpublished_devices(snapshot: Snapshot, node: str) -> list[Device]:
    """Devices that every other node of the driver publishes, all under the same names, and this node
    does not: a device the driver left out of this node's slice (a lost NPU, a NIC without its RDMA
    driver). Only where the other nodes are alike (one node type), so a smaller server is not read as
    a broken one. Each comes as a peer's device of that name (its attributes place it in the drawing)."""
    published: dict[str, _PublishedNames] = snapshot.memo(
        "topology-published-names", lambda: _published_names(snapshot)
    )
    out: list[Device] = []
    for names in published.values():
        out += names.unpublished_on(node)
    return out


class _PublishedNames:
    """One driver's device names per node (of its node-local slices), and how many nodes publish each
    set of names: whether every other node publishes the same names is a count, not a pass over the
    other nodes (`topo` asks it of every node). A node of typed slices shares its type's set."""

    def __init__(self, by_node: dict[str, list[ResourceSlice]]) -> None:
        self.by_node = by_node
        self.nodes = sorted(by_node)
        shared: dict[tuple[int, ...], frozenset[str]] = {}
        self.names: dict[str, frozenset[str]] = {}
        for name, slices in by_node.items():
            kinds = tuple(s.type_id for s in slices)
            if -1 in kinds or not is_typed_all(slices):
                self.names[name] = frozenset(n for s in slices for n in s.device_names())
                continue
            found = shared.get(kinds)
            if found is None:
                found = shared[kinds] = frozenset(n for s in slices for n in s.device_names())
            self.names[name] = found
        self.counts = Counter(self.names.values())

    def unpublished_on(self, node: str) -> list[Device]:
        mine = self.names.get(node)
        peers = len(self.nodes) - 1
        if mine is None or not peers:
            return []  # the driver publishes nothing here (driver-slices-missing), or nowhere else
        first = self.nodes[0] if self.nodes[0] != node else self.nodes[1]
        names = self.names[first]
        alike = self.counts[names] - (1 if mine == names else 0)
        if alike != peers or not mine < names:
            return []
        return [self._device(first, name) for name in sorted(names - mine, key=_natural)]

    def _device(self, node: str, name: str) -> Device:
        """The node's first device of that name, in its slices' order."""
        for slice_ in self.by_node[node]:
            for position, found in enumerate(slice_.device_names()):
                if found == name:
                    return slice_.devices[position]
        raise KeyError(name)  # pragma: no cover - the name came from these slices


def is_typed_all(slices: list[ResourceSlice]) -> bool:
    return all(is_typed(s) for s in slices)


def _published_names(snapshot: Snapshot) -> dict[str, _PublishedNames]:
    by_driver: dict[str, dict[str, list[ResourceSlice]]] = {}
    for slice_ in snapshot.slices:
        if not slice_.node_name or slice_.per_device_node_selection:
            continue
        by_driver.setdefault(slice_.driver, {}).setdefault(slice_.node_name, []).append(slice_)
    return {driver: _PublishedNames(by_node) for driver, by_node in by_driver.items()}


def _mark_next_pods(spots: list[Spot], taken: list[list[tuple[str, str, str]]]) -> None:
    by_key = {(s.driver, s.pool, s.name): s for s in spots}
    for index, keys in enumerate(taken):
        for key in keys:
            if key in by_key:
                by_key[key].next_pod = index + 1


def _assemble(
    node: str, spots: list[Spot], numa_attr: str | None, root_attr: str, summary: FitSummary
) -> NodeTopology:
    numa_attributes = [numa_attr] if numa_attr else [STANDARD_NUMA, DRANET_NUMA]
    return NodeTopology(node, numa_attributes, root_attr, _group(spots), summary)


def node_topology(
    snapshot: Snapshot,
    node: str,
    rct: RctChoice,
    features: Features,
    holders: dict[tuple[str, str, str], Holder] | None = None,
) -> NodeTopology:
    """The node's devices grouped by NUMA node and PCIe root, marked for the RCT's requests, and how
    many more Pods of the RCT fit (the allocator runs once per more Pod, up to MAX_PODS)."""
    holders = _holders(snapshot) if holders is None else holders
    slices = _slices_for(snapshot, node)
    spots, numa_attr, root_attr = _node_spots(snapshot, node, rct, features, holders, slices)
    if rct.spec is None:
        summary = FitSummary(None, reason=f"no ResourceClaimTemplate {rct.key}")
    else:
        held = _held_of(snapshot, holders)
        summary, taken = count_fits(
            snapshot, node, rct.spec, rct.namespace, rct.name, features, held, slices=slices
        )
        _mark_next_pods(spots, taken)
    return _assemble(node, spots, numa_attr, root_attr, summary)


def claim_choice(
    namespace: str, spec: ClaimSpec | None, rct_name: str | None, direct: bool = False
) -> RctChoice:
    """The RctChoice of a Pod's own claim (why's drawing): its spec, named after its RCT if any, or
    after the ResourceClaim the Pod names itself (`direct`)."""
    return RctChoice(rct_name or "(Pod claim)", namespace, spec, "the Pod's claim", direct)


def node_topology_from_result(
    snapshot: Snapshot,
    node: str,
    rct: RctChoice,
    features: Features,
    result: NodeResult | None,
) -> NodeTopology:
    """The node's topology for one claim the caller has already simulated on it.

    Where `result` does not fit, the summary is 0 and the simulation's first reason (no allocator
    run). Where it fits, how many more Pods fit is counted by `count_fits`, the one count `topo`
    prints for the same node and RCT (saying "1 more Pod fits" where `topo` counts 2 told two
    stories of one node); a ResourceClaim the Pod names itself is allocated once: it fits, `#1`.
    None (no result for this node) leaves the count unknown.
    """
    holders = _holders(snapshot)
    slices = _slices_for(snapshot, node)
    spots, numa_attr, root_attr = _node_spots(snapshot, node, rct, features, holders, slices)
    if rct.spec is None:
        summary = FitSummary(None, reason=f"no ResourceClaimTemplate {rct.key}")
    elif result is None:
        summary = FitSummary(None)
    elif result.fits and not rct.direct:
        held = _held_of(snapshot, holders)
        summary, taken = count_fits(
            snapshot, node, rct.spec, rct.namespace, rct.name, features, held, slices=slices
        )
        _mark_next_pods(spots, taken)
    elif result.fits:
        summary = FitSummary(1)
        _mark_next_pods(spots, [[r.key for rs in result.results.values() for r in rs if not r.admin_access]])
    else:
        phrase = _failure_phrase(result)
        summary = FitSummary(0, reason=say(phrase, "en"), phrase=phrase)
    return _assemble(node, spots, numa_attr, root_attr, summary)


def build_topology(
    snapshot: Snapshot,
    nodes: list[str],
    rct: RctChoice,
    features: Features,
    assumptions: dict[str, Any] | None = None,
) -> Topology:
    holders = _holders(snapshot)
    return Topology(
        rct,
        [node_topology(snapshot, n, rct, features, holders) for n in nodes],
        source=snapshot.source,
        assumptions=assumptions or {},
    )


ALL_NAMESPACES = "-A"  # the RctChoice origin of `topo -A`'s layout: no one RCT decides usable


def every_namespace_layout(
    snapshot: Snapshot,
    nodes: list[str],
    choices: list[RctChoice],
    features: Features,
    assumptions: dict[str, Any] | None = None,
) -> Topology:
    """`topo -A`: the devices laid out once, free or held by any namespace's claims (no RCT marks
    them unusable), and for each namespace's RCT how many more of its Pods each node takes; every
    count starts from what is held now, not from another namespace's next Pods."""
    layout = build_topology(snapshot, nodes, RctChoice("", "", None, ALL_NAMESPACES), features, assumptions)
    for laid in layout.nodes:
        laid.summary = FitSummary(None)
    held = held_devices(snapshot)
    fits = []
    for choice in choices:
        by_node: dict[str, FitSummary] = {}
        for node in nodes:
            if choice.spec is None:
                by_node[node] = FitSummary(None, reason=f"no ResourceClaimTemplate {choice.key}")
                continue
            spec, ns, name = choice.spec, choice.namespace, choice.name
            by_node[node] = count_fits(snapshot, node, spec, ns, name, features, held)[0]
        fits.append(NamespaceFit(choice, by_node))
    layout.fits = fits
    return layout


# ---------------------------------------------------------------- the node `why` should draw


def _deficit(row: dict[str, Any]) -> int:
    candidates = row.get("candidates") or {}
    return sum(max(0, c.get("needed", 0) - c.get("free", 0)) for c in candidates.values())


def closest_node(results: list[dict[str, Any]]) -> str | None:
    """Of `why`'s simulated node rows (PodDiagnosis.nodes), the one that came closest to fitting:
    nodes the Pod may use before excluded ones, then the fewest devices missing, then by name.
    None when the devices fit on a node the Pod may use (nothing to show), or when no node has
    any device of the claim's classes to draw."""
    if any(r.get("fits") is True for r in results):
        return None
    drawable = [r for r in results if any(c.get("onNode", 0) for c in (r.get("candidates") or {}).values())]
    if not drawable:
        return None
    best = min(drawable, key=lambda r: (r.get("fits") is None, _deficit(r), r["name"]))
    return str(best["name"])
