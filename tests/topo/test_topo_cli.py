"""`kubectl rbln topo` run as a user runs it, on a bundle of the reference cluster."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest
import yaml

from testing.synthetic import build_cluster, write_bundle
from testing.synthetic.knobs import Knobs
from testing.synthetic.recipes import applied_manifest


@pytest.fixture(scope="module")
def bundle(tmp_path_factory):
    path = tmp_path_factory.mktemp("topo") / "cluster.json"
    write_bundle(str(path), build_cluster(0))  # npu-node-01 full, npu-node-02 idle
    return str(path)


def test_table_draws_every_device_node_for_the_namespaces_rct(rbln, bundle):
    run = rbln("topo", "-f", bundle)
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("RCT serving/npu-rdma (used by Pods in serving) decides usable")
    assert "npu-node-01: 0 more Pods of serving/npu-rdma fit" in run.stdout
    assert "npu-node-02: 2 more Pods of serving/npu-rdma fit" in run.stdout
    assert "cp-01" not in run.stdout
    assert max(len(line) for line in run.stdout.splitlines()) <= 100


def test_json_and_jq(rbln, bundle):
    document = json.loads(rbln("topo", "-f", bundle, "-o", "json").stdout)
    assert document["kind"] == "TopoReport"
    assert [(n["name"], n["summary"]["podsFit"]) for n in document["nodes"]] == [
        ("npu-node-01", 0),
        ("npu-node-02", 2),
    ]
    run = rbln("topo", "-f", bundle, "--jq", ".nodes[].counts.held")
    assert run.stdout.split() == ["12", "0"]


def test_named_node_and_label_selector(rbln, bundle):
    run = rbln("topo", "-f", bundle, "npu-node-02", "-o", "yaml")
    assert [n["name"] for n in yaml.safe_load(run.stdout)["nodes"]] == ["npu-node-02"]
    run = rbln("topo", "-f", bundle, "-l", "kubernetes.io/hostname=npu-node-01", "--jq", ".nodes[].name")
    assert run.stdout.split() == ['"npu-node-01"']


def test_svg_goes_to_stdout(rbln, bundle):
    run = rbln("topo", "-f", bundle, "-o", "svg")
    assert run.returncode == 0, run.stderr
    assert ET.fromstring(run.stdout.encode()).tag.endswith("svg")


def test_rct_file_decides_usable(rbln, bundle, tmp_path):
    path = tmp_path / "npu-only.yaml"
    path.write_text(yaml.safe_dump(applied_manifest("npu-only", Knobs())))
    run = rbln("topo", "-f", bundle, "--rct-file", str(path), "npu-node-02")
    assert run.returncode == 0, run.stderr
    assert "npu-node-02: 2 more Pods of serving/npu-only fit" in run.stdout
    assert "✗ not requested" in run.stdout  # NICs: the RCT asks for none


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("nope",), 'node "nope" not found'),
        (("--rct", "a", "--rct-file", "b"), "--rct and --rct-file are exclusive"),
        (("--rct", "missing", "-n", "serving"), 'resourceclaimtemplate "missing" not found'),
        (("-o", "svg", "--jq", "."), "--jq filters JSON"),
        (("-l", "a in (b"), "-l a in (b"),
    ],
)
def test_usage_errors_exit_2_with_one_line(rbln, bundle, args, message):
    run = rbln("topo", "-f", bundle, *args)
    assert run.returncode == 2
    assert message in run.stderr
    assert "Traceback" not in run.stderr


def test_help_lists_svg(rbln):
    run = rbln("topo", "--help")
    assert "svg" in run.stdout and "--rct-file" in run.stdout
