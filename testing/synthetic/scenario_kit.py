"""What a scenario is, and the slugs a scenario may name: shared by every scenario module.

scenarios.py lists the seeds' failure modes; the upstream_*.py modules add the ones users reported
upstream. They all build `Scenario` objects from here, so scenarios.py can import them plainly.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from testing.synthetic.builder import ClusterBuilder, Knobs
from testing.synthetic.shapes import to_api_shape

SLUGS = frozenset(
    {
        "dra-api-unavailable",
        "device-class-missing",
        "claim-template-missing",
        "claim-not-created",
        "claim-being-deleted",
        "shared-claim-node-unusable",
        "claim-reserved-for-full",
        "admin-access-label-missing",
        "claim-not-allocated",
        "claim-stale",
        "driver-slices-missing",
        "attribute-not-advertised",
        "selector-matches-nothing",
        "selector-error",
        "constraint-unsatisfiable",
        "insufficient-devices",
        "devices-exhausted",
        "feature-gate-disabled",
        "rds-label-missing",
        "memlock-limit",
        "device-plugin-mode",
        "not-device-related",
        "simulation-disagrees",
        "extended-resource-request",
        "device-tainted",
        "device-taint-eviction",
        "kubelet-prepare-failed",
        "nri-sandbox-failed",
        "binding-conditions-pending",
        "binding-failed",
        "binding-gate-disabled",
        "scheduler-error",
        "cause-not-recognised",
    }
)

# Slugs that blame devices or DRA objects: a cause that is not about devices must not report them.
DEVICE_BLAME = frozenset(
    {
        "device-class-missing",
        "driver-slices-missing",
        "attribute-not-advertised",
        "selector-matches-nothing",
        "selector-error",
        "constraint-unsatisfiable",
        "insufficient-devices",
        "devices-exhausted",
    }
)
SEED = 7


@dataclass(frozen=True)
class Scenario:
    name: str
    description: str
    build: Callable[[str], list[dict[str, Any]]]  # api version -> objects
    pending_pod: tuple[str, str]  # (namespace, name) of the Pod to ask `why` about
    must: frozenset[str]
    must_not: frozenset[str] = field(default_factory=frozenset)
    shape_matters: bool = False  # the diagnosis may differ between v1beta1 / v1beta2 / v1
    knobs: Knobs = field(default_factory=Knobs)
    # the stage of the Pod's life it is stuck at (diagnose/lifecycle.py STAGES), "" for a healthy Pod;
    # None: not stated (decided by the test from `must`, for the older scenarios)
    stage: str | None = None
    recognised: bool = True  # False: no rule knows the cause; the finding is cause-not-recognised

    @property
    def expected_slugs(self) -> set[str]:
        """The slugs a correct diagnosis must report (an exact set for the primary cause)."""
        return set(self.must)


def seeded_scenario(
    name: str,
    description: str,
    *,
    must: set[str],
    must_not: set[str] | frozenset[str] = frozenset(),
    shape_matters: bool = False,
    stage: str | None = None,
    recognised: bool = True,
    **knobs: Any,
) -> Scenario:
    resolved = Knobs(**knobs)
    builder = ClusterBuilder(SEED, "v1", resolved)

    def build(api_version: str) -> list[dict[str, Any]]:
        return ClusterBuilder(SEED, api_version, resolved).build()

    unknown = (set(must) | set(must_not)) - SLUGS
    if unknown:
        raise ValueError(f"scenario {name}: unknown slugs {sorted(unknown)}")
    return Scenario(
        name=name,
        description=description,
        build=build,
        pending_pod=builder.target_pod(),
        must=frozenset(must),
        must_not=frozenset(must_not) - frozenset(must),
        shape_matters=shape_matters,
        knobs=resolved,
        stage=stage,
        recognised=recognised,
    )


Objects = list[dict[str, Any]]
Edit = Callable[[Objects, ClusterBuilder], Objects]


def edited_scenario(
    name: str,
    description: str,
    edit: Edit,
    *,
    must: set[str],
    must_not: set[str] | frozenset[str] = frozenset(),
    pending_pod: tuple[str, str] | None = None,
    knobs: Knobs | None = None,
    stage: str | None = None,
    recognised: bool = True,
) -> Scenario:
    """An upstream report's cluster: the builder's objects edited in v1, then put in the asked shape."""
    resolved = knobs or Knobs()

    def build(api_version: str) -> Objects:
        builder = ClusterBuilder(SEED, "v1", resolved)
        return [to_api_shape(o, api_version) for o in edit(builder.build(), builder)]

    unknown = (set(must) | set(must_not)) - SLUGS
    if unknown:
        raise ValueError(f"scenario {name}: unknown slugs {sorted(unknown)}")
    return Scenario(
        name=name,
        description=description,
        build=build,
        pending_pod=pending_pod or ClusterBuilder(SEED, "v1", resolved).target_pod(),
        must=frozenset(must),
        must_not=frozenset(must_not) - frozenset(must),
        knobs=resolved,
        stage=stage,
        recognised=recognised,
    )


def held_devices(objects: list[dict[str, Any]]) -> set[tuple[str, str, str]]:
    """(driver, pool, device) of every device some ResourceClaim of `objects` has allocated."""
    held = set()
    for obj in objects:
        if obj["kind"] != "ResourceClaim":
            continue
        for r in (((obj.get("status") or {}).get("allocation") or {}).get("devices") or {}).get(
            "results"
        ) or []:
            held.add((r["driver"], r["pool"], r["device"]))
    return held


def holder_claim(
    api_version: str,
    *,
    name: str,
    namespace: str,
    uid: str,
    request: str,
    device_class: str,
    holder: str,
    holder_uid: str,
    results: list[dict[str, Any]],
) -> dict[str, Any]:
    """An allocated ResourceClaim of another workload, reserved by its Pod `holder`: what holds the
    devices (or their capacity, or their counters) a scenario's Pending Pod cannot have."""
    return {
        "apiVersion": f"resource.k8s.io/{api_version}",
        "kind": "ResourceClaim",
        "metadata": {
            "name": name,
            "namespace": namespace,
            "uid": uid,
            "creationTimestamp": "2026-09-01T08:00:00Z",
        },
        "spec": {"devices": {"requests": [{"name": request, "exactly": {"deviceClassName": device_class}}]}},
        "status": {
            "allocation": {"devices": {"results": results}},
            "reservedFor": [{"resource": "pods", "name": holder, "uid": holder_uid}],
        },
    }


def pod_condition(kind: str, status: str, at: str, reason: str = "", message: str = "") -> dict[str, Any]:
    """A Pod condition as the kubelet or the scheduler writes it (lastProbeTime null)."""
    condition: dict[str, Any] = {
        "lastProbeTime": None,
        "lastTransitionTime": at,
        "status": status,
        "type": kind,
    }
    if reason:
        condition["reason"] = reason
    if message:
        condition["message"] = message
    return condition
