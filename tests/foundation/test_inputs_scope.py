"""Issue 13: what `-f` inputs hold decides the namespace, and nothing in them vanishes silently."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "pending-decode.json"


def _bundle() -> dict[str, Any]:
    return json.loads(EXAMPLE.read_text())


def _write(path: Path, bundle: dict[str, Any]) -> str:
    path.write_text(json.dumps(bundle))
    return str(path)


def _two_namespaces(bundle: dict[str, Any]) -> dict[str, Any]:
    """The example's serving objects, and a copy of them in namespace team-b."""
    extra = []
    for obj in bundle["items"]:
        if (obj.get("metadata") or {}).get("namespace") == "serving":
            twin = copy.deepcopy(obj)
            twin["metadata"]["namespace"] = "team-b"
            if twin["kind"] == "Event":
                twin["involvedObject"]["namespace"] = "team-b"
            extra.append(twin)
    bundle["items"] += extra
    return bundle


# 1. -f without -n: the bundle's namespaces


def test_why_f_without_n_reads_the_bundles_one_namespace(inprocess_rbln) -> None:
    code, out, err = inprocess_rbln("why", "-f", str(EXAMPLE), "-o", "json")
    doc = json.loads(out)
    assert len(doc["pods"]) == 3, doc.get("message")
    assert code == 1


def test_why_f_named_pod_without_n_is_found(inprocess_rbln) -> None:
    code, out, err = inprocess_rbln("why", "-f", str(EXAMPLE), "coder-decode-mn5b9k9cc2-l6qbl", "-o", "json")
    assert code == 1, err
    assert json.loads(out)["pods"][0]["pod"] == "serving/coder-decode-mn5b9k9cc2-l6qbl"


def test_why_f_several_namespaces_reads_all_and_says_so(inprocess_rbln, tmp_path: Path) -> None:
    path = _write(tmp_path / "b.json", _two_namespaces(_bundle()))
    code, out, err = inprocess_rbln("why", "-f", path, "-o", "json")
    assert len(json.loads(out)["pods"]) == 6
    assert "serving, team-b" in err and "-A" in err


def test_why_f_named_pod_in_several_namespaces_is_ambiguous(inprocess_rbln, tmp_path: Path) -> None:
    path = _write(tmp_path / "b.json", _two_namespaces(_bundle()))
    code, out, err = inprocess_rbln("why", "-f", path, "coder-decode-mn5b9k9cc2-l6qbl")
    assert code == 2
    assert "serving" in err and "team-b" in err


@pytest.mark.parametrize("command", ["check", "attrs", "topo", "suggest-rct"])
def test_single_namespace_commands_take_the_bundles_namespace(inprocess_rbln, command: str) -> None:
    from kubectl_rbln.cluster.options import SourceOptions
    from kubectl_rbln.cluster.source import default_namespace, load_snapshot

    opts = SourceOptions(filenames=(str(EXAMPLE),))
    snapshot, collected = load_snapshot(opts)
    assert default_namespace(opts, collected, snapshot) == "serving"
    code, out, err = inprocess_rbln(command, "-f", str(EXAMPLE))
    assert 'namespace "default"' not in out + err
    assert "not found" not in err


def test_pod_devices_f_without_n_reads_the_bundles_namespace(inprocess_rbln) -> None:
    code, out, err = inprocess_rbln("pod-devices", "-f", str(EXAMPLE), "-o", "json")
    assert 'namespace "default"' not in out


# 5. an unknown or empty namespace: where the device Pods are


def test_why_unknown_namespace_hints_where_device_pods_are(inprocess_rbln) -> None:
    code, out, err = inprocess_rbln("why", "-f", str(EXAMPLE), "-n", "servng", "-o", "json")
    assert code == 0
    message = json.loads(out)["message"]
    assert "serving" in message and "servng" in message
    assert "device Pods are in: serving" in err


def test_why_namespace_with_device_pods_has_no_hint(inprocess_rbln) -> None:
    code, out, err = inprocess_rbln("why", "-f", str(EXAMPLE), "-n", "serving", "-o", "json")
    assert "hint" not in err


# 4. malformed objects are reported, and a Pod that depends on one is not "nothing to fix"

POD = "coder-decode-mn5b9k9cc2-l6qbl"


def _find(bundle: dict[str, Any], kind: str, name: str | None = None) -> dict[str, Any]:
    return next(
        o for o in bundle["items"] if o["kind"] == kind and (name is None or o["metadata"]["name"] == name)
    )


def test_pod_with_claims_as_a_map_is_reported_and_an_error(inprocess_rbln, tmp_path: Path) -> None:
    bundle = _bundle()
    pod = _find(bundle, "Pod", POD)
    pod["spec"]["resourceClaims"] = {ref["name"]: ref for ref in pod["spec"]["resourceClaims"]}
    path = _write(tmp_path / "b.json", bundle)
    code, out, err = inprocess_rbln("why", "-f", path, POD, "-o", "json")
    assert code == 1, (out, err)
    assert f"Pod serving/{POD}" in err and "spec.resourceClaims is an object, not a list" in err
    findings = json.loads(out)["pods"][0]["findings"]
    malformed = [f for f in findings if f["slug"] == "source-degraded"]
    assert malformed and malformed[0]["severity"] == "error"
    assert "nothing to fix" not in json.loads(out)["pods"][0]["verdict"]


def test_pod_with_claims_as_a_map_is_still_listed_without_a_name(inprocess_rbln, tmp_path: Path) -> None:
    bundle = _bundle()
    pod = _find(bundle, "Pod", POD)
    pod["spec"]["resourceClaims"] = {ref["name"]: ref for ref in pod["spec"]["resourceClaims"]}
    code, out, err = inprocess_rbln("why", "-f", _write(tmp_path / "b.json", bundle), "-o", "json")
    assert f"serving/{POD}" in [p["pod"] for p in json.loads(out)["pods"]]


def test_slice_with_devices_as_strings_is_reported_for_every_device_pod(
    inprocess_rbln, tmp_path: Path
) -> None:
    bundle = _bundle()
    slice_ = _find(bundle, "ResourceSlice")
    slice_["spec"]["devices"] = [d["name"] for d in slice_["spec"]["devices"]]
    code, out, err = inprocess_rbln("why", "-f", _write(tmp_path / "b.json", bundle), "-o", "json")
    assert code == 1
    assert f"ResourceSlice {slice_['metadata']['name']}" in err and "is a string, not an object" in err
    for pod in json.loads(out)["pods"]:
        assert any(f["slug"] == "source-degraded" and f["severity"] == "error" for f in pod["findings"])


def test_malformed_object_of_another_namespace_is_only_a_warning_line(inprocess_rbln, tmp_path: Path) -> None:
    bundle = _bundle()
    other = copy.deepcopy(_find(bundle, "Pod", POD))
    other["metadata"]["namespace"] = "elsewhere"
    other["spec"]["containers"] = "oops"
    bundle["items"].append(other)
    code, out, err = inprocess_rbln(
        "why", "-f", _write(tmp_path / "b.json", bundle), "-n", "serving", "-o", "json"
    )
    assert "Pod elsewhere/" in err
    for pod in json.loads(out)["pods"]:
        assert not any(f["slug"] == "source-degraded" for f in pod["findings"])


def test_well_formed_example_has_no_shape_problem() -> None:
    from kubectl_rbln.dra.shapes import shape_problems

    for obj in _bundle()["items"]:
        assert shape_problems(obj["kind"], obj) == [], obj["metadata"]


# 3. several inputs: duplicates keep the newest copy, with a note; different clusters are an error


def _with_info(bundle: dict[str, Any], context: str, version: str = "v1.34.2") -> dict[str, Any]:
    bundle["items"].append(
        {
            "apiVersion": "kubectl-rbln/v1",
            "kind": "ClusterInfo",
            "metadata": {"name": context},
            "serverVersion": version,
            "resourceVersions": ["v1"],
            "problems": [],
        }
    )
    return bundle


def test_two_bundles_of_one_cluster_keep_the_newest_copy_with_a_note(inprocess_rbln, tmp_path: Path) -> None:
    old, new = _bundle(), _bundle()
    for obj in old["items"]:
        obj["metadata"]["resourceVersion"] = "100"
    for obj in new["items"]:
        obj["metadata"]["resourceVersion"] = "200"
    _find(new, "Pod", POD)["status"]["phase"] = "Running"
    _write(tmp_path / "a-new.json", new)
    _write(tmp_path / "b-old.json", old)
    code, out, err = inprocess_rbln("why", "-f", str(tmp_path), "-o", "json")
    pods = [p["pod"] for p in json.loads(out)["pods"]]
    assert len(pods) == 2 and f"serving/{POD}" not in pods  # the newer copy (Running) was kept
    assert "appear more than once" in err and "newest resourceVersion" in err


def test_duplicate_objects_are_not_counted_twice(tmp_path: Path) -> None:
    from kubectl_rbln.cluster.options import SourceOptions
    from kubectl_rbln.cluster.source import load_snapshot

    path = _write(tmp_path / "a.json", _bundle())
    snapshot, _ = load_snapshot(SourceOptions(filenames=(path, path)), warn=None)
    single, _ = load_snapshot(SourceOptions(filenames=(path,)), warn=None)
    assert len(snapshot.pods) == len(single.pods) and len(snapshot.slices) == len(single.slices)
    assert len(snapshot.claims) == len(single.claims) and len(snapshot.events) == len(single.events)


def test_bundles_of_different_clusters_are_an_error(inprocess_rbln, tmp_path: Path) -> None:
    _write(tmp_path / "a.json", _with_info(_bundle(), "prod"))
    _write(tmp_path / "b.json", _with_info(_bundle(), "staging"))
    code, out, err = inprocess_rbln("why", "-f", str(tmp_path))
    assert code == 2
    assert "different clusters" in err and "prod" in err and "staging" in err


def test_inputs_without_a_node_in_common_are_an_error(inprocess_rbln, tmp_path: Path) -> None:
    other = _bundle()
    for obj in other["items"]:
        if obj["kind"] == "Node":
            obj["metadata"]["name"] += "-elsewhere"
    _write(tmp_path / "a.json", _bundle())
    _write(tmp_path / "b.json", other)
    code, out, err = inprocess_rbln("why", "-f", str(tmp_path))
    assert code == 2 and "no Node in common" in err


def test_split_kubectl_get_outputs_still_merge(inprocess_rbln, tmp_path: Path) -> None:
    bundle = _bundle()
    nodes = [o for o in bundle["items"] if o["kind"] == "Node"]
    rest = [o for o in bundle["items"] if o["kind"] != "Node"]
    _write(tmp_path / "nodes.json", {"apiVersion": "v1", "kind": "List", "items": nodes})
    _write(tmp_path / "rest.json", {"apiVersion": "v1", "kind": "List", "items": rest})
    code, out, err = inprocess_rbln("why", "-f", str(tmp_path), "-o", "json")
    assert code == 1 and len(json.loads(out)["pods"]) == 3
    assert "more than once" not in err


def test_empty_namespace_hint_falls_back_to_claims_when_pods_were_not_read() -> None:
    """Live with -n, only that namespace's Pods are read, but claims of every namespace are."""
    from kubectl_rbln.app.why import empty_scope_hint
    from kubectl_rbln.cluster.files import load_objects
    from kubectl_rbln.dra.normalize import build_snapshot

    snapshot = build_snapshot([o for o in load_objects([str(EXAMPLE)]) if o["kind"] != "Pod"])
    hint = empty_scope_hint(snapshot, "servng")
    assert "ResourceClaims are in: serving" in hint
