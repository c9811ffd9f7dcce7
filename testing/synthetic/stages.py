"""The stage of its life each scenario's Pod is stuck at (diagnose/lifecycle.py STAGES), for the tests
that check `why` names it: in-process (tests/why/test_lifecycle.py) and through `kubectl rbln serve`
with the real kubectl (tests/e2e/test_upstream_scenarios_kubectl.py)."""

from __future__ import annotations

from testing.synthetic.scenarios import SCENARIOS

# The stage each older scenario is stuck at, read from its upstream report and its objects (the
# scenarios of issue 21 state theirs as `Scenario.stage`); "" for a Pod that runs as it should.
OLDER_STAGES = {
    "healthy": "",
    "distinct-dropped-gate-off": "",  # it runs; its allocation broke the RCT (an error, not a stage)
    "rct-missing": "claims-created",
    "claim-not-created": "claims-created",
    "rct-missing-no-reference-classes": "claims-created",
    "rct-in-other-namespace": "claims-created",
    "claim-being-deleted": "claims-created",
    "admin-access-old-label": "claims-created",
    "fabric-npu-binding-pending": "bound",
    "fabric-npu-attach-failed": "bound",
    "fabric-npu-binding-timeout": "bound",
    "kubelet-plugin-oomkilled": "prepared",
    "cdi-missing-after-reboot": "prepared",
    "nri-host-network": "sandbox",
    "memlock-crash": "running",
}


def expected_stage(name: str) -> str:
    """The scenario's own `stage`, else the older scenarios' (allocated for the rest)."""
    scenario = SCENARIOS[name]
    if scenario.stage is not None:
        return scenario.stage
    return OLDER_STAGES.get(name, "allocated")  # the rest: the allocator's and the scheduler's causes
