"""`-A` on check, attrs and topo, and `check -l`, through the CLI on a bundle of two namespaces.

The bundle (synthetic scenario all-mode-only-node-held): `serving` runs one decode Pod on the chart's
RCT npu-rdma; `npu-ops` has a burn-in Pod stuck on its own RCT npu-all (allocationMode All on a node
half held). What a user sees: the cluster's items once, a section per namespace each on the RCT its
own Pods use, the worst exit code; attrs one report per RCT; topo one layout and a count per RCT.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kubectl_rbln.cli.dump import as_list
from testing.schema_check import check
from testing.synthetic.scenarios import SCENARIOS


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = Path(tmp_path_factory.mktemp("all-ns")) / "two-namespaces.json"
    path.write_text(json.dumps(as_list(SCENARIOS["all-mode-only-node-held"].build("v1"))), encoding="utf-8")
    return str(path)


def _section(out: str, title: str) -> list[str]:
    """The rows under a section title, up to the next blank line."""
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(title))
    end = next((i for i in range(start + 1, len(lines)) if not lines[i].strip()), len(lines))
    # past the title and the column headers; a row's wrapped cells continue on indented lines
    return [line for line in lines[start + 2 : end] if not line.startswith(" ")]


def test_check_all_namespaces_says_the_cluster_once_then_each_namespace(inprocess_rbln, bundle) -> None:
    code, out, err = inprocess_rbln("check", "-f", bundle, "-A")
    assert code == 1, err  # npu-ops' burn-in Pod is stuck: the worst namespace decides
    heading = "Checklist of every namespace with device Pods or RCT npu-rdma (2: npu-ops, serving)"
    assert out.startswith(heading)
    cluster = [row.split()[0] for row in _section(out, "Cluster (said once")]
    assert cluster == ["2", "N1", "N2"]
    ops = _section(out, "Namespace npu-ops (RCT npu-all): 1 device Pod(s), 1 stuck")
    serving = _section(out, "Namespace serving (RCT npu-rdma): 1 device Pod(s), 0 stuck")
    assert [r.split()[0] for r in ops] == ["1", "3", "4", "5", "N3", "why"]
    assert [r.split()[0] for r in serving] == ["1", "3", "4", "5", "N3", "why"]
    assert "RCT npu-all exists" in ops[1] and "pass" in ops[1]  # its own RCT, not the chart's
    assert "FAIL" in ops[-1] and "npu-burnin-node01-q7d4m" in ops[-1]
    assert "pass" in serving[-1] and "nothing to fix" in serving[-1]
    assert out.count("slices of each driver per NPU node") == 1
    assert "[npu-ops: 4]" in out  # a finding names the namespace of its item


def test_check_all_namespaces_json_is_one_flat_item_list_with_namespaces(inprocess_rbln, bundle) -> None:
    code, out, _ = inprocess_rbln("check", "-f", bundle, "-A", "-o", "json")
    document = json.loads(out)
    assert code == 1 and check(document) == []
    assert document["allNamespaces"] is True and document["namespace"] == ""
    assert [(n["namespace"], n["rct"], n["devicePods"], n["stuckPods"]) for n in document["namespaces"]] == [
        ("npu-ops", "npu-all", 1, 1),
        ("serving", "npu-rdma", 1, 0),
    ]
    cluster = [i["id"] for i in document["items"] if "namespace" not in i]
    assert cluster == ["2", "N1", "N2"]
    failing = {(i.get("namespace"), i["id"]) for i in document["items"] if i["status"] == "fail"}
    assert ("npu-ops", "why npu-ops/npu-burnin-node01-q7d4m") in failing
    total = sum(n["summary"]["fail"] for n in document["namespaces"])
    assert document["summary"]["fail"] == total  # the cluster's items all pass here


def test_check_all_namespaces_with_rct_named_checks_every_namespace_against_it(
    inprocess_rbln, bundle
) -> None:
    _, out, _ = inprocess_rbln("check", "-f", bundle, "-A", "--rct", "npu-rdma", "-o", "json")
    sections = {n["namespace"]: n["rct"] for n in json.loads(out)["namespaces"]}
    assert sections == {"npu-ops": "npu-rdma", "serving": "npu-rdma"}


def test_check_exit_zero_with_all_namespaces_reports_and_exits_0(inprocess_rbln, bundle) -> None:
    code, out, _ = inprocess_rbln("check", "-f", bundle, "-A", "--exit-zero")
    assert code == 0 and "Namespace npu-ops" in out


def test_a_wins_over_n_as_in_kubectl(inprocess_rbln, bundle) -> None:
    """`kubectl get pods -A -n x` lists every namespace: so does every command here."""
    _, both, _ = inprocess_rbln("check", "-f", bundle, "-A", "-n", "serving")
    _, every, _ = inprocess_rbln("check", "-f", bundle, "-A")
    assert both == every and "Namespace npu-ops" in both
    _, both, _ = inprocess_rbln("why", "-f", bundle, "-A", "-n", "serving", "-o", "json")
    _, every, _ = inprocess_rbln("why", "-f", bundle, "-A", "-o", "json")
    assert both == every


def test_check_selector_limits_the_why_items(inprocess_rbln, bundle) -> None:
    _, out, _ = inprocess_rbln("check", "-f", bundle, "-A", "-o", "json")
    labels = {i["id"] for i in json.loads(out)["items"] if i["id"].startswith("why ")}
    assert len(labels) == 2
    selector = ("-l", "job-name=npu-burnin-node01")
    code, out, _ = inprocess_rbln("check", "-f", bundle, "-A", *selector, "-o", "json")
    document = json.loads(out)
    assert check(document) == [] and document["selector"] == "job-name=npu-burnin-node01"
    whys = [i["id"] for i in document["items"] if i["id"].startswith("why ")]
    assert whys == ["why npu-ops/npu-burnin-node01-q7d4m"]
    assert [n["namespace"] for n in document["namespaces"]] == ["npu-ops"]
    code, out, _ = inprocess_rbln("check", "-f", bundle, "-n", "serving", "-l", "job-name=npu-burnin-node01")
    assert code == 0
    assert "No device Pod matches -l job-name=npu-burnin-node01" in out
    assert "Only device Pods matching -l job-name=npu-burnin-node01" in out


def test_check_bad_selector_is_a_usage_error(inprocess_rbln, bundle) -> None:
    code, _, err = inprocess_rbln("check", "-f", bundle, "-l", "app in (")
    assert code == 2 and "-l app in (" in err and "Traceback" not in err


def test_attrs_all_namespaces_one_report_per_rct(inprocess_rbln, bundle) -> None:
    code, out, err = inprocess_rbln("attrs", "-f", bundle, "-A")
    assert code == 0, err
    assert out.startswith("ResourceClaimTemplates of every namespace (2): npu-ops/npu-all, serving/npu-rdma")
    assert out.index("RCT npu-ops/npu-all (") < out.index("RCT serving/npu-rdma (")
    code, out, _ = inprocess_rbln("attrs", "-f", bundle, "-A", "-o", "json")
    document = json.loads(out)
    assert document["kind"] == "AttrsReportList" and check(document) == []
    assert [(i["rct"]["namespace"], i["rct"]["name"]) for i in document["items"]] == [
        ("npu-ops", "npu-all"),
        ("serving", "npu-rdma"),
    ]


def test_attrs_all_namespaces_rct_named_and_missing_is_an_error(inprocess_rbln, bundle) -> None:
    code, _, err = inprocess_rbln("attrs", "-f", bundle, "-A", "--rct", "nope")
    assert code != 0 and 'resourceclaimtemplate "nope" not found in any namespace' in err
    code, _, err = inprocess_rbln("attrs", "-f", bundle, "-A", "--rct-file", bundle)
    assert code == 2 and "-A compares every stored RCT" in err


def test_topo_all_namespaces_counts_each_namespaces_rct_per_node(inprocess_rbln, bundle) -> None:
    code, out, err = inprocess_rbln("topo", "-f", bundle, "-A")
    assert code == 0, err
    assert out.startswith("Every namespace (2: npu-ops, serving)")
    node01 = out[out.index("npu-node-01:") : out.index("npu-node-02:")]
    assert "  npu-ops/npu-all: 0 more Pods fit" in node01
    assert "why not: npu: 4 free of 8 matching, 8 needed" in node01
    assert "  serving/npu-rdma: 1 more Pod fit" in node01
    assert "✗" not in node01  # no one RCT marks devices unusable
    code, out, _ = inprocess_rbln("topo", "-f", bundle, "-A", "-o", "json")
    document = json.loads(out)
    assert check(document) == [] and document["allNamespaces"] is True
    fits = {f["namespace"]: {n["name"]: n["podsFit"] for n in f["nodes"]} for f in document["fits"]}
    assert fits == {
        "npu-ops": {"npu-node-01": 0, "npu-node-02": 1},
        "serving": {"npu-node-01": 1, "npu-node-02": 2},
    }
    code, _, err = inprocess_rbln("topo", "-f", bundle, "-A", "-o", "svg")
    assert code == 2 and "give -n NAMESPACE" in err
