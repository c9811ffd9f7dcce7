"""Which allocator to simulate: the Kubernetes minor and the scheduler's DRA feature gates.

The allocator differs by version and gates (dra-facts.md 2.11, section 5). The
gates of a live kube-scheduler cannot be read through the API, so they are
inferred from evidence, and every inference is reported as an assumption:
- `--feature-gates` wins;
- a `SchedulerError` whose text is `empty constraint (unsupported constraint type?)`
  proves `DRAConsumableCapacity` is off in the scheduler;
- an allocated claim that uses `distinctAttribute` proves it is on;
- a stored RCT that kept its `distinctAttribute` shows the API server's gate is on
  (it drops the field otherwise), and operators enable the gate on all components
  together (seed 000), so the scheduler is assumed to have it too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from kubectl_rbln.dra.allocator import Features
from kubectl_rbln.dra.model import Snapshot
from kubectl_rbln.errors import InputError

DEFAULT_MINOR = 34
SUPPORTED_MINORS = range(32, 36)
GATE_FIELDS = {
    "DRAPrioritizedList": "prioritized_list",
    "DRAAdminAccess": "admin_access",
    "DRAConsumableCapacity": "consumable_capacity",
    "DRADeviceTaints": "device_taints",
    "DRADeviceTaintRules": "device_taint_rules",
    "DRAPartitionableDevices": "partitionable",
}
# Defaults per minor (dra-facts.md section 5).
GATE_DEFAULTS = {
    32: {"prioritized_list": False, "admin_access": False},
    33: {"prioritized_list": False, "admin_access": False},
    34: {"prioritized_list": True, "admin_access": True},
    35: {"prioritized_list": True, "admin_access": True},
}
EMPTY_CONSTRAINT = "empty constraint (unsupported constraint type?)"


@dataclass(slots=True)
class FeatureChoice:
    minor: int
    gates: dict[str, bool]
    reasons: dict[str, str] = field(default_factory=dict)

    def describe(self) -> dict[str, Any]:
        return {"kubernetesMinor": f"1.{self.minor}", "gates": self.gates, "why": self.reasons}


def _minor_of(version: str | None) -> int | None:
    match = re.match(r"v?1\.(\d+)", version or "")
    return int(match.group(1)) if match else None


def parse_gates(text: str) -> dict[str, bool]:
    gates = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        name, _, value = part.partition("=")
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
                "has DRAConsumableCapacity; assumed on in the scheduler too (--feature-gates overrides)"
            )
    return None, ""


def _taint_evidence(snapshot: Snapshot, minor: int) -> dict[str, tuple[bool, str]]:
    """Stored taints prove the API server's gates (it drops `taints` from slices without
    DRADeviceTaints and serves DeviceTaintRules only with DRADeviceTaintRules); operators enable
    them on every component together, so the scheduler is assumed to have them (--feature-gates
    overrides). Device taints exist from 1.33 (KEP-5055)."""
    if minor < 33:
        return {}
    out: dict[str, tuple[bool, str]] = {}
    tainted = next((s for s in snapshot.slices if any(d.taints for d in s.devices)), None)
    if tainted is not None:
        out["device_taints"] = (
            True,
            f"ResourceSlice {tainted.name} carries device taints, so the API server has DRADeviceTaints; "
            "assumed on in the scheduler too (--feature-gates overrides)",
        )
    if snapshot.taint_rules:
        rule = snapshot.taint_rules[0].name
        why = (
            f"DeviceTaintRule {rule} exists, so the API server has DRADeviceTaintRules; assumed on in "
            "the scheduler too (--feature-gates overrides)"
        )
        out["device_taint_rules"] = (True, why)
        out.setdefault("device_taints", (True, why))
    return out


def choose_features(snapshot: Snapshot, k8s_version: str | None, gates_flag: str | None) -> FeatureChoice:
    reasons: dict[str, str] = {}
    minor = _minor_of(k8s_version) if k8s_version else None
    if k8s_version and minor is None:
        raise InputError(f"--k8s-version: {k8s_version!r} is not a version such as 1.34")
    if minor is not None:
        reasons["minor"] = "--k8s-version"
    else:
        minor = _minor_of(snapshot.server_version)
        if minor is not None:
            reasons["minor"] = f"server version {snapshot.server_version}"
        else:
            kubelets = [m for m in (_minor_of(n.kubelet_version) for n in snapshot.nodes.values()) if m]
            minor = max(kubelets) if kubelets else DEFAULT_MINOR
            reasons["minor"] = "newest kubelet version" if kubelets else f"unknown; assumed 1.{DEFAULT_MINOR}"
    minor = min(max(minor, SUPPORTED_MINORS.start), SUPPORTED_MINORS.stop - 1)
    gates = {
        "consumable_capacity": False,
        "device_taints": False,
        "device_taint_rules": False,
        "partitionable": False,
        **GATE_DEFAULTS[minor],
    }
    explicit = parse_gates(gates_flag or "")
    consumable, why = _consumable_evidence(snapshot)
    if "consumable_capacity" not in explicit and consumable is not None and minor >= 34:
        gates["consumable_capacity"] = consumable
        reasons["consumable_capacity"] = why
    for name, (on, why) in _taint_evidence(snapshot, minor).items():
        if name not in explicit and on and not gates.get(name):
            gates[name] = True
            reasons[name] = why
    gates.update(explicit)
    for name in explicit:
        reasons[name] = "--feature-gates"
    return FeatureChoice(minor=minor, gates=gates, reasons=reasons)


def allocator_features(choice: FeatureChoice) -> Features:
    """The allocator variant the chosen version and gates select."""
    return Features(version=choice.minor, **choice.gates)
