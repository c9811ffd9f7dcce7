"""Default DRA feature gates of the kube-scheduler, Kubernetes 1.32 to 1.37.

One table for the allocator (`Features.defaults`) and for the choice of what to simulate
(diagnose/features.py). Each row is a gate field of `Features`; each value is the gate's
default in that minor. A gate that does not exist yet in a minor is off.

Sources:
- 1.32 to 1.35: `pkg/features/kube_features.go` of kubernetes/kubernetes (its versioned specs,
  1.35-era copy), as summed up in dra-facts.md section 5.
- 1.36 and 1.37: the scheduler's versioned feature list (`defaultVersionedKubernetesFeatureGates`)
  of a 1.37-development copy of kubernetes/kubernetes, which lists every stage a gate went
  through, e.g. `DRADeviceTaints: {1.33 Alpha false}, {1.36 Beta true}, {1.37 GA true}`;
  corroborated by dra-facts-136.md ("Gate defaults in 1.36").

| field (gate)                                      | 32 | 33 | 34 | 35 | 36 | 37 |
| prioritized_list (DRAPrioritizedList)             | -  | a  | B  | B  | GA | GA |
| admin_access (DRAAdminAccess)                     | a  | a  | B  | B  | GA | GA |
| consumable_capacity (DRAConsumableCapacity)       | -  | -  | a  | a  | B  | B  |
| device_taints (DRADeviceTaints)                   | -  | a  | a  | a  | B  | GA |
| partitionable (DRAPartitionableDevices)           | -  | a  | a  | a  | B  | B  |
| binding_conditions (DRADeviceBindingConditions)   | -  | -  | a  | a  | B  | B  |
| extended_resource (DRAExtendedResource)           | -  | -  | a  | a  | B  | GA |
| device_taint_rules (DRADeviceTaintRules)          | -  | a  | a  | a  | b  | GA |

(`-`: no such gate, off; `a`: alpha, off; `b`: beta, off; `B`: beta, on; `GA`: on.) Gates that do not change
what the allocator picks are left out: DRAResourceClaimDeviceStatus (beta on from 1.33),
DRASchedulerFilterTimeout (beta on from 1.34), DRAListTypeAttributes (alpha, off).
"""

from __future__ import annotations

OLDEST_MINOR = 32
NEWEST_MINOR = 37
MINORS = range(OLDEST_MINOR, NEWEST_MINOR + 1)

# The gate's name, its `Features` field, and the first minor whose default is on.
# None: off by default in every known minor. The stage of each gate is in the table above.
_ON_FROM: dict[str, tuple[str, int | None]] = {
    "DRAPrioritizedList": ("prioritized_list", 34),
    "DRAAdminAccess": ("admin_access", 34),
    "DRAConsumableCapacity": ("consumable_capacity", 36),
    "DRADeviceTaints": ("device_taints", 36),
    "DRAPartitionableDevices": ("partitionable", 36),
    "DRADeviceBindingConditions": ("binding_conditions", 36),
    "DRAExtendedResource": ("extended_resource", 36),
    "DRADeviceTaintRules": ("device_taint_rules", 37),
}
# The first minor in which each gate exists (before it, the field is not in the API at all).
GATE_SINCE: dict[str, int] = {
    "prioritized_list": 33,
    "admin_access": 32,
    "consumable_capacity": 34,
    "device_taints": 33,
    "partitionable": 33,
    "binding_conditions": 34,
    "extended_resource": 34,
    "device_taint_rules": 33,
}
GATE_FIELDS: dict[str, str] = {gate: name for gate, (name, _) in _ON_FROM.items()}
GATE_NAMES: dict[str, str] = {name: gate for gate, name in GATE_FIELDS.items()}


def _defaults(minor: int) -> dict[str, bool]:
    return {name: on is not None and minor >= on for name, on in _ON_FROM.values()}


GATE_DEFAULTS: dict[int, dict[str, bool]] = {minor: _defaults(minor) for minor in MINORS}


def gate_defaults(minor: int) -> dict[str, bool]:
    """The default gates of a Kubernetes 1.<minor> scheduler (a copy; outside 32..37: the nearest)."""
    return dict(GATE_DEFAULTS[min(max(minor, OLDEST_MINOR), NEWEST_MINOR)])
