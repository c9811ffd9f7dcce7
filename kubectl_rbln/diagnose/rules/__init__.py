"""Every `why` rule, in the order the engine runs them: the layers first, root causes before symptoms.

To add a finding: a catalog entry, a rule in one of these files (or a new one) listed here, a
scenario, a docs page (docs/add-a-finding.md).
"""

from __future__ import annotations

from functools import lru_cache

from kubectl_rbln.diagnose.registry import Rule
from kubectl_rbln.diagnose.rules import (
    after_scheduling,
    allocation,
    attributes,
    binding,
    claim_state,
    crash,
    disagreement,
    extended,
    layers,
    node_prep,
    scheduler,
    taints,
    unallocated,
)

# The known causes of each stage of a Pod's life (diagnose/lifecycle.py STAGES), in the order the
# engine runs them: root causes before symptoms. `why` runs the rules of the stage the Pod is stuck at
# (and ANY_STAGE); a rule may know causes of two stages (the DRA API missing stops claims and
# allocation alike), so it is listed under both.
RULES_BY_STAGE: dict[str, tuple[Rule, ...]] = {
    "created": (),
    "claims-created": (
        layers.dra_api_unavailable,
        layers.claim_template_missing,
        # the namespace label is the root cause of a claim the controller could not create, so it
        # runs first and hides claim-not-created (issue 12, 4)
        claim_state.admin_access_label_missing,
        layers.claim_not_created,
        claim_state.claim_being_deleted,
    ),
    "queued": (),
    "scheduler": (),
    "allocated": (
        layers.dra_api_unavailable,
        layers.device_class_missing,
        claim_state.shared_claim_node_unusable,
        claim_state.claim_reserved_for_full,
        claim_state.claim_stale,  # the Pod's claim is of an older RCT: re-create the Pod (issue 13, 1)
        layers.driver_slices_missing,
        attributes.attribute_not_advertised,
        scheduler.feature_gate_disabled,
        scheduler.selector_error,
        scheduler.scheduler_error,
        extended.extended_resource_request,
        binding.binding_gate_disabled,  # with the gate off, devices with binding conditions are not allocated
        allocation.not_device_related,
        allocation.selector_matches_nothing,
        taints.device_tainted,
        allocation.insufficient_devices,
        allocation.devices_exhausted,
        allocation.constraint_unsatisfiable,
        node_prep.rds_label_missing,
        node_prep.device_plugin_mode,
        taints.device_taint_eviction,
        disagreement.simulation_disagrees,
        unallocated.claim_not_allocated,
    ),
    "bound": (
        claim_state.claim_reserved_for_full,  # a full reservedFor fails in PreBind (dra-facts-136.md)
        binding.binding_failed,
        binding.binding_conditions_pending,
        binding.binding_gate_disabled,
    ),
    "admitted": (),
    "prepared": (scheduler.kubelet_prepare_failed,),
    "sandbox": (after_scheduling.nri_sandbox_failed,),
    "running": (taints.device_taint_eviction, crash.crashes),
    "devices": (scheduler.feature_gate_disabled, node_prep.device_plugin_mode),
}
# rules of every stage: what the source could not read
ANY_STAGE: tuple[Rule, ...] = (layers.source_degraded,)


@lru_cache(maxsize=256)
def rules_for(stage: str | None, also: tuple[str, ...] = ()) -> tuple[Rule, ...]:
    """The rules `why` runs for a Pod stuck at `stage`, and at the stages it may be at `also` (None:
    it passed every stage it could be shown to pass; the rules of its last stages still say what they
    see)."""
    last = RULES_BY_STAGE["running"] + RULES_BY_STAGE["devices"]
    chosen = RULES_BY_STAGE[stage] if stage is not None else last
    for other in also:
        chosen += RULES_BY_STAGE[other]
    return _once(chosen + ANY_STAGE)


def _once(rules: tuple[Rule, ...]) -> tuple[Rule, ...]:
    """Each rule at its first place (a Rule holds a dict, so it is told apart by its name)."""
    return tuple({r.name: r for r in reversed(rules)}[name] for name in dict.fromkeys(r.name for r in rules))


# Every rule once, in stage order (the registry tests read it: each slug has exactly one rule).
WHY_RULES: tuple[Rule, ...] = _once(tuple(r for rules in RULES_BY_STAGE.values() for r in rules) + ANY_STAGE)
