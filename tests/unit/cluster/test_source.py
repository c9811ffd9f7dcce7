"""The offline source: `-f` folders, several files and stdin give one Snapshot; namespace defaults."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from kubectl_rbln.cluster.kubeconfig import KubeContext
from kubectl_rbln.cluster.options import SourceOptions
from kubectl_rbln.cluster.source import (
    CORE_LISTS,
    DRA_LISTS,
    Collected,
    cluster_info,
    collect,
    crashing_containers,
    default_namespace,
    is_device_pod,
    list_path,
    load_snapshot,
)
from kubectl_rbln.errors import InputError

DATA = Path(__file__).resolve().parents[2] / "data"
BUNDLE = DATA / "replay-basic.json"
SAMPLES = DATA / "samples"


def test_a_bundle_gives_the_snapshot_every_command_reads():
    snapshot, collected = load_snapshot(SourceOptions(filenames=(str(BUNDLE),)))
    assert sorted(snapshot.nodes) and len(snapshot.slices) == 3 and len(snapshot.device_classes) == 2
    assert {(p.namespace, p.name) for p in snapshot.pods} == {
        ("serving", "decode-0"),
        ("serving", "prefill-0"),
    }
    assert snapshot.server_version == "v1.34.2"  # from the bundle's ClusterInfo, as on the live cluster
    assert snapshot.source == f"files {BUNDLE}"
    assert collected.objects == [] and collected.context is None and collected.namespace is None


def test_a_folder_of_samples_and_several_files_are_one_snapshot(tmp_path):
    folder, _ = load_snapshot(SourceOptions(filenames=(str(SAMPLES),)))
    assert {s.driver for s in folder.slices} >= {"npu.rebellions.ai"}
    assert folder.templates and folder.device_classes
    both, _ = load_snapshot(
        SourceOptions(filenames=(str(BUNDLE), str(SAMPLES / "SYNTHETIC-rbln-npu-slice.yaml")))
    )
    assert len(both.slices) == 4
    assert "SYNTHETIC-rbln-npu-slice.yaml" in both.source


def test_stdin_bundle(monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO(BUNDLE.read_text(encoding="utf-8")))
    snapshot, _ = load_snapshot(SourceOptions(filenames=("-",)))
    assert len(snapshot.slices) == 3
    assert snapshot.source == "files -"


def test_bad_file_is_an_input_error_not_a_cluster_error(tmp_path):
    bad = tmp_path / "cut.json"
    bad.write_text('{"kind": "List", "items": [')
    with pytest.raises(InputError, match="cut.json: invalid JSON"):
        load_snapshot(SourceOptions(filenames=(str(bad),)))


def test_collect_offline_returns_the_raw_objects_for_dump():
    collected = collect(SourceOptions(filenames=(str(BUNDLE),), namespace="serving"))
    assert collected.namespace == "serving" and collected.context is None
    assert len(collected.objects) == len(json.loads(BUNDLE.read_text())["items"])


def test_all_namespaces_overrides_the_namespace_flag():
    collected = collect(SourceOptions(filenames=(str(BUNDLE),), namespace="serving", all_namespaces=True))
    assert collected.namespace is None


LIVE = KubeContext(config_file=None, context="npu", namespace="ml", cluster="npu-cluster")


@pytest.mark.parametrize(
    ("opts", "context", "expected"),
    [
        (SourceOptions(namespace="serving"), LIVE, "serving"),  # -n wins
        (SourceOptions(), LIVE, "ml"),  # live: the context's namespace
        (SourceOptions(filenames=("x",)), None, "default"),  # offline: default
        (SourceOptions(filenames=("x",), namespace="serving"), None, "serving"),
    ],
)
def test_default_namespace_rules(opts, context, expected):
    assert default_namespace(opts, Collected([], None, context)) == expected


def test_list_paths_as_the_apiserver_serves_them():
    nodes, pods = CORE_LISTS[0], CORE_LISTS[1]
    slices, claims = DRA_LISTS[1], DRA_LISTS[3]
    assert list_path(nodes, "v1", "ml") == "/api/v1/nodes"  # cluster-scoped ignores the namespace
    assert list_path(pods, "v1", "ml") == "/api/v1/namespaces/ml/pods"
    assert list_path(pods, "v1", None) == "/api/v1/pods"
    assert list_path(slices, "v1beta2", "ml") == "/apis/resource.k8s.io/v1beta2/resourceslices"
    assert list_path(claims, "v1", "ml") == "/apis/resource.k8s.io/v1/namespaces/ml/resourceclaims"


@pytest.mark.parametrize(
    ("spec", "device"),
    [
        ({"resourceClaims": [{"name": "npu", "resourceClaimTemplateName": "t"}]}, True),
        ({"containers": [{"resources": {"limits": {"rebellions.ai/ATOM": "1"}}}]}, True),
        ({"containers": [{"resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}]}, False),
        ({}, False),
    ],
)
def test_device_pods(spec, device):
    assert is_device_pod({"spec": spec}) is device


def test_crashing_containers_are_those_whose_previous_log_matters():
    pod = {
        "status": {
            "containerStatuses": [
                {"name": "ok", "restartCount": 0, "state": {"running": {}}},
                {"name": "restarted", "restartCount": 2, "state": {"running": {}}},
                {"name": "looping", "restartCount": 0, "state": {"waiting": {"reason": "CrashLoopBackOff"}}},
            ]
        }
    }
    assert crashing_containers(pod) == ["restarted", "looping"]


def test_cluster_info_item_is_what_dump_writes():
    item = cluster_info("v1.34.2", ["v1", "v1beta2"], [], "npu")
    assert item["kind"] == "ClusterInfo" and item["metadata"] == {"name": "npu"}
    assert item["apiVersion"].startswith("kubectl-rbln/")
    assert cluster_info("", [], [], "")["metadata"]["name"] == "cluster"
