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

from kubectl_rbln.catalog import Phrase, say
from kubectl_rbln.dra.allocator import Features
from kubectl_rbln.dra.gates import GATE_DEFAULTS, GATE_FIELDS, GATE_NAMES, GATE_SINCE, MINORS, gate_defaults
from kubectl_rbln.dra.model import Snapshot
from kubectl_rbln.errors import InputError

__all__ = ["GATE_DEFAULTS", "GATE_FIELDS", "FeatureChoice", "allocator_features", "choose_features"]

SUPPORTED_MINORS = MINORS
DEFAULT_MINOR = MINORS.stop - 1  # an unknown version: the newest known
EMPTY_CONSTRAINT = "empty constraint (unsupported constraint type?)"


@dataclass(slots=True)
class FeatureChoice:
    minor: int
    gates: dict[str, bool]
    reasons: dict[str, str] = field(default_factory=dict)
    requested_minor: int | None = None  # set when the minor asked for is outside 1.32..1.37
    phrases: dict[str, Phrase] = field(default_factory=dict)  # `reasons` in any language (the table's)

    def because(self, name: str, reason: Phrase) -> None:
        """Record why `name` (a gate field or "minor") is what it is: English for the document."""
        self.phrases[name] = reason
        self.reasons[name] = say(reason, "en")

    @property
    def note_phrase(self) -> Phrase | None:
        return None if self.requested_minor is None else _clamped_phrase(self.requested_minor, self.minor)

    @property
    def note(self) -> str | None:
        """One sentence when the simulated minor is not the one asked for (never clamp silently)."""
        phrase = self.note_phrase
        return None if phrase is None else say(phrase, "en")

    def describe(self) -> dict[str, Any]:
        """The `assumptions` of a document: gates named as Kubernetes names them (`DRADeviceTaints`,
        the keys of a `featureGates` map), never by our field names; `why` by gate too, and `minor`."""
        described: dict[str, Any] = {
            "kubernetesMinor": f"1.{self.minor}",
            "gates": {GATE_NAMES[name]: on for name, on in self.gates.items()},
            "why": {GATE_NAMES.get(name, name): reason for name, reason in self.reasons.items()},
        }
        if self.requested_minor is not None:
            described["clamped"] = {"requested": f"1.{self.requested_minor}", "simulated": f"1.{self.minor}"}
            described["note"] = self.note
        return described


def _clamped_phrase(requested: int, minor: int) -> Phrase:
    key = "k8s-newer-than-known" if requested > minor else "k8s-older-than-known"
    return Phrase(key, {"requested": requested, "minor": minor})


def clamped_note(assumptions: dict[str, Any], lang: str) -> str | None:
    """The `note` of a document's assumptions in `lang` (the document keeps it in English): what
    `why` says on stderr when the minor simulated is not the one asked for."""
    clamped = assumptions.get("clamped")
    if not clamped:
        return None
    requested, minor = (_minor_of(str(clamped[k])) for k in ("requested", "simulated"))
    return None if requested is None or minor is None else say(_clamped_phrase(requested, minor), lang)


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


def _consumable_evidence(snapshot: Snapshot) -> tuple[bool | None, Phrase]:
    for event in snapshot.events:
        if EMPTY_CONSTRAINT in event.message:
            return False, Phrase(
                "gate-why-scheduler-error", {"name": event.involved_name, "error": EMPTY_CONSTRAINT}
            )
    for pod in snapshot.pods:
        condition = pod.conditions.get("PodScheduled")
        if condition and EMPTY_CONSTRAINT in condition.message:
            return False, Phrase("gate-why-pod-scheduled", {"pod": pod.key, "error": EMPTY_CONSTRAINT})
    for claim in snapshot.claims:
        if claim.allocation and any(c.distinct_attribute for c in claim.spec.constraints):
            return True, Phrase("gate-why-claim-distinct", {"claim": f"{claim.namespace}/{claim.name}"})
    for template in snapshot.templates:
        if any(c.distinct_attribute for c in template.spec.constraints):
            what = Phrase("gate-what-rct-distinct", {"rct": f"{template.namespace}/{template.name}"})
            return True, _kept(what, "DRAConsumableCapacity")
    for slice_ in snapshot.slices:
        for device in () if slice_.devices_plain else slice_.devices:
            if device.allow_multiple_allocations:
                what = Phrase("gate-what-slice-multiple", {"slice": slice_.name, "device": device.name})
                return True, _kept(what, "DRAConsumableCapacity")
    return None, Phrase("")


def _kept(what: Phrase, gate: str) -> Phrase:
    return Phrase("gate-why-kept", {"what": what, "gate": gate})


def _stored_fields(snapshot: Snapshot) -> Iterator[tuple[str, Phrase]]:
    """(gate field, why) for each gate a stored object proves on in the API server: the API server
    drops a gated field on write while the gate is off (dra-facts.md section 5)."""
    for slice_ in snapshot.slices:
        for device in () if slice_.devices_plain else slice_.devices:
            if device.taints:
                what = Phrase("gate-what-slice-taints", {"slice": slice_.name, "device": device.name})
                yield "device_taints", _kept(what, "DRADeviceTaints")
                break
        if slice_.shared_counters:
            what = Phrase("gate-what-slice-counters", {"slice": slice_.name})
            yield "partitionable", _kept(what, "DRAPartitionableDevices")
        if slice_.per_device_node_selection:
            what = Phrase("gate-what-slice-node-selection", {"slice": slice_.name})
            yield "partitionable", _kept(what, "DRAPartitionableDevices")
        for device in () if slice_.devices_plain else slice_.devices:
            if device.binding_conditions:
                what = Phrase("gate-what-slice-binding", {"slice": slice_.name, "device": device.name})
                yield "binding_conditions", _kept(what, "DRADeviceBindingConditions")
                break
    for template in snapshot.templates:
        for request in template.spec.requests:
            if any(alt.tolerations for alt in request.alternatives):
                what = Phrase("gate-what-rct-tolerations", {"rct": f"{template.namespace}/{template.name}"})
                yield "device_taints", _kept(what, "DRADeviceTaints")
                break
    if snapshot.taint_rules:
        what = Phrase("gate-what-taint-rule", {"name": snapshot.taint_rules[0].name})
        yield "device_taint_rules", _kept(what, "DRADeviceTaintRules")
        yield "device_taints", _kept(what, "DRADeviceTaints")
    for device_class in snapshot.device_classes.values():
        spec = device_class.raw.get("spec") if isinstance(device_class.raw, dict) else None
        kept = device_class.extended_resource_name or (
            spec.get("extendedResourceName") if isinstance(spec, dict) else None
        )
        if kept:
            what = Phrase("gate-what-class-extended", {"name": device_class.name, "kept": kept})
            yield "extended_resource", _kept(what, "DRAExtendedResource")


def _evidence(snapshot: Snapshot) -> dict[str, tuple[bool, Phrase]]:
    """Gate field -> (on, why), the first piece of evidence per gate."""
    found: dict[str, tuple[bool, Phrase]] = {}
    consumable, why = _consumable_evidence(snapshot)
    if consumable is not None:
        found["consumable_capacity"] = (consumable, why)
    for name, why in _stored_fields(snapshot):
        found.setdefault(name, (True, why))
    return found


def _choose_minor(snapshot: Snapshot, k8s_version: str | None) -> tuple[int, Phrase]:
    if k8s_version:
        minor = _minor_of(k8s_version)
        if minor is None:
            raise InputError(f"--k8s-version: {k8s_version!r} is not a version such as 1.34 or v1.34.2")
        return minor, Phrase("gate-why-k8s-flag")
    minor = _minor_of(snapshot.server_version)
    if minor is not None:
        return minor, Phrase("minor-why-server", {"version": snapshot.server_version})
    minors = {v: _minor_of(v) for v in {n.kubelet_version for n in snapshot.nodes.values()}}  # a few texts
    kubelets = [(m, v) for v, m in minors.items() if m]
    if kubelets:
        newest = max(kubelets)
        return newest[0], Phrase("minor-why-kubelet", {"version": newest[1]})
    return DEFAULT_MINOR, Phrase("minor-why-unknown", {"minor": DEFAULT_MINOR})


def choose_features(snapshot: Snapshot, k8s_version: str | None, gates_flag: str | None) -> FeatureChoice:
    asked, why_minor = _choose_minor(snapshot, k8s_version)
    minor = min(max(asked, SUPPORTED_MINORS.start), SUPPORTED_MINORS.stop - 1)
    choice = FeatureChoice(
        minor=minor, gates=gate_defaults(minor), requested_minor=None if asked == minor else asked
    )
    note = choice.note_phrase
    choice.because("minor", why_minor if note is None else Phrase("", parts=(why_minor, note), sep="; "))
    explicit = parse_gates(gates_flag or "")
    evidence = _evidence(snapshot)
    for name in choice.gates:
        if name in explicit:
            choice.gates[name] = explicit[name]
            choice.because(name, Phrase("gate-why-flag"))
        elif name in evidence and minor < GATE_SINCE[name]:
            values = {"evidence": evidence[name][1], "minor": minor, "gate": GATE_NAMES[name]}
            choice.because(name, Phrase("gate-why-too-old", values))
        elif name in evidence:
            choice.gates[name] = evidence[name][0]
            choice.because(name, evidence[name][1])
        else:
            state = Phrase("word-on" if choice.gates[name] else "word-off")
            choice.because(name, Phrase("gate-why-default", {"minor": minor, "state": state}))
    return choice


def allocator_features(choice: FeatureChoice) -> Features:
    """The allocator variant the chosen version and gates select."""
    return Features(version=choice.minor, **choice.gates)
