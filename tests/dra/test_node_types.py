"""Node types (dra/node_types.py) change nothing a user sees: with `KUBECTL_RBLN_NODE_TYPES=0` and
without it, every synthetic scenario and docs bundle, read from a `-f` file (the decoding that finds
types), prints the same bytes for why, check, topo and attrs, in `-o json` and as text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from kubectl_rbln.cli.dump import as_list
from kubectl_rbln.cli.group import cli
from kubectl_rbln.cluster.source import read_inputs
from kubectl_rbln.dra import node_types
from testing.docs_bundles import BUNDLES
from testing.synthetic.builder import ClusterBuilder, Knobs
from testing.synthetic.scenarios import SCENARIOS

pytestmark = pytest.mark.slow  # about 1,200 CLI runs


def _sources() -> list[tuple[str, list[dict], str, str]]:
    out = []
    for scenario in SCENARIOS.values():
        ns, pod = scenario.pending_pod
        out.append((f"scenario/{scenario.name}", scenario.build("v1"), ns, pod))
    for name, build in BUNDLES.items():
        objects = build()
        pods = [o for o in objects if o.get("kind") == "Pod"]
        pending = next((p for p in pods if p.get("status", {}).get("phase") == "Pending"), pods[0])
        meta = pending["metadata"]
        out.append((f"docs/{name}", objects, meta.get("namespace", "default"), meta["name"]))
    return out


SOURCES = _sources()


def _commands(path: str, ns: str, pod: str) -> list[list[str]]:
    commands = [
        ["why", "-f", path, "-n", ns, pod],
        ["why", "-f", path, "-A"],
        ["check", "-f", path, "-n", ns],
        ["topo", "-f", path, "-n", ns],
        ["attrs", "-f", path, "-n", ns],
    ]
    return [c + extra for c in commands for extra in ([], ["-o", "json"])]


def _run(args: list[str], types: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, args, prog_name="kubectl rbln", env={node_types.ENV: types})
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize("source", SOURCES, ids=[s[0] for s in SOURCES])
def test_every_command_prints_the_same_bytes_with_types_on_and_off(source, tmp_path: Path) -> None:
    name, objects, ns, pod = source
    path = tmp_path / "bundle.json"
    path.write_text(json.dumps(as_list(objects)), encoding="utf-8")
    for args in _commands(str(path), ns, pod):
        on, off = _run(args, "1"), _run(args, "0")
        assert on == off, f"{name}: kubectl rbln {' '.join(args)}"


def _generated(tmp_path: Path, **knobs) -> str:
    base = Knobs(npu_nodes=12, prefill_running=0, prefill_pending=0, decode_pending=1, captures=False)
    objects = ClusterBuilder(5, "v1", base.replace(**{"decode_running": 6, **knobs})).build()
    path = tmp_path / "cluster.json"
    path.write_text(json.dumps(as_list(objects)), encoding="utf-8")
    return str(path)


def test_a_generated_cluster_is_two_slice_types_and_says_the_same(tmp_path: Path, monkeypatch) -> None:
    """Twelve nodes of one kind: two slice types (NPUs, NICs), their serials and MACs the values that
    vary; the pending Pod's why reads the same with types on and off."""
    path = _generated(tmp_path)
    monkeypatch.setenv(node_types.ENV, "1")
    snapshot = read_inputs([path], "x")
    found = snapshot.derived[node_types.DERIVED_KEY]
    assert sorted(t.slices for t in found.types.values()) == [12, 12]
    assert all(s.type_id >= 0 for s in snapshot.slices)
    varying = set().union(*(t.varying for t in found.types.values()))
    assert "npu.rebellions.ai/uuid" in varying and "dra.net/mac" in varying
    assert not varying & {"resource.kubernetes.io/numaNode", "dra.net/rdma", "npu.rebellions.ai/productName"}
    monkeypatch.setenv(node_types.ENV, "0")
    untyped = read_inputs([path], "x")
    assert untyped.slices == snapshot.slices and all(s.type_id == -1 for s in untyped.slices)
    pod = next(p for p in snapshot.pods if p.phase == "Pending")
    for args in (["why", "-f", path, "-n", pod.namespace, pod.name], ["topo", "-f", path, "-o", "json"]):
        assert _run(args, "1") == _run(args, "0")


def test_a_device_that_differs_in_what_the_claims_read_is_not_shared(tmp_path: Path) -> None:
    """One node's NICs publish another pciSubsystem, which the RCT's selector reads: the type records
    it as varying, the node is keyed by its value, and why says of it what it says without types."""
    path = Path(_generated(tmp_path, decode_running=0))
    bundle = json.loads(path.read_text(encoding="utf-8"))
    nics = [o for o in bundle["items"] if o["kind"] == "ResourceSlice" and o["spec"]["driver"] == "dra.net"]
    for device in nics[len(nics) // 2]["spec"]["devices"]:
        device["attributes"]["dra.net/pciSubsystem"] = {"string": "0000"}
    path.write_text(json.dumps(bundle), encoding="utf-8")
    snapshot = read_inputs([str(path)], "x")
    types = snapshot.derived[node_types.DERIVED_KEY].types.values()
    assert any("dra.net/pciSubsystem" in t.varying for t in types)
    pod = next(p for p in snapshot.pods if p.phase == "Pending")
    for output in ([], ["-o", "json"]):
        args = ["why", "-f", str(path), "-n", pod.namespace, pod.name, *output]
        assert _run(args, "1") == _run(args, "0")
    document = json.loads(_run(["why", "-f", str(path), "-n", pod.namespace, pod.name, "-o", "json"], "1")[1])
    rows = {row["name"]: row for row in document["pods"][0]["nodes"]}
    changed = nics[len(nics) // 2]["spec"]["nodeName"]
    assert rows[changed]["fits"] is False and rows[changed]["failure"]["kind"] == "selector"
    assert sum(row["fits"] is True for row in rows.values()) == len(nics) - 1
