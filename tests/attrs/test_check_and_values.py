"""`check` over the whole checklist, and `suggest-rct --values` against the chart values rules."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from kubectl_rbln.remedy.chart_values import check_values

NS = ["-n", "serving"]


def test_check_on_a_healthy_cluster_passes_every_item(rbln) -> None:
    code, out, _ = rbln("check", "-f", "examples/healthy.json", *NS, "-o", "json")
    report = json.loads(out)
    assert (code, report["apiVersion"], report["kind"]) == (0, "kubectl-rbln/v2", "CheckReport")
    assert {i["id"] for i in report["items"]} >= {"1", "2", "3", "4", "5", "N1", "N2", "N3"}
    assert [i["id"] for i in report["items"] if i["status"] != "pass"] == []
    assert sum(i["id"].startswith("why ") for i in report["items"]) == 3
    code, table, _ = rbln("check", "-f", "examples/healthy.json", *NS)
    assert code == 0 and "11 pass, 0 warn, 0 fail, 0 n/a" in table
    assert all(len(line) <= 100 for line in table.splitlines())


def test_check_on_the_pending_example_fails_item_5_and_the_pods(rbln) -> None:
    code, out, _ = rbln("check", "-f", "examples/pending-decode.json", *NS, "-o", "json")
    items = {i["id"]: i for i in json.loads(out)["items"]}
    assert code == 1
    assert (
        items["5"]["status"] == "fail"
        and "resource.kubernetes.io/numaNode (dra.net, absent)" in items["5"]["found"]
    )
    assert items["1"]["status"] == items["2"]["status"] == items["3"]["status"] == "pass"
    assert all(i["status"] == "fail" for k, i in items.items() if k.startswith("why "))
    code, out, _ = rbln("check", "-f", "examples/pending-decode.json", *NS, "--jq", ".summary.fail")
    assert (code, out.strip()) == (1, "4")


def test_values_file_is_cross_checked(rbln, tmp_path: Path) -> None:
    values = {
        "devices": {"npu": {"count": 8}, "claimTemplateName": "npu-rdma"},
        "decode": {"tensorParallelSize": 4, "pipeline_parallel_size": 1},
    }
    path = tmp_path / "values.yaml"
    path.write_text(yaml.safe_dump(values))
    code, out, err = rbln("suggest-rct", "-f", "examples/pending-decode.json", *NS, "--values", str(path))
    assert code == 1 and yaml.safe_load(out)["kind"] == "ResourceClaimTemplate"
    assert "FAIL devices.npu.count is 8, the RCT's NPU count is 4: set devices.npu.count=4" in err
    assert "FAIL tensor 4 x pipeline 1 = 4, devices.npu.count is 8" in err


def test_values_rules() -> None:
    ok = check_values({}, rct_name="npu-rdma", npu_count=4, has_nic=True, templates_in_namespace=["npu-rdma"])
    assert all(c.ok for c in ok)
    npu_only = check_values(
        {"devices": {"claimTemplateName": "npu-only"}},
        rct_name="npu-only",
        npu_count=4,
        has_nic=False,
        templates_in_namespace=[],
    )
    assert [c.key for c in npu_only if not c.ok] == ["devices.npu.count", "devices.rdma.enabled"][1:]
    plugin = check_values(
        {"devices": {"npu": {"mode": "devicePlugin"}, "rdma": {"mode": "devicePlugin"}}},
        rct_name="npu-rdma",
        npu_count=4,
        has_nic=True,
        templates_in_namespace=[],
    )
    assert [c.key for c in plugin if not c.ok] == ["devices.rdma.resourceName"]
    wrong_name = check_values(
        {"devices": {"claimTemplateName": "other"}},
        rct_name="npu-rdma",
        npu_count=4,
        has_nic=True,
        templates_in_namespace=["npu-rdma"],
    )
    assert "set devices.claimTemplateName=npu-rdma" in next(c.message for c in wrong_name if not c.ok)
