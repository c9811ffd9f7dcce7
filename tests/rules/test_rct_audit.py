"""diagnose/rct_audit.py: what the API server dropped from a stored RCT, per feature gate."""

from __future__ import annotations

import copy
import json

import pytest

from kubectl_rbln.diagnose.rct_audit import LAST_APPLIED, applied_document, applied_spec, dropped_fields
from kubectl_rbln.dra.normalize_claims import normalize_claim_spec, normalize_template
from kubectl_rbln.recipes import recipe_devices, template_object


def _applied_and_stored(devices_applied, devices_stored):
    obj = template_object("npu-rdma", "serving", devices_stored)
    applied = template_object("npu-rdma", "serving", devices_applied)
    obj["metadata"]["annotations"] = {LAST_APPLIED: json.dumps(applied)}
    return normalize_template(obj)


def test_applied_spec_reads_the_last_applied_configuration():
    devices = recipe_devices("numa-aligned")
    template = _applied_and_stored(devices, recipe_devices("numa-unaligned"))
    applied = applied_spec(template)
    assert applied is not None
    assert [c.distinct_attribute for c in applied.constraints if c.distinct_attribute] == [
        "resource.kubernetes.io/pcieRoot"
    ]
    assert template.spec.constraints == []  # the stored object is the unaligned one


@pytest.mark.parametrize("annotation", [None, "not json", "[1, 2]"])
def test_applied_spec_is_none_without_a_usable_annotation(annotation):
    obj = template_object("npu-rdma", "serving", recipe_devices("numa-aligned"))
    if annotation is not None:
        obj["metadata"]["annotations"] = {LAST_APPLIED: annotation}
    assert applied_spec(normalize_template(obj)) is None
    assert applied_document(obj) == {}


def test_no_field_dropped_when_stored_equals_applied():
    devices = recipe_devices("numa-aligned")
    spec = normalize_claim_spec({"devices": devices})
    assert dropped_fields(spec, normalize_claim_spec({"devices": copy.deepcopy(devices)})) == {}


def _pair(mutate):
    """(applied, stored): `mutate` adds a gated field to the applied copy only."""
    applied = recipe_devices("numa-unaligned")
    mutate(applied)
    return normalize_claim_spec({"devices": applied}), normalize_claim_spec(
        {"devices": recipe_devices("numa-unaligned")}
    )


def test_distinct_attribute_needs_dra_consumable_capacity():
    applied, stored = _pair(
        lambda d: d.setdefault("constraints", []).append(
            {"requests": ["nic"], "distinctAttribute": "resource.kubernetes.io/pcieRoot"}
        )
    )
    assert dropped_fields(applied, stored) == {
        "DRAConsumableCapacity": "distinctAttribute: resource.kubernetes.io/pcieRoot"
    }


def test_first_available_needs_dra_prioritized_list():
    def mutate(d):
        npu = d["requests"][0]
        npu["firstAvailable"] = [
            {"name": "four", **npu.pop("exactly")},
            {"name": "two", "deviceClassName": "npu.rebellions.ai", "count": 2},
        ]

    applied, stored = _pair(mutate)
    assert dropped_fields(applied, stored) == {"DRAPrioritizedList": "firstAvailable of request npu"}


def test_admin_access_needs_dra_admin_access():
    applied, stored = _pair(lambda d: d["requests"][1]["exactly"].update(adminAccess=True))
    assert dropped_fields(applied, stored) == {"DRAAdminAccess": "adminAccess of request nic"}


def test_tolerations_need_dra_device_taints():
    toleration = {"key": "maintenance", "operator": "Exists", "effect": "NoSchedule"}
    applied, stored = _pair(lambda d: d["requests"][0]["exactly"].update(tolerations=[toleration]))
    assert dropped_fields(applied, stored) == {"DRADeviceTaints": "tolerations of request npu"}


def test_applied_document_returns_the_whole_applied_object():
    raw = {"metadata": {"annotations": {LAST_APPLIED: json.dumps({"spec": {"extendedResourceName": "x/y"}})}}}
    assert applied_document(raw) == {"spec": {"extendedResourceName": "x/y"}}
    assert applied_document({"metadata": {}}) == {}
