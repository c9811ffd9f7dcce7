"""Every `why` rule, in the order the engine runs them: the layers first, root causes before symptoms.

To add a finding: a catalog entry, a rule in one of these files (or a new one) listed here, a
scenario, a docs page (docs/add-a-finding.md).
"""

from __future__ import annotations

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

WHY_RULES: tuple[Rule, ...] = (
    layers.dra_api_unavailable,
    layers.device_class_missing,
    layers.claim_template_missing,
    # the claim's own state before any node (issue 12, 4); the namespace label is the root cause of a
    # claim the controller could not create, so it runs first and hides claim-not-created
    claim_state.admin_access_label_missing,
    layers.claim_not_created,
    claim_state.claim_being_deleted,
    claim_state.shared_claim_node_unusable,
    claim_state.claim_reserved_for_full,
    claim_state.claim_stale,  # the Pod's claim is of an older RCT: re-create the Pod (issue 13, 1)
    layers.driver_slices_missing,
    attributes.attribute_not_advertised,
    scheduler.feature_gate_disabled,
    scheduler.selector_error,
    scheduler.scheduler_error,
    extended.extended_resource_request,
    binding.binding_failed,
    binding.binding_conditions_pending,
    binding.binding_gate_disabled,
    allocation.not_device_related,
    allocation.selector_matches_nothing,
    taints.device_tainted,
    allocation.insufficient_devices,
    allocation.devices_exhausted,
    allocation.constraint_unsatisfiable,
    scheduler.kubelet_prepare_failed,
    after_scheduling.nri_sandbox_failed,
    node_prep.rds_label_missing,
    node_prep.device_plugin_mode,
    taints.device_taint_eviction,
    crash.crashes,
    layers.source_degraded,
    disagreement.simulation_disagrees,
    unallocated.claim_not_allocated,
)
