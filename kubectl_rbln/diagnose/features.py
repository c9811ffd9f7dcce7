"""Which allocator to simulate: the Kubernetes minor and the scheduler's DRA feature gates.

The allocator differs by version and gates (dra-facts.md 2.11, section 5; dra-facts-136.md).
The minor comes from `--k8s-version`, else the server version, else the newest kubelet, else
it is the newest known (1.37). A minor outside 1.32..1.37 simulates the nearest known one and
says so (`clamped` and `note` in the assumptions; `why` prints the note on stderr).

The gates of a live kube-scheduler cannot be read through the API, so they start at the
minor's defaults (dra/gates.py, with sources) and are inferred from evidence; every
inference is reported in `why`:
- `--feature-gates` wins;
- a `SchedulerError` whose text is `empty constraint (unsupported constraint type?)`
  proves `DRAConsumableCapacity` is off in the scheduler;
- an allocated claim that uses `distinctAttribute` proves it is on;
- a stored field that the API server drops while its gate is off shows the API server's
  gate is on: a RCT's `distinctAttribute` or a device's `allowMultipleAllocations`
  (DRAConsumableCapacity), a device's `taints` or a RCT's `tolerations` (DRADeviceTaints),
  a slice's `sharedCounters` or `perDeviceNodeSelection` (DRAPartitionableDevices), a
  device's `bindingConditions` (DRADeviceBindingConditions), a DeviceClass's
  `extendedResourceName` (DRAExtendedResource). Operators enable a gate on all components
  together (seed 000), so the scheduler is assumed to have it too.
Evidence for a gate the minor does not have yet is reported and ignored.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from kubectl_rbln.dra.allocator import Features
from kubectl_rbln.dra.gates import GATE_DEFAULTS, GATE_FIELDS, GATE_NAMES, GATE_SINCE, MINORS, gate_defaults
from kubectl_rbln.dra.model import Snapshot
from kubectl_rbln.errors import InputError

__all__ = ["GATE_DEFAULTS", "GATE_FIELDS", "FeatureChoice", "allocator_features", "choose_features"]

SUPPORTED_MINORS = MINORS
DEFAULT_MINOR = MINORS.stop - 1  # an unknown version: the newest known
EMPTY_CONSTRAINT = "empty constraint (unsupported constraint type?)"
ASSUMED = "assumed on in the scheduler too (--feature-gates overrides)"


@dataclass(slots=True)
class FeatureChoice:
    minor: int
    gates: dict[str, bool]
    reasons: dict[str, str] = field(default_factory=dict)
    requested_minor: int | None = None  # set when the minor asked for is outside 1.32..1.37

    @property
    def note(self) -> str | None:
        """One sentence when the simulated minor is not the one asked for (never clamp silently)."""
        if self.requested_minor is None:
            return None
        side = "newer than the newest" if self.requested_minor > self.minor else "older than the oldest"
        return (
            f"Kubernetes 1.{self.requested_minor} is {side} allocator known (1.{self.minor}); "
            f"simulated 1.{self.minor}"
        )

    def describe(self) -> dict[str, Any]:
        described: dict[str, Any] = {
            "kubernetesMinor": f"1.{self.minor}",
            "gates": self.gates,
            "why": self.reasons,
        }
        if self.requested_minor is not None:
            described["clamped"] = {"requested": f"1.{self.requested_minor}", "simulated": f"1.{self.minor}"}
            described["note"] = self.note
        return described


def _minor_of(version: str | None) -> int | None:
    """1.34, v1.34, v1.34.2, v1.34.2-eks-113cf36, v1.34.2+k3s1 -> 34; anything else -> None."""
    match = re.fullmatch(r"v?1\.(\d+)(?:\.\d+)?(?:[-+].*)?", (version or "").strip())
    return int(match.group(1)) if match else None


def parse_gates(text: str) -> dict[str, bool]:
    gates = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        name, _, value = part.partition("=")
        name, value = name.strip(), value.strip()
        if name not in GATE_FIELDS or value.lower() not in ("true", "false"):
            known = ", ".join(GATE_FIELDS)
            raise InputError(f"--feature-gates: {part!r} is not GATE=true|false with GATE one of {known}")
        gates[GATE_FIELDS[name]] = value.lower() == "true"
    return gates


def _consumable_evidence(snapshot: Snapshot) -> tuple[bool | None, str]:
    for event in snapshot.events:
        if EMPTY_CONSTRAINT in event.message:
            return False, f"scheduler error on {event.involved_name}: {EMPTY_CONSTRAINT}"
    for pod in snapshot.pods:
        condition = pod.conditions.get("PodScheduled")
        if condition and EMPTY_CONSTRAINT in condition.message:
            return False, f"PodScheduled of {pod.key}: {EMPTY_CONSTRAINT}"
    for claim in snapshot.claims:
        if claim.allocation and any(c.distinct_attribute for c in claim.spec.constraints):
            return True, f"claim {claim.namespace}/{claim.name} with distinctAttribute is allocated"
    for template in snapshot.templates:
        if any(c.distinct_attribute for c in template.spec.constraints):
            return True, (
                f"RCT {template.namespace}/{template.name} kept distinctAttribute, so the API server "
                f"has DRAConsumableCapacity; {ASSUMED}"
            )
    for slice_ in snapshot.slices:
        for device in slice_.devices:
            if device.allow_multiple_allocations:
                return True, (
                    f"ResourceSlice {slice_.name} device {device.name} kept allowMultipleAllocations, so the "
                    f"API server has DRAConsumableCapacity; {ASSUMED}"
                )
    return None, ""


def _kept(what: str, gate: str) -> str:
    return f"{what}, so the API server has {gate}; {ASSUMED}"


def _stored_fields(snapshot: Snapshot) -> Iterator[tuple[str, str]]:
    """(gate field, why) for each gate a stored object proves on in the API server: the API server
    drops a gated field on write while the gate is off (dra-facts.md section 5)."""
    for slice_ in snapshot.slices:
        for device in slice_.devices:
            if device.taints:
                what = f"ResourceSlice {slice_.name} device {device.name} has stored taints"
                yield "device_taints", _kept(what, "DRADeviceTaints")
                break
        if slice_.shared_counters:
            what = f"ResourceSlice {slice_.name} has stored sharedCounters"
            yield "partitionable", _kept(what, "DRAPartitionableDevices")
        if slice_.per_device_node_selection:
            what = f"ResourceSlice {slice_.name} has stored perDeviceNodeSelection"
            yield "partitionable", _kept(what, "DRAPartitionableDevices")
        for device in slice_.devices:
            if device.binding_conditions:
                what = f"ResourceSlice {slice_.name} device {device.name} has stored bindingConditions"
                yield "binding_conditions", _kept(what, "DRADeviceBindingConditions")
                break
    for template in snapshot.templates:
        for request in template.spec.requests:
            if any(alt.tolerations for alt in request.alternatives):
                what = f"RCT {template.namespace}/{template.name} kept tolerations"
                yield "device_taints", _kept(what, "DRADeviceTaints")
                break
    if snapshot.taint_rules:
        what = f"DeviceTaintRule {snapshot.taint_rules[0].name} exists"
        yield "device_taint_rules", _kept(what, "DRADeviceTaintRules")
        yield "device_taints", _kept(what, "DRADeviceTaints")
    for device_class in snapshot.device_classes.values():
        spec = device_class.raw.get("spec") if isinstance(device_class.raw, dict) else None
        kept = device_class.extended_resource_name or (
            spec.get("extendedResourceName") if isinstance(spec, dict) else None
        )
        if kept:
            what = f"DeviceClass {device_class.name} kept extendedResourceName {kept}"
            yield "extended_resource", _kept(what, "DRAExtendedResource")


def _evidence(snapshot: Snapshot) -> dict[str, tuple[bool, str]]:
    """Gate field -> (on, why), the first piece of evidence per gate."""
    found: dict[str, tuple[bool, str]] = {}
    consumable, why = _consumable_evidence(snapshot)
    if consumable is not None:
        found["consumable_capacity"] = (consumable, why)
    for name, why in _stored_fields(snapshot):
        found.setdefault(name, (True, why))
    return found


def _choose_minor(snapshot: Snapshot, k8s_version: str | None) -> tuple[int, str]:
    if k8s_version:
        minor = _minor_of(k8s_version)
        if minor is None:
            raise InputError(f"--k8s-version: {k8s_version!r} is not a version such as 1.34 or v1.34.2")
        return minor, "--k8s-version"
    minor = _minor_of(snapshot.server_version)
    if minor is not None:
        return minor, f"server version {snapshot.server_version}"
    kubelets = [
        (m, n.kubelet_version) for n in snapshot.nodes.values() if (m := _minor_of(n.kubelet_version))
    ]
    if kubelets:
        newest = max(kubelets)
        return newest[0], f"newest kubelet version {newest[1]} (no server version in the input)"
    return (
        DEFAULT_MINOR,
        f"unknown (no server or kubelet version); assumed 1.{DEFAULT_MINOR}, the newest known",
    )


def choose_features(snapshot: Snapshot, k8s_version: str | None, gates_flag: str | None) -> FeatureChoice:
    asked, why_minor = _choose_minor(snapshot, k8s_version)
    minor = min(max(asked, SUPPORTED_MINORS.start), SUPPORTED_MINORS.stop - 1)
    choice = FeatureChoice(
        minor=minor, gates=gate_defaults(minor), requested_minor=None if asked == minor else asked
    )
    choice.reasons["minor"] = why_minor if choice.note is None else f"{why_minor}; {choice.note}"
    explicit = parse_gates(gates_flag or "")
    evidence = _evidence(snapshot)
    for name in choice.gates:
        if name in explicit:
            choice.gates[name] = explicit[name]
            choice.reasons[name] = "--feature-gates"
        elif name in evidence and minor < GATE_SINCE[name]:
            choice.reasons[name] = (
                f"{evidence[name][1]}; but Kubernetes 1.{minor} has no {GATE_NAMES[name]}: ignored, "
                "off (--k8s-version overrides)"
            )
        elif name in evidence:
            choice.gates[name], choice.reasons[name] = evidence[name]
        else:
            state = "on" if choice.gates[name] else "off"
            choice.reasons[name] = f"the default of 1.{minor} ({state})"
    return choice


def allocator_features(choice: FeatureChoice) -> Features:
    """The allocator variant the chosen version and gates select."""
    return Features(version=choice.minor, **choice.gates)
