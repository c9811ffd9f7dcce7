"""Attributes the Pod's claims need that no device of the driver publishes (seed 001, item 5).

Required: every `device.attributes[...]` a selector reads unguarded (request and
DeviceClass selectors, for the drivers the class selects), and every
`matchAttribute` / `distinctAttribute`, for the drivers of the requests it
covers. Names are compared fully qualified, as the allocator does (dra-facts.md
2.8, 3.2); a near miss is the same id under another domain, e.g.
`dra.net/numaNode` for `resource.kubernetes.io/numaNode` (dranet up to v1.4.0,
ecosystem-facts.md 0.1).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from kubectl_rbln.catalog import Names, Phrase, Said
from kubectl_rbln.diagnose.context import PodContext
from kubectl_rbln.diagnose.findings import Finding
from kubectl_rbln.diagnose.registry import rule
from kubectl_rbln.diagnose.rules.layers import drivers_of
from kubectl_rbln.domain import NIC_DRIVER, NUMA_ATTR
from kubectl_rbln.dra.model import ClaimSpec, Device, PodClaimRef, Snapshot
from kubectl_rbln.dra.node_types import TypedSlice
from kubectl_rbln.dra.references import cached_references

ALIGNMENT_IDS = ("numaNode", "pcieRoot")


@dataclass(frozen=True, slots=True)
class Requirement:
    attribute: str  # fully qualified
    drivers: frozenset[str]
    source: str  # "selector of request nic" | "matchAttribute over [npu, nic]"
    kind: str  # "selector" | "matchAttribute" | "distinctAttribute"


def _request_drivers(snapshot: Snapshot, spec: ClaimSpec) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for request in spec.requests:
        drivers: set[str] = set()
        for alternative in request.alternatives:
            drivers |= drivers_of(
                snapshot.device_classes.get(alternative.device_class), alternative.device_class
            )
        out[request.name] = drivers
    return out


def requirements(snapshot: Snapshot, spec: ClaimSpec) -> list[Requirement]:
    found: list[Requirement] = []
    per_request = _request_drivers(snapshot, spec)
    for request in spec.requests:
        for alternative in request.alternatives:
            device_class = snapshot.device_classes.get(alternative.device_class)
            expressions = (device_class.selectors if device_class else []) + alternative.selectors
            drivers = frozenset(per_request[request.name])
            for expression in expressions:
                refs = cached_references(expression)
                for attribute in sorted(refs.attributes - refs.guarded):
                    found.append(
                        Requirement(
                            attribute,
                            drivers,
                            Said(Phrase("required-by-selector", {"request": request.name})),
                            "selector",
                        )
                    )
    for constraint in spec.constraints:
        compared = constraint.match_attribute or constraint.distinct_attribute
        if not compared:
            continue
        kind = "matchAttribute" if constraint.match_attribute else "distinctAttribute"
        covered = constraint.requests or list(per_request)
        drivers = frozenset(d for name in covered for d in per_request.get(name.split("/")[0], set()))
        found.append(
            Requirement(
                compared,
                drivers,
                Said(Phrase("required-by-constraint", {"kind": kind, "covered": ", ".join(covered)})),
                kind,
            )
        )
    return found


def devices_by_driver(snapshot: Snapshot) -> dict[str, list[Device]]:
    """Every device of every slice, per driver (computed once per snapshot)."""

    def build() -> dict[str, list[Device]]:
        out: dict[str, list[Device]] = defaultdict(list)
        for slice_ in snapshot.slices:
            out[slice_.driver].extend(slice_.devices)
        return dict(out)

    return snapshot.memo("devices-by-driver", build)


def device_kinds_by_driver(snapshot: Snapshot) -> dict[str, list[Device]]:
    """Per driver, a device of every distinct set of attribute names: every device of an untyped
    slice, and a typed slice's type's own (dra/node_types.py: a type's slices all publish its names),
    so asking whether any device publishes a name builds no typed slice's devices."""

    def build() -> dict[str, list[Device]]:
        out: dict[str, list[Device]] = defaultdict(list)
        kinds: set[int] = set()
        for slice_ in snapshot.slices:
            if isinstance(slice_, TypedSlice):
                if slice_.type_id not in kinds:
                    kinds.add(slice_.type_id)
                    out[slice_.driver].extend(slice_.kind.devices)
            else:
                out[slice_.driver].extend(slice_.devices)
        return dict(out)

    return snapshot.memo("device-kinds-by-driver", build)


def near_misses(attribute: str, devices: list[Device]) -> list[str]:
    """Published names with the same id under another domain (or only differing in case)."""
    return near_misses_among(attribute, {name for device in devices for name in device.attributes})


def near_misses_among(attribute: str, names: set[str]) -> list[str]:
    """`near_misses` among the attribute names `names` (what some device publishes)."""
    wanted = attribute.rsplit("/", 1)[-1].lower()
    return sorted(n for n in names if n != attribute and n.rsplit("/", 1)[-1].lower() == wanted)


def _common_near_miss(
    attribute: str, drivers: frozenset[str], by_driver: dict[str, list[Device]]
) -> str | None:
    """A same-id attribute every driver of the constraint publishes: matching on it keeps the alignment."""
    candidates: set[str] | None = None
    for driver in drivers:
        devices = by_driver.get(driver, [])
        published = {n for n in near_misses(attribute, devices) if all(n in d.attributes for d in devices)}
        if attribute in {n for d in devices for n in d.attributes}:
            published.add(attribute)
        candidates = published if candidates is None else candidates & published
    options = sorted((candidates or set()) - {attribute})
    return options[0] if options else None


@rule(
    "attributes.published",
    emits=("attribute-not-advertised",),
    suppresses={"constraint-unsatisfiable": "attribute"},
)
def attribute_not_advertised(ctx: PodContext) -> list[Finding]:
    """An attribute a selector or constraint needs that no device of the driver publishes."""
    findings = []
    kinds = device_kinds_by_driver(ctx.snapshot)
    seen: set[tuple[str, str]] = set()
    for claim in ctx.unallocated:
        spec = claim.spec
        if spec is None:
            continue
        for requirement in requirements(ctx.snapshot, spec):
            for driver in sorted(requirement.drivers):
                devices = kinds.get(driver, [])
                key = (requirement.attribute, driver)
                if not devices or key in seen:
                    continue
                if any(requirement.attribute in d.attributes for d in devices):
                    continue
                seen.add(key)
                by_driver = devices_by_driver(ctx.snapshot)
                findings.append(_finding(ctx, claim.ref, requirement, driver, by_driver[driver], by_driver))
    return findings


def _finding(
    ctx: PodContext,
    ref: PodClaimRef,
    requirement: Requirement,
    driver: str,
    devices: list[Device],
    by_driver: dict[str, list[Device]],
) -> Finding:
    misses = near_misses(requirement.attribute, devices)
    nodes = sorted({d.node_name for d in devices if d.node_name})
    evidence = {
        "attribute": requirement.attribute,
        "driver": driver,
        "requiredBy": requirement.source,
        "devicesOfDriver": len(devices),
        "devicesPublishing": 0,
        "nodes": nodes,
        "nearMisses": misses,
    }
    values = ctx.values(
        attribute=requirement.attribute,
        driver=driver,
        **ctx.claim_values(ref),
        near_miss=Names(misses),
        selector=requirement.kind == "selector",
        dranet_numa=driver == NIC_DRIVER and requirement.attribute == NUMA_ATTR,  # dranet before v1.5.0
    )
    recipe = None
    case = None
    attribute_id = requirement.attribute.rsplit("/", 1)[-1]
    if requirement.kind != "selector" and attribute_id in ALIGNMENT_IDS:
        recipe = "numa-unaligned"
        common = _common_near_miss(requirement.attribute, requirement.drivers, by_driver)
        if common:
            evidence["alignmentAlternative"] = common
            values.update(alternative=common, constraint_kind=requirement.kind)
            case = "alignment-alternative"
    elif requirement.kind == "selector":
        recipe = "nic-selector" if driver == NIC_DRIVER else None
        domain, _, attribute_name = requirement.attribute.rpartition("/")
        values.update(
            request=requirement.source.removeprefix("selector of request "),
            guard=f'"{attribute_name}" in device.attributes["{domain}"]',
            published=misses[0] if misses else None,
        )
        case = "selector"
    return Finding("attribute-not-advertised", values, evidence, case=case, recipe=recipe)
