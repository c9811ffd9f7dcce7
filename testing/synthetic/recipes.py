"""The RCT recipes of seed 000 and a feasibility check of a recipe against free devices.

Why: the chart's examples/manifests/rct/*.yaml are not public, so the recipes are built from the
product text: numa-aligned (4 NPUs + 2 RDMA NICs, matchAttribute numaNode, distinctAttribute
pcieRoot over the NICs), numa-unaligned (no constraints), npu-only, and pcie-paired (a user RCT
pairing one NPU with one NIC on the same PCIe root). The feasibility check is exact for these
shapes only (a match constraint over all requests, distinct constraints over single requests);
it is not a general allocator and never replaces the one under test.
"""

from __future__ import annotations

import json
from typing import Any

from kubectl_rbln.domain import (
    DRANET_NUMA_ATTR,
    NIC_CLASS,
    NIC_SELECTOR,
    NPU_CLASS,
    PCI_SUBSYSTEM_ATTR,
    RDMA_ATTR,
    RECIPES,
    REFERENCE_SUBSYSTEM,
    dranet_numa_selector,
)
from testing.synthetic.devices import Device
from testing.synthetic.knobs import Knobs


def recipe_spec(recipe: str, knobs: Knobs | None = None) -> dict[str, Any]:
    """The `spec.devices` of an RCT recipe (v1 shape, API defaults applied), as seed 000 describes it."""
    knobs = knobs or Knobs()
    if recipe not in RECIPES:
        raise ValueError(f"unknown recipe {recipe!r}; expected one of {', '.join(RECIPES)}")
    shape = RECIPES[recipe]
    npu: dict[str, Any] = {
        "deviceClassName": NPU_CLASS,
        "allocationMode": "ExactCount",
        "count": shape.npu_count,
    }
    if knobs.npu_selector_dranet_numa is not None:
        expr = dranet_numa_selector(knobs.npu_selector_dranet_numa)
        npu["selectors"] = [{"cel": {"expression": expr}}]
    requests: list[dict[str, Any]] = [{"name": "npu", "exactly": npu}]
    if shape.nic_count:
        nic = {
            "deviceClassName": NIC_CLASS,
            "allocationMode": "ExactCount",
            "count": shape.nic_count,
            "selectors": [{"cel": {"expression": NIC_SELECTOR}}],
        }
        requests.append({"name": "nic", "exactly": nic})
    constraints: list[dict[str, Any]] = []
    if shape.match_attribute is not None:
        constraints.append({"requests": ["npu", "nic"], "matchAttribute": shape.match_attribute})
    if shape.distinct_nic_attribute is not None:
        constraints.append({"requests": ["nic"], "distinctAttribute": shape.distinct_nic_attribute})
    devices: dict[str, Any] = {"requests": requests}
    if constraints:
        devices["constraints"] = constraints
    return devices


def template_name(recipe: str) -> str:
    """The RCT name the chart gives the recipe."""
    return RECIPES[recipe].template_name


def stored_spec(recipe: str, knobs: Knobs) -> dict[str, Any]:
    """What the API server stores: the distinct constraint is gone when the gate is off."""
    spec = recipe_spec(recipe, knobs)
    if knobs.distinct_dropped and "constraints" in spec:
        kept = [c for c in spec["constraints"] if "distinctAttribute" not in c]
        if kept:
            spec["constraints"] = kept
        else:
            del spec["constraints"]
    return spec


def applied_manifest(recipe: str, knobs: Knobs) -> dict[str, Any]:
    """The manifest as the user applied it (no defaults), for last-applied-configuration."""
    spec = json.loads(json.dumps(recipe_spec(recipe, knobs)))
    for request in spec["requests"]:
        request["exactly"].pop("allocationMode", None)
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaimTemplate",
        "metadata": {"annotations": {}, "name": template_name(recipe), "namespace": knobs.namespace},
        "spec": {"spec": {"devices": spec}},
    }


class CelNoSuchKey(Exception):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _selects_npu(device: Device, knobs: Knobs) -> bool:
    if knobs.npu_selector_dranet_numa is None:
        return True
    value = device.attr(DRANET_NUMA_ATTR)
    if value is None:
        raise CelNoSuchKey("numaNode")
    return value == knobs.npu_selector_dranet_numa


def _selects_nic(device: Device) -> bool:
    return device.attr(RDMA_ATTR) is True and device.attr(PCI_SUBSYSTEM_ATTR) == REFERENCE_SUBSYSTEM


def claim_fits(npus: list[Device], nics: list[Device], spec: dict[str, Any], knobs: Knobs) -> bool:
    """Can the recipe's requests be met from these free devices (first-fit is exact for our recipes)?"""
    candidates: dict[str, list[Device]] = {}
    counts: dict[str, int] = {}
    for request in spec["requests"]:
        exact = request["exactly"]
        counts[request["name"]] = exact["count"]
        if exact["deviceClassName"] == NPU_CLASS:
            candidates[request["name"]] = [d for d in npus if _selects_npu(d, knobs)]
        else:
            candidates[request["name"]] = [d for d in nics if _selects_nic(d)]
    match = None
    distinct: dict[str, str] = {}
    for constraint in spec.get("constraints", []):
        if "matchAttribute" in constraint:
            match = constraint["matchAttribute"]
        elif "distinctAttribute" in constraint:
            for name in constraint.get("requests") or list(counts):
                distinct[name] = constraint["distinctAttribute"]

    def enough(groups: dict[str, list[Device]]) -> bool:
        for name, count in counts.items():
            devices = groups.get(name, [])
            if name in distinct:
                values = {d.attr(distinct[name]) for d in devices} - {None}
                if len(values) < count:
                    return False
            elif len(devices) < count:
                return False
        return True

    if match is None:
        return enough(candidates)
    values = {d.attr(match) for devices in candidates.values() for d in devices} - {None}
    return any(
        enough({name: [d for d in devices if d.attr(match) == value] for name, devices in candidates.items()})
        for value in values
    )
