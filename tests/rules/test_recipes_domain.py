"""kubectl_rbln/recipes.py and domain.py: the RECIPES table builds valid RCT objects whose requests
use the domain's DeviceClass names, in every API shape."""

from __future__ import annotations

import pytest

from kubectl_rbln.domain import (
    CHART_RECIPES,
    NIC_CLASS,
    NIC_SELECTOR,
    NPU_CLASS,
    RDMA_TERM,
    RECIPES,
    REFERENCE_CLASSES,
    nic_selector,
)
from kubectl_rbln.dra.normalize_claims import normalize_template
from kubectl_rbln.recipes import API_VERSIONS, RecipeParams, chart_values, recipe_devices, template_object


def test_reference_classes_name_each_driver_once():
    assert REFERENCE_CLASSES == {NPU_CLASS: "npu.rebellions.ai", NIC_CLASS: "dra.net"}
    assert CHART_RECIPES == ("numa-aligned", "numa-unaligned", "npu-only")
    assert not RECIPES["pcie-paired"].chart


@pytest.mark.parametrize("api_version", API_VERSIONS)
@pytest.mark.parametrize("recipe", CHART_RECIPES)
def test_each_chart_recipe_builds_a_template_that_normalizes_back(recipe, api_version):
    shape = RECIPES[recipe]
    obj = template_object(shape.template_name, "serving", recipe_devices(recipe), api_version)
    assert obj["apiVersion"] == f"resource.k8s.io/{api_version}"
    template = normalize_template(obj)
    assert (template.name, template.namespace) == (shape.template_name, "serving")
    by_class = {r.alternatives[0].device_class: r.alternatives[0] for r in template.spec.requests}
    expected = {NPU_CLASS: shape.npu_count} | ({NIC_CLASS: shape.nic_count} if shape.nic_count else {})
    assert {k: v.count for k, v in by_class.items()} == expected
    if shape.nic_count:
        assert by_class[NIC_CLASS].selectors == [NIC_SELECTOR]
    match = [c.match_attribute for c in template.spec.constraints if c.match_attribute]
    distinct = [c.distinct_attribute for c in template.spec.constraints if c.distinct_attribute]
    assert match == ([shape.match_attribute] if shape.match_attribute else [])
    assert distinct == ([shape.distinct_nic_attribute] if shape.distinct_nic_attribute else [])


def test_v1beta1_has_no_exactly_wrapper():
    obj = template_object("npu-rdma", "serving", recipe_devices("numa-aligned"), "v1beta1")
    for request in obj["spec"]["spec"]["devices"]["requests"]:
        assert "exactly" not in request and "deviceClassName" in request


def test_params_change_counts_names_selector_and_numa_attribute():
    params = RecipeParams(
        npu_count=2,
        nic_count=1,
        npu_request="a",
        nic_request="b",
        nic_selector=nic_selector(None),
        numa_attribute="dra.net/numaNode",
    )
    devices = recipe_devices("numa-aligned", params)
    assert [(r["name"], r["exactly"]["count"]) for r in devices["requests"]] == [("a", 2), ("b", 1)]
    assert devices["requests"][1]["exactly"]["selectors"] == [{"cel": {"expression": RDMA_TERM}}]
    assert devices["constraints"][0] == {"requests": ["a", "b"], "matchAttribute": "dra.net/numaNode"}
    assert devices["constraints"][1] == {
        "requests": ["b"],
        "distinctAttribute": RECIPES["numa-aligned"].distinct_nic_attribute,
    }


def test_nic_selector_terms():
    assert nic_selector("0101") == f'{RDMA_TERM} && device.attributes["dra.net"].pciSubsystem == "0101"'
    assert nic_selector("9140") == NIC_SELECTOR


def test_unknown_recipe_and_version_are_refused():
    with pytest.raises(ValueError, match="unknown recipe"):
        recipe_devices("pcie-paired")  # not a chart recipe
    with pytest.raises(ValueError, match="unknown API version"):
        template_object("x", "y", recipe_devices("npu-only"), "v2")


def test_chart_values_disable_rdma_only_for_npu_only():
    assert chart_values("npu-only", "npu-only", 4)["devices"]["rdma"] == {"enabled": False}
    values = chart_values("numa-aligned", "npu-rdma", 4)
    assert "rdma" not in values["devices"]
    assert values["devices"] == {"npu": {"count": 4}, "claimTemplateName": "npu-rdma"}
