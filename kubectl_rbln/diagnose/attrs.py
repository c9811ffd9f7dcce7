"""`attrs` as a pure function: what the RCT requires of each driver against what every device publishes.

Why: seed 001's item (5) reads `.spec.devices[0].attributes | keys` per slice. That sees one device
per slice, cannot tell a node that lacks a key from one that has it, leaves the driver's own
unqualified names unqualified, and ignores value formats. Here every device of every slice counts,
names are compared fully qualified (as the allocator does, dra-facts.md 2.8 and 3.2), coverage is
per node and per device, and the formats that constraints compare are checked
(ecosystem-facts.md 0.1 and 0.3).
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from kubectl_rbln.catalog import Names, Phrase, Said
from kubectl_rbln.diagnose.context import source_values
from kubectl_rbln.diagnose.findings import Finding, dedupe, ordered
from kubectl_rbln.diagnose.rct_audit import applied_spec, dropped_fields
from kubectl_rbln.diagnose.rules.attributes import near_misses_among, requirements
from kubectl_rbln.diagnose.rules.layers import drivers_of, slices_missing
from kubectl_rbln.domain import NIC_DRIVER, NUMA_ATTR, PCIE_ROOT_ATTR
from kubectl_rbln.dra.gates import GATE_FIELDS
from kubectl_rbln.dra.model import ClaimSpec, Device, ResourceClaimTemplate, ResourceSlice, Snapshot, Version
from kubectl_rbln.dra.references import cached_references
from kubectl_rbln.dra.typed_reads import (
    attribute_types,
    is_typed,
    own_values,
    type_devices,
    value_at,
    varying_names,
)

PCIE_ROOT_STANDARD = re.compile(r"^pci[0-9a-fA-F]{4}:[0-9a-fA-F]{2}$")
PCI_BDF = re.compile(r"^[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]$")
ALIGNMENT_IDS = ("numaNode", "pcieRoot")
CONSTRAINT_KINDS = ("matchAttribute", "distinctAttribute")


@dataclass(slots=True)
class Coverage:
    """Who publishes one attribute: the devices and nodes of one driver, against all device nodes."""

    devices_with: int
    devices_total: int
    nodes_with: list[str]
    nodes_total: list[str]
    types: list[str]

    @property
    def missing_on(self) -> list[str]:
        return sorted(set(self.nodes_total) - set(self.nodes_with))

    def to_dict(self) -> dict[str, Any]:
        return {
            "devices": self.devices_with,
            "devicesOfDriver": self.devices_total,
            "nodes": len(self.nodes_with),
            "nodesTotal": len(self.nodes_total),
            "missingOn": self.missing_on,
            "types": self.types,
        }


@dataclass(slots=True)
class Required:
    """One attribute (or capacity) the RCT reads, for one driver, with its verdict."""

    attribute: str
    driver: str
    kinds: list[str] = field(default_factory=list)  # selector | guarded | capacity | matchAttribute | ...
    sources: list[str] = field(default_factory=list)
    coverage: Coverage | None = None
    verdict: str = ""  # present | partial | absent | optional
    near_misses: list[str] = field(default_factory=list)
    driver_absent_on: list[str] = field(
        default_factory=list
    )  # device nodes where the driver publishes nothing

    @property
    def in_constraint(self) -> bool:
        return any(k in CONSTRAINT_KINDS for k in self.kinds)

    @property
    def lacking_attribute_on(self) -> list[str]:
        """Nodes where the driver publishes devices but none with this key."""
        missing = self.coverage.missing_on if self.coverage else []
        return [n for n in missing if n not in self.driver_absent_on]

    def to_dict(self) -> dict[str, Any]:
        return {
            "attribute": self.attribute,
            "driver": self.driver,
            "requiredBy": self.sources,
            "kinds": self.kinds,
            "verdict": self.verdict,
            "coverage": self.coverage.to_dict() if self.coverage else None,
            "nearMisses": self.near_misses,
            "driverAbsentOn": self.driver_absent_on,
        }


def node_of(device: Device) -> str:
    """Where a device lives: its node, or its pool for network-attached devices."""
    return device.node_name or f"pool:{device.pool}"


def type_name(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, Version):
        return "version"
    return "string"


@dataclass(slots=True)
class Shape:
    """Devices of one driver that publish the same attribute names with the same value types, and the
    same capacity names: how many, and on which nodes."""

    names: tuple[str, ...]
    kinds: tuple[type, ...]  # the type of each attribute's value
    capacity: tuple[str, ...]
    count: int = 0
    nodes: set[str] = field(default_factory=set)


def shape_key(device: Device) -> tuple[Any, ...]:
    """What makes a device's shape: its attribute names, their values' types, its capacity names."""
    found = device.attributes
    return (tuple(found), tuple(map(type, found.values())), tuple(device.capacity))


@dataclass(slots=True)
class DriverDevices:
    """One driver's devices as `attrs` reads them: how many, grouped by shape in first-seen order (at
    20,000 nodes a few dozen shapes stand for 260,000 devices, so each key's coverage is a sum over
    shapes), and the forms of their pcieRoot values (form -> [count, the first value of that form])."""

    count: int = 0
    shapes: dict[tuple[Any, ...], Shape] = field(default_factory=dict)
    pcie_total: int = 0
    pcie_forms: dict[str, list[Any]] = field(default_factory=dict)
    _forms: dict[Any, str] = field(default_factory=dict)  # value -> form: roots repeat on every node

    @property
    def shape_list(self) -> list[Shape]:
        return list(self.shapes.values())

    @property
    def nodes(self) -> set[str]:
        """Every node (or `pool:NAME`) with a device of the driver (`node_of` of each)."""
        return {node for shape in self.shapes.values() for node in shape.nodes}

    @property
    def names(self) -> set[str]:
        """Every attribute name a device of the driver publishes."""
        return {name for shape in self.shapes.values() for name in shape.names}

    def add(self, key: tuple[Any, ...], node: str, count: int = 1) -> None:
        shape = self.shapes.get(key)
        if shape is None:
            shape = self.shapes[key] = Shape(*key)
        shape.count += count
        shape.nodes.add(node)
        self.count += count

    def add_pcie(self, value: Any) -> None:
        form = self._forms.get(value) if isinstance(value, str) else None
        if form is None:
            form = _pcie_class(value)
            if isinstance(value, str):
                self._forms[value] = form
        self.add_forms({form: [1, value]})

    def add_forms(self, forms: dict[str, list[Any]]) -> None:
        """pcieRoot values counted per form (form -> [count, first value]), in the order they come."""
        for form, (count, first) in forms.items():
            seen = self.pcie_forms.get(form)
            if seen is None:
                self.pcie_forms[form] = [count, first]
            else:
                seen[0] += count
            self.pcie_total += count


def driver_devices(snapshot: Snapshot) -> dict[str, DriverDevices]:
    """Every device of every slice, per driver, as shapes and pcieRoot forms (once per snapshot). A
    typed slice is read from its type and the values it holds of its own (dra/typed_reads.py): its
    devices are not built, so the work and memory grow with the slice types, not the devices."""

    def build() -> dict[str, DriverDevices]:
        out: dict[str, DriverDevices] = {}
        facts: dict[int, _TypeFacts] = {}
        for slice_ in snapshot.slices:
            summary = out.get(slice_.driver)
            if summary is None:
                summary = out[slice_.driver] = DriverDevices()
            if is_typed(slice_):
                kind = facts.get(slice_.type_id)
                if kind is None:
                    kind = facts[slice_.type_id] = _TypeFacts(type_devices(slice_), slice_)
                kind.add_to(summary, slice_)
                continue
            for device in slice_.devices:
                summary.add(shape_key(device), device.node_name or f"pool:{device.pool}")
                if PCIE_ROOT_ATTR in device.attributes:
                    summary.add_pcie(device.attributes[PCIE_ROOT_ATTR])
        return out

    return snapshot.memo("attrs-driver-devices", build)


class _TypeFacts:
    """A slice type's devices as `DriverDevices` counts them: each position's shape, and the shapes and
    pcieRoot forms added up per slice (a slice whose own values keep their representative's types and
    hold no pcieRoot of their own adds the sums, in the order its devices would have)."""

    def __init__(self, devices: list[Device], first: ResourceSlice) -> None:
        self.keys = [shape_key(d) for d in devices]
        self.rep_types = [{name: type(value) for name, value in d.attributes.items()} for d in devices]
        # per position: the names a slice holds values of -> their representative's types
        self.expected: list[dict[tuple[str, ...], tuple[type, ...]]] = [{} for _ in devices]
        self.counts: dict[tuple[Any, ...], int] = {}
        for key in self.keys:
            self.counts[key] = self.counts.get(key, 0) + 1
        forms = DriverDevices()
        for device in devices:
            if PCIE_ROOT_ATTR in device.attributes:
                forms.add_pcie(device.attributes[PCIE_ROOT_ATTR])
        self.forms = forms.pcie_forms
        self.pcie_varies = PCIE_ROOT_ATTR in varying_names(first)

    def add_to(self, summary: DriverDevices, slice_: ResourceSlice) -> None:
        node = slice_.node_name or f"pool:{slice_.pool}"
        keys: list[tuple[Any, ...]] | None = None
        for position, own in enumerate(own_values(slice_)):
            if not own:
                continue
            held = own[::2]
            expected = self.expected[position].get(held)
            if expected is None:
                rep = self.rep_types[position]
                expected = self.expected[position][held] = tuple(rep[name] for name in held)
            if tuple(map(type, own[1::2])) == expected:
                continue  # its own values keep their representative's types: its shape is theirs
            keys = keys or list(self.keys)
            names, _, capacity = keys[position]
            keys[position] = (names, attribute_types(slice_, position), capacity)
        if keys is not None:
            for key in keys:
                summary.add(key, node)
        else:
            for key, count in self.counts.items():
                summary.add(key, node, count)
        if self.pcie_varies:
            for position in range(len(self.keys)):
                value = value_at(slice_, position, PCIE_ROOT_ATTR, _ABSENT)
                if value is not _ABSENT:
                    summary.add_pcie(value)
        else:
            summary.add_forms(self.forms)


_ABSENT = object()


def coverage(name: str, devices: DriverDevices, universe: list[str], capacity: bool = False) -> Coverage:
    """Which devices and nodes of one driver publish `name` (a sum over the devices' shapes)."""
    shapes = devices.shapes.values()
    count, nodes, types = 0, set(), set()
    for shape in shapes:
        if capacity:
            if name not in shape.capacity:
                continue
            types.add("quantity")
        else:
            if name not in shape.names:
                continue
            types.add(_TYPE_NAMES.get(shape.kinds[shape.names.index(name)], "string"))
        count += shape.count
        nodes |= shape.nodes
    return Coverage(count, devices.count, sorted(nodes), universe, sorted(types))


def collect_required(snapshot: Snapshot, spec: ClaimSpec) -> list[Required]:
    """Selector reads (guarded ones optional), capacities, matchAttribute, distinctAttribute; per driver."""
    found: dict[tuple[str, str], Required] = {}

    def add(attribute: str, driver: str, kind: str, source: str) -> None:
        entry = found.setdefault((attribute, driver), Required(attribute, driver))
        if kind not in entry.kinds:
            entry.kinds.append(kind)
        if source not in entry.sources:
            entry.sources.append(source)

    for requirement in requirements(snapshot, spec):
        for driver in sorted(requirement.drivers):
            add(requirement.attribute, driver, requirement.kind, requirement.source)
    for request in spec.requests:
        for alternative in request.alternatives:
            device_class = snapshot.device_classes.get(alternative.device_class)
            drivers = sorted(drivers_of(device_class, alternative.device_class))
            selectors = [
                ("class " + alternative.device_class, e)
                for e in (device_class.selectors if device_class else [])
            ]
            selectors += [(f"selector of request {request.name}", e) for e in alternative.selectors]
            for where, expression in selectors:
                refs = cached_references(expression)
                for driver in drivers:
                    for name in sorted(refs.guarded - refs.attributes):
                        add(name, driver, "guarded", where)
                    for name in sorted(refs.capacities | refs.guarded_capacities):
                        add(name, driver, "capacity", where)
    return list(found.values())


def judge(entry: Required, devices: DriverDevices, universe: list[str]) -> None:
    """present everywhere, on some nodes, or absent; guarded reads are optional by construction."""
    is_capacity = entry.kinds == ["capacity"]
    entry.coverage = coverage(entry.attribute, devices, universe, capacity=is_capacity)
    cov = entry.coverage
    entry.driver_absent_on = sorted(set(universe).difference(*(s.nodes for s in devices.shapes.values())))
    if cov.devices_with == 0:
        entry.verdict = "optional" if entry.kinds == ["guarded"] else "absent"
        entry.near_misses = near_misses_among(entry.attribute, devices.names)
    elif cov.missing_on or ("selector" in entry.kinds and cov.devices_with < cov.devices_total):
        entry.verdict = "optional" if entry.kinds == ["guarded"] else "partial"
    else:
        entry.verdict = "present"


def advertised(by_driver: dict[str, DriverDevices], universe: list[str]) -> dict[str, list[dict[str, Any]]]:
    """Every attribute and capacity of every device, per driver, with coverage (what `coverage` says
    of each name). Devices that publish the same names with the same types are counted together first:
    at 5,000 nodes that is a few dozen shapes, not 65,000 devices x 40 names."""
    out: dict[str, list[dict[str, Any]]] = {}
    for driver, devices in sorted(by_driver.items()):
        shapes = devices.shape_list
        attributes: dict[str, tuple[list[int], set[str], set[type]]] = {}
        capacities: dict[str, tuple[list[int], set[str], set[type]]] = {}
        for shape in shapes:
            for name, kind in zip(shape.names, shape.kinds, strict=True):
                seen = attributes.setdefault(name, ([0], set(), set()))
                seen[0][0] += shape.count
                seen[1].update(shape.nodes)
                seen[2].add(kind)
            for name in shape.capacity:
                seen = capacities.setdefault(name, ([0], set(), set()))
                seen[0][0] += shape.count
                seen[1].update(shape.nodes)
        rows = []
        for name in sorted(attributes):
            count, nodes, kinds = attributes[name]
            types = sorted({_TYPE_NAMES.get(kind, "string") for kind in kinds})
            cov = Coverage(count[0], devices.count, sorted(nodes), universe, types)
            rows.append({"attribute": name, **cov.to_dict()})
        for name in sorted(capacities):
            count, nodes, _ = capacities[name]
            cov = Coverage(count[0], devices.count, sorted(nodes), universe, ["quantity"])
            rows.append({"attribute": name, "capacity": True, **cov.to_dict()})
        out[driver] = rows
    return out


_TYPE_NAMES: dict[type, str] = {bool: "bool", int: "int", Version: "version", str: "string"}  # type_name


def _pcie_class(value: Any) -> str:
    if not isinstance(value, str):
        return type_name(value)
    if PCIE_ROOT_STANDARD.match(value):
        return "pci"
    return "bdf" if PCI_BDF.match(value) else "other"


def _format_found(standard: int, total: int, odd: dict[str, list[Any]]) -> Said:
    """`12/16 standard, 4 bdf (0000:17:02.0)`: how many values have the standard form, and the others
    (`odd`: form -> [count, first value])."""
    parts = tuple(
        Phrase("attrs-format-odd", {"count": v[0], "kind": _kind_word(k), "example": v[1]})
        for k, v in odd.items()
    )
    return Said(Phrase("attrs-format-standard", {"count": standard, "total": total}, parts=parts))


def _kind_word(kind: str) -> Phrase | str:
    return Phrase(f"attrs-format-kind-{kind}") if kind in ("bdf", "other") else kind


def format_checks(by_driver: dict[str, DriverDevices], required: list[Required]) -> list[dict[str, Any]]:
    """pcieRoot in `pci<domain>:<bus>` form, numaNode an int, and one type per constrained attribute."""
    rows = []
    constrained = {(r.attribute, r.driver): r for r in required if r.in_constraint}
    for driver, devices in sorted(by_driver.items()):
        shapes = devices.shape_list
        if devices.pcie_total:
            forms = devices.pcie_forms
            odd = {k: v for k, v in forms.items() if k != "pci"}
            note = ""
            if "bdf" in odd:
                note = Said(Phrase("attrs-note-bdf"))
            rows.append(
                _format_row(
                    PCIE_ROOT_ATTR,
                    driver,
                    Said(Phrase("attrs-expected-pcieroot")),
                    _format_found(forms["pci"][0] if "pci" in forms else 0, devices.pcie_total, odd),
                    not odd,
                    note,
                    constrained.get((PCIE_ROOT_ATTR, driver)),
                )
            )
        for name in sorted({n for shape in shapes for n in shape.names if n.endswith("/numaNode")}):
            types = sorted(
                {
                    _TYPE_NAMES.get(shape.kinds[shape.names.index(name)], "string")
                    for shape in shapes
                    if name in shape.names
                }
            )
            rows.append(
                _format_row(
                    name,
                    driver,
                    "int",
                    ", ".join(types),
                    types == ["int"],
                    "",
                    constrained.get((name, driver)),
                )
            )
    by_attr: dict[str, list[Required]] = defaultdict(list)
    for entry in required:
        if "matchAttribute" in entry.kinds and entry.coverage and entry.coverage.types:
            by_attr[entry.attribute].append(entry)
    for name, entries in sorted(by_attr.items()):
        per_driver = {e.driver: e.coverage.types for e in entries if e.coverage}
        flat = {t for ts in per_driver.values() for t in ts}
        if len(entries) > 1 and len(flat) > 1:
            found = "; ".join(f"{d}: {', '.join(t)}" for d, t in sorted(per_driver.items()))
            rows.append(
                {
                    "attribute": name,
                    "driver": ", ".join(sorted(per_driver)),
                    "expected": Said(Phrase("attrs-expected-one-type")),
                    "found": found,
                    "ok": False,
                    "severity": "error",
                    "note": Said(Phrase("attrs-note-types")),
                }
            )
    return rows


def _format_row(
    name: str, driver: str, expected: str, found: str, ok: bool, note: str, used: Required | None
) -> dict[str, Any]:
    severity = "ok"
    if not ok:
        severity = "info"
        if used is not None:
            severity = "error" if "matchAttribute" in used.kinds else "warning"
    return {
        "attribute": name,
        "driver": driver,
        "expected": expected,
        "found": found,
        "ok": ok,
        "severity": severity,
        "note": note,
    }


@dataclass(slots=True)
class RctSource:
    """Which RCT was compared: read back from the cluster, a file, or the reference recipe."""

    name: str
    namespace: str
    origin: str  # cluster | file | recipe
    template: ResourceClaimTemplate | None
    spec: ClaimSpec
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        api = (self.template.raw.get("apiVersion") if self.template is not None else None) or None
        out = {"name": self.name, "namespace": self.namespace, "origin": self.origin, "apiVersion": api}
        if self.note:
            out["note"] = self.note
        return out


def stored_drops(source: RctSource) -> dict[str, str]:
    """Gated fields the API server dropped: last-applied vs stored, else the recipe's shape vs stored."""
    if source.origin != "cluster" or source.template is None:
        return {}
    applied = applied_spec(source.template)
    if applied is not None:
        return dropped_fields(applied, source.spec)
    stored = source.spec.constraints
    aligned = any(c.match_attribute and c.match_attribute.endswith("/numaNode") for c in stored)
    if aligned and not any(c.distinct_attribute for c in stored) and len(source.spec.requests) > 1:
        # inferred from the recipe's shape: said in the reader's language (a Said), English in -o json
        field = f"distinctAttribute: {PCIE_ROOT_ATTR}"
        return {"DRAConsumableCapacity": Said(Phrase("attrs-drop-inferred", {"field": field}))}
    return {}


def _findings(
    source: RctSource, required: list[Required], formats: list[dict[str, Any]], drops: dict[str, str]
) -> list[Finding]:
    """One finding per unpublished key, per odd value format, per dropped field; most important first."""
    found: list[Finding] = []
    for entry in required:
        if entry.verdict not in ("absent", "partial"):
            continue
        missing = entry.coverage.missing_on if entry.coverage else []
        if entry.verdict == "partial" and missing and not entry.lacking_attribute_on:
            found.append(driver_missing_on_nodes(entry.driver, missing))
        else:
            found.append(attribute_unpublished(source, entry))
    found += [attribute_format(source, row) for row in formats if row["severity"] in ("error", "warning")]
    found += [gate_dropped_field(source, gate, what) for gate, what in drops.items()]
    return ordered(dedupe(found))


def _rct_values(source: RctSource) -> dict[str, Any]:
    api = (source.template.raw.get("apiVersion") or "") if source.template is not None else ""
    version = api.rpartition("/")[2]
    # an RCT read by itself: no Pod names a claim directly, so its fix is the RCT's
    return {
        "namespace": source.namespace,
        "rct": source.name,
        **source_values(None, source.name),
        "api_version": version or "v1",
        "direct_claim": False,
        "claim": "",
    }


def attribute_unpublished(source: RctSource, entry: Required) -> Finding:
    """attribute-not-advertised: no device of the driver publishes the key, or only some do."""
    missing = entry.coverage.missing_on if entry.coverage else []
    case: str | None = None
    if entry.verdict == "absent":
        case = None if entry.near_misses else "no-near-miss"
    elif not missing:
        case = "partial-devices"
    else:
        case = "partial-selector" if "selector" in entry.kinds else "partial"
    evidence = {
        "attribute": entry.attribute,
        "driver": entry.driver,
        "requiredBy": entry.sources,
        **(entry.coverage.to_dict() if entry.coverage else {}),
        "nearMisses": entry.near_misses,
    }
    recipe = (
        "numa-unaligned"
        if entry.in_constraint and entry.attribute.rsplit("/", 1)[-1] in ALIGNMENT_IDS
        else ("nic-selector" if entry.driver == NIC_DRIVER else None)
    )
    values = {
        **_rct_values(source),
        "attribute": entry.attribute,
        "driver": entry.driver,
        "near_miss": list(entry.near_misses),
        "nodes": Names(missing),
        "dranet_numa": entry.driver == NIC_DRIVER and entry.attribute == NUMA_ATTR,  # dranet before v1.5.0
    }
    return Finding("attribute-not-advertised", values, evidence, case=case, recipe=recipe)


def driver_missing_on_nodes(driver: str, nodes: list[str]) -> Finding:
    """driver-slices-missing (a warning here): the driver publishes nothing on some device nodes."""
    return slices_missing(driver, nodes, {"driver": driver, "nodesWithout": nodes}, "some-nodes")


def attribute_format(source: RctSource, row: dict[str, Any]) -> Finding:
    """constraint-unsatisfiable (format cases): a constrained key published in another form or type."""
    case = "format-match" if row["severity"] == "error" else "format-distinct"
    evidence = {**row, "severity": Said(Phrase(f"severity-{row['severity']}"))}
    values = {
        **_rct_values(source),
        "attribute": row["attribute"],
        "driver": row["driver"],
        "found": row["found"],
        "expected": row["expected"],
        "constraint": row["attribute"],
    }
    return Finding("constraint-unsatisfiable", values, evidence, case=case, recipe="numa-unaligned")


def gate_dropped_field(source: RctSource, gate: str, what: str) -> Finding:
    """feature-gate-disabled: the stored RCT lost a field the gate guards."""
    evidence = {
        "resourceClaimTemplate": f"{source.namespace}/{source.name}",
        "applied": what,
        "stored": Said(Phrase("evidence-value-missing")),
    }
    fix_gates = f"{gate}=true" if gate in GATE_FIELDS else ""  # the fix turns it on, then re-creates the RCT
    values = {**_rct_values(source), "gate": gate, "fix_gates": fix_gates}
    return Finding("feature-gate-disabled", values, evidence)


@dataclass(slots=True)
class AttrsDiagnosis:
    """What `attrs` found: the typed parts of the AttrsReport and the findings behind its exit code."""

    source: RctSource
    by_driver: dict[str, DriverDevices]
    nodes: list[str]
    required: list[Required]
    advertised: dict[str, list[dict[str, Any]]]
    formats: list[dict[str, Any]]
    drops: dict[str, str]
    findings: list[Finding]


def examine(snapshot: Snapshot, source: RctSource, *, with_advertised: bool = True) -> AttrsDiagnosis:
    """Every key the RCT reads against every device, the value formats, the dropped fields: one pass.
    `with_advertised=False`: no table of every advertised key (`check` reads only the verdicts)."""
    by_driver = driver_devices(snapshot)
    universe = sorted({node for devices in by_driver.values() for node in devices.nodes})
    required = collect_required(snapshot, source.spec)
    for entry in required:
        judge(entry, by_driver.get(entry.driver) or DriverDevices(), universe)
    required.sort(key=lambda r: (r.driver, r.attribute))
    formats = format_checks(by_driver, required)
    drops = stored_drops(source)
    return AttrsDiagnosis(
        source=source,
        by_driver=by_driver,
        nodes=universe,
        required=required,
        advertised=advertised(by_driver, universe) if with_advertised else {},
        formats=formats,
        drops=drops,
        findings=_findings(source, required, formats, drops),
    )


def required_attribute_names(report: dict[str, Any]) -> dict[str, set[str]]:
    """driver -> the attributes the report says are required (for callers and tests)."""
    out: dict[str, set[str]] = defaultdict(set)
    for row in report["required"]:
        out[row["driver"]].add(row["attribute"])
    return dict(out)


__all__ = [
    "NUMA_ATTR",
    "AttrsDiagnosis",
    "RctSource",
    "examine",
    "rct_source",
    "required_attribute_names",
]


def rct_source(
    snapshot: Snapshot, namespace: str, name: str, from_file: ResourceClaimTemplate | None = None
) -> RctSource:
    """The RCT to compare: a file, else the stored one (what the API server kept), else the recipe."""
    from kubectl_rbln.dra.normalize_claims import normalize_template  # noqa: PLC0415
    from kubectl_rbln.recipes import recipe_devices, template_object  # noqa: PLC0415

    if from_file is not None:
        return RctSource(from_file.name, from_file.namespace or namespace, "file", from_file, from_file.spec)
    stored = snapshot.template(namespace, name)
    if stored is not None:
        return RctSource(name, namespace, "cluster", stored, stored.spec)
    recipe = normalize_template(template_object(name, namespace, recipe_devices("numa-aligned")))
    note = (
        f"no ResourceClaimTemplate {name} in namespace {namespace}: compared with the numa-aligned recipe "
        "of the product documentation, the check to run before installing"
    )
    return RctSource(name, namespace, "recipe", None, recipe.spec, note)
