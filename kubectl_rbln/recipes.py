"""The RCT recipes of seed 000, the one source of their text, and their API-version shapes.

Why: the chart's examples/manifests/rct/*.yaml are not public, so the project writes the recipes
from the product text: `numa-aligned` (4 NPUs + 2 RDMA NICs, matchAttribute numaNode over both
requests, distinctAttribute pcieRoot over the NICs), `numa-unaligned` (same requests and NIC
selector, no constraint) and `npu-only` (NPUs only). `suggest-rct` adapts them (NPU count, NIC
selector, the NUMA attribute). The recipes' shapes and names live in kubectl_rbln.domain, which the
synthetic clusters read too, so both speak of exactly the same objects.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from kubectl_rbln.domain import CHART_RECIPES, NIC_CLASS, NIC_SELECTOR, NPU_CLASS, NUMA_ATTR, RECIPES

API_VERSIONS = ("v1", "v1beta2", "v1beta1")


@dataclass(frozen=True, slots=True)
class RecipeParams:
    """What a suggestion may change in a recipe; the defaults are seed 000's reference configuration."""

    npu_count: int = 4
    nic_count: int = 2
    npu_request: str = "npu"
    nic_request: str = "nic"
    nic_selector: str = NIC_SELECTOR
    numa_attribute: str = NUMA_ATTR


def recipe_devices(recipe: str, params: RecipeParams | None = None) -> dict[str, Any]:
    """The `spec.spec.devices` of a recipe in the v1 shape, as a user would write it."""
    p = params or RecipeParams()
    if recipe not in CHART_RECIPES:
        raise ValueError(f"unknown recipe {recipe!r}; expected one of {', '.join(CHART_RECIPES)}")
    shape = RECIPES[recipe]
    requests: list[dict[str, Any]] = [
        {"name": p.npu_request, "exactly": {"deviceClassName": NPU_CLASS, "count": p.npu_count}}
    ]
    if shape.nic_count:
        nic = {
            "deviceClassName": NIC_CLASS,
            "count": p.nic_count,
            "selectors": [{"cel": {"expression": p.nic_selector}}],
        }
        requests.append({"name": p.nic_request, "exactly": nic})
    devices: dict[str, Any] = {"requests": requests}
    constraints: list[dict[str, Any]] = []
    if shape.match_attribute is not None:
        # a suggestion may swap the NUMA attribute (dra.net/numaNode when both drivers publish it)
        match = p.numa_attribute if shape.match_attribute == NUMA_ATTR else shape.match_attribute
        constraints.append({"requests": [p.npu_request, p.nic_request], "matchAttribute": match})
    if shape.distinct_nic_attribute is not None:
        constraints.append({"requests": [p.nic_request], "distinctAttribute": shape.distinct_nic_attribute})
    if constraints:
        devices["constraints"] = constraints
    return devices


def template_object(
    name: str, namespace: str, devices: dict[str, Any], api_version: str = "v1"
) -> dict[str, Any]:
    """A complete ResourceClaimTemplate in the shape of `api_version` (dra-facts.md 4.2)."""
    if api_version not in API_VERSIONS:
        raise ValueError(f"unknown API version {api_version!r}; expected one of {', '.join(API_VERSIONS)}")
    shaped = flatten_requests(devices) if api_version == "v1beta1" else copy.deepcopy(devices)
    return {
        "apiVersion": f"resource.k8s.io/{api_version}",
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"spec": {"devices": shaped}},
    }


def flatten_requests(devices: dict[str, Any]) -> dict[str, Any]:
    """v1beta1 has no `exactly`: its fields sit on the request itself."""
    out = copy.deepcopy(devices)
    flat = []
    for request in out.get("requests", []):
        entry = {k: v for k, v in request.items() if k != "exactly"}
        entry.update(request.get("exactly") or {})
        flat.append(entry)
    out["requests"] = flat
    return out


def chart_values(recipe: str, name: str, npu_count: int) -> dict[str, Any]:
    """The chart values that go with a recipe (seed 000 "Key device settings", seed 001)."""
    values: dict[str, Any] = {"devices": {"npu": {"count": npu_count}, "claimTemplateName": name}}
    if not RECIPES[recipe].nic_count:
        values["devices"]["rdma"] = {"enabled": False}
    return values
