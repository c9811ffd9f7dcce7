"""Each recipe decision end to end: the attrs table, the recipe, its shape, and `why --with-rct` on it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from attrs_bundles import BY_NAME, STORIES, Story

from testing.synthetic import ClusterBuilder, Knobs
from tests.diagnose.fix_walk import prose_over

NS = ["-n", "serving"]
MEMORY_AND_PRODUCT = (
    'device.capacity["npu.rebellions.ai"].memory.compareTo(quantity("32Gi")) >= 0'
    ' && device.attributes["npu.rebellions.ai"]["productName"] == "RBLN-CA25"'
)
GUARDED_NUMA_AND_RDMA = (
    '"numaNode" in device.attributes["resource.kubernetes.io"] && device.attributes["dra.net"].rdma'
)


def attrs_json(rbln, bundle: Path) -> dict:
    code, out, _ = rbln("attrs", "-f", str(bundle), *NS, "-o", "json")
    report = json.loads(out)
    report["_code"] = code
    return report


def decode_pod(story: Story) -> str:
    objects = story.objects()
    return next(
        o["metadata"]["name"]
        for o in objects
        if o.get("kind") == "Pod" and "-decode-" in o["metadata"]["name"]
    )


def fits_with(rbln, bundle: Path, rct: Path, pod: str) -> list[str]:
    """`why POD --with-rct FILE`: the nodes where the simulation fits the Pod."""
    _, out, _ = rbln("why", "-f", str(bundle), *NS, pod, "--with-rct", str(rct), "-o", "json")
    report = json.loads(out)
    return [n["name"] for n in report["pods"][0]["nodes"] if n["fits"] is True]


@pytest.mark.parametrize("story", STORIES, ids=lambda s: s.name)
def test_attrs_verdicts(rbln, tmp_path: Path, story: Story) -> None:
    bundle = story.write(tmp_path)
    report = attrs_json(rbln, bundle)
    verdicts = {(r["attribute"], r["driver"]): r["verdict"] for r in report["required"]}
    for key, verdict in story.verdicts.items():
        assert verdicts[key] == verdict, (key, verdicts)
    # a key no device publishes fails; a driver missing on some nodes only narrows where Pods fit (a warning)
    assert report["_code"] == (1 if "absent" in verdicts.values() else 0)
    code, table, _ = rbln("attrs", "-f", str(bundle), *NS)
    assert code == report["_code"]
    assert not prose_over(table, 100), table
    for (attribute, driver), verdict in story.verdicts.items():
        row = next(line for line in table.splitlines() if line.startswith(attribute) and driver in line)
        assert {"present": "present", "absent": "ABSENT", "partial": "PARTIAL"}[verdict] in row


@pytest.mark.parametrize("story", [s for s in STORIES if s.recipe], ids=lambda s: s.name)
def test_suggestion_is_the_strongest_that_fits(rbln, tmp_path: Path, story: Story) -> None:
    bundle = story.write(tmp_path)
    code, out, err = rbln("suggest-rct", "-f", str(bundle), *NS)
    assert code == 0, err
    rct = yaml.safe_load(out)
    assert rct["kind"] == "ResourceClaimTemplate" and rct["apiVersion"] == "resource.k8s.io/v1"
    assert rct["metadata"] == {"name": "npu-rdma", "namespace": "serving"}
    requests = rct["spec"]["spec"]["devices"]["requests"]
    assert requests[0]["exactly"] == {"deviceClassName": "npu.rebellions.ai", "count": 4}
    constraints = rct["spec"]["spec"]["devices"].get("constraints", [])
    assert bool(constraints) == (story.recipe == "numa-aligned")
    assert err.startswith(f"suggest-rct: {story.recipe} for serving/npu-rdma")
    if story.adaptation:
        assert story.adaptation in err
    assert "kubectl -n serving delete resourceclaimtemplate npu-rdma" in err
    assert "--set devices.npu.count=4 --set devices.claimTemplateName=npu-rdma" in err
    path = tmp_path / "suggested.yaml"
    path.write_text(out, encoding="utf-8")
    assert fits_with(rbln, bundle, path, decode_pod(story)) == list(story.fits_on)


def test_no_rdma_nic_prints_no_yaml_and_names_the_driver(rbln, tmp_path: Path) -> None:
    story = BY_NAME["no-rdma-nic"]
    bundle = story.write(tmp_path)
    code, out, err = rbln("suggest-rct", "-f", str(bundle), *NS)
    assert (code, out) == (1, "")
    assert "no ResourceClaimTemplate can fix this cluster" in err
    assert "bnxt_re" in err and "--recipe npu-only" in err
    code, out, err = rbln("suggest-rct", "-f", str(bundle), *NS, "--recipe", "npu-only")
    assert code == 0, err
    rct = yaml.safe_load(out)
    assert [r["name"] for r in rct["spec"]["spec"]["devices"]["requests"]] == ["npu"]
    assert "devices.rdma.enabled=false" in err and "KV transfer" in err
    path = tmp_path / "npu-only.yaml"
    path.write_text(out, encoding="utf-8")
    assert fits_with(rbln, bundle, path, decode_pod(story))


@pytest.mark.parametrize("api_version", ["v1beta1", "v1beta2"])
def test_suggestion_speaks_the_served_version(rbln, tmp_path: Path, api_version: str) -> None:
    story = BY_NAME["mellanox-nics"]
    bundle = story.write(tmp_path, api_version)
    code, out, err = rbln("suggest-rct", "-f", str(bundle), *NS)
    assert code == 0, err
    rct = yaml.safe_load(out)
    assert rct["apiVersion"] == f"resource.k8s.io/{api_version}"
    nic = rct["spec"]["spec"]["devices"]["requests"][1]
    body = nic if api_version == "v1beta1" else nic["exactly"]
    assert "exactly" not in nic if api_version == "v1beta1" else "deviceClassName" not in nic
    assert body["selectors"][0]["cel"]["expression"].endswith('pciSubsystem == "0101"')


def test_bdf_pcieroot_is_reported_as_a_format(rbln, tmp_path: Path) -> None:
    report = attrs_json(rbln, BY_NAME["bdf-pcieroot"].write(tmp_path))
    row = next(
        r
        for r in report["formats"]
        if r["driver"] == "npu.rebellions.ai" and r["attribute"].endswith("pcieRoot")
    )
    assert not row["ok"] and "bdf" in row["found"] and "v0.1.x" in row["note"]
    assert row["severity"] == "info"  # numa-aligned compares pcieRoot among NICs only
    _, table, _ = rbln("attrs", "-f", str(BY_NAME["bdf-pcieroot"].write(tmp_path)), *NS)
    assert "VALUE FORMATS (what constraints compare)" in table and "bdf (0000:" in table


def test_all_devices_count_not_only_the_first(rbln, tmp_path: Path) -> None:
    report = attrs_json(rbln, BY_NAME["all-present"].write(tmp_path))
    rdma_device = next(r for r in report["advertised"]["dra.net"] if r["attribute"] == "dra.net/rdmaDevice")
    assert (rdma_device["devices"], rdma_device["devicesOfDriver"]) == (8, 10)  # the management NICs lack it
    assert [r["attribute"] for r in report["advertised"]["npu.rebellions.ai"]][0] == "dra.net/numaNode"


def test_nics_on_one_node_name_the_node(rbln, tmp_path: Path) -> None:
    _, table, _ = rbln("attrs", "-f", str(BY_NAME["nics-on-one-node"].write(tmp_path)), *NS)
    assert "missing on npu-node-02" in table


def test_dropped_distinct_attribute_is_said(rbln, tmp_path: Path) -> None:
    knobs = Knobs(distinct_dropped=True, nics_share_pcie_root=True)
    path = tmp_path / "dropped.json"
    path.write_text(
        json.dumps({"kind": "List", "apiVersion": "v1", "items": ClusterBuilder(3, "v1", knobs).build()})
    )
    code, out, _ = rbln("attrs", "-f", str(path), *NS, "-o", "json")
    report = json.loads(out)
    assert code == 1
    assert report["droppedFields"] == [
        {"gate": "DRAConsumableCapacity", "field": "distinctAttribute: resource.kubernetes.io/pcieRoot"}
    ]
    assert "feature-gate-disabled" in {f["slug"] for f in report["findings"]}
    _, table, _ = rbln("attrs", "-f", str(path), *NS)
    assert "stored RCT lacks distinctAttribute" in table


def test_rct_file_reads_both_forms_capacities_and_guards(rbln, tmp_path: Path) -> None:
    rct = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": "custom", "namespace": "serving"},
        "spec": {
            "spec": {
                "devices": {
                    "requests": [
                        {
                            "name": "npu",
                            "exactly": {
                                "deviceClassName": "npu.rebellions.ai",
                                "count": 4,
                                "selectors": [{"cel": {"expression": MEMORY_AND_PRODUCT}}],
                            },
                        },
                        {
                            "name": "nic",
                            "exactly": {
                                "deviceClassName": "dranet",
                                "count": 2,
                                "selectors": [{"cel": {"expression": GUARDED_NUMA_AND_RDMA}}],
                            },
                        },
                    ]
                }
            }
        },
    }
    path = tmp_path / "custom.yaml"
    path.write_text(yaml.safe_dump(rct))
    code, out, _ = rbln(
        "attrs", "-f", str(BY_NAME["all-present"].write(tmp_path)), *NS, "--rct-file", str(path), "-o", "json"
    )
    rows = {(r["attribute"], r["driver"]): r for r in json.loads(out)["required"]}
    assert rows[("npu.rebellions.ai/productName", "npu.rebellions.ai")]["verdict"] == "present"
    assert rows[("npu.rebellions.ai/memory", "npu.rebellions.ai")]["kinds"] == ["capacity"]
    assert rows[("resource.kubernetes.io/numaNode", "dra.net")]["kinds"] == ["guarded"]
    assert rows[("dra.net/rdma", "dra.net")]["verdict"] == "present"
    assert code == 0


def test_missing_rct_compares_with_the_recipe(rbln, tmp_path: Path) -> None:
    path = tmp_path / "no-rct.json"
    path.write_text(
        json.dumps(
            {"kind": "List", "apiVersion": "v1", "items": ClusterBuilder(3, "v1", Knobs(rct=None)).build()}
        )
    )
    code, table, _ = rbln("attrs", "-f", str(path), *NS)
    assert code == 0 and "(the reference recipe)" in table and "before installing" in table


def test_a_full_cluster_is_a_capacity_problem(rbln, tmp_path: Path) -> None:
    knobs = Knobs(prefill_running=2, decode_running=2, decode_pending=1)
    path = tmp_path / "full.json"
    path.write_text(
        json.dumps({"kind": "List", "apiVersion": "v1", "items": ClusterBuilder(3, "v1", knobs).build()})
    )
    code, out, err = rbln("suggest-rct", "-f", str(path), *NS)
    assert (code, out) == (1, "")
    assert "capacity problem" in err


def test_healthy_cluster_is_verified_with_a_new_replica(rbln) -> None:
    code, out, err = rbln("suggest-rct", "-f", "examples/healthy.json", *NS)
    assert code == 0 and yaml.safe_load(out)["kind"] == "ResourceClaimTemplate"
    assert "(as a new replica)" in " ".join(err.split()) and "numa-aligned" in err
