"""Every `why` rule, in the order the engine runs them: the layers first, root causes before symptoms.

To add a finding: a catalog entry, a rule in one of these files (or a new one) listed here, a
scenario, a docs page (docs/add-a-finding.md).
"""

from __future__ import annotations

from kubectl_rbln.diagnose.registry import Rule
from kubectl_rbln.diagnose.rules import (
    allocation,
    attributes,
    crash,
    extended,
    layers,
    node_prep,
    scheduler,
    unallocated,
)

WHY_RULES: tuple[Rule, ...] = (
    layers.dra_api_unavailable,
    layers.device_class_missing,
    layers.claim_template_missing,
    layers.claim_not_created,
    layers.driver_slices_missing,
    attributes.attribute_not_advertised,
    scheduler.feature_gate_disabled,
    scheduler.selector_error,
    scheduler.scheduler_error,
    extended.extended_resource_request,
    allocation.not_device_related,
    allocation.selector_matches_nothing,
    allocation.insufficient_devices,
    allocation.devices_exhausted,
    allocation.constraint_unsatisfiable,
    scheduler.kubelet_prepare_failed,
    node_prep.rds_label_missing,
    node_prep.device_plugin_mode,
    crash.crashes,
    layers.source_degraded,
    unallocated.claim_not_allocated,
)
