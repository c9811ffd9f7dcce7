"""Issue 13, 2: `dump` without -n reads every namespace with device Pods or claims, and records its scope."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from kubectl_rbln.replay.server import ReplayServer
from tests.foundation.test_inputs_scope import _bundle, _two_namespaces

pytestmark = pytest.mark.slow  # a replay server per test


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Any]:
    servers: list[ReplayServer] = []

    def start(bundle: dict[str, Any], namespace: str | None = None) -> str:
        server = ReplayServer(bundle["items"]).start()
        servers.append(server)
        path = tmp_path / f"kubeconfig-{len(servers)}"
        path.write_text(yaml.safe_dump(server.kubeconfig(namespace=namespace)))
        return str(path)

    yield start
    for server in servers:
        server.stop()


def _dump(inprocess_rbln, kubeconfig: str, out: Path, *args: str) -> tuple[dict[str, Any], str]:
    code, _, err = inprocess_rbln("dump", "--kubeconfig", kubeconfig, "--output-file", str(out), *args)
    assert code == 0, err
    return json.loads(out.read_text()), err


def _info(bundle: dict[str, Any]) -> dict[str, Any]:
    return next(o for o in bundle["items"] if o["kind"] == "ClusterInfo")


def _namespaces(bundle: dict[str, Any], kind: str) -> set[str]:
    return {o["metadata"]["namespace"] for o in bundle["items"] if o["kind"] == kind}


def test_dump_in_a_default_context_reads_the_device_namespace(inprocess_rbln, serve, tmp_path: Path) -> None:
    kubeconfig = serve(_bundle(), namespace="default")
    dumped, err = _dump(inprocess_rbln, kubeconfig, tmp_path / "d.json")
    assert _namespaces(dumped, "Pod") == {"serving"}
    assert _namespaces(dumped, "Event") == {"serving"}
    assert _namespaces(dumped, "ResourceClaimTemplate") == {"serving"}
    assert _info(dumped)["scope"] == {"namespaces": ["serving"]}
    assert "serving" in err
    code, out, err = inprocess_rbln("why", "-f", str(tmp_path / "d.json"), "-o", "json")
    assert len(json.loads(out)["pods"]) == 3


def test_dump_of_several_device_namespaces_reads_them_all(inprocess_rbln, serve, tmp_path: Path) -> None:
    kubeconfig = serve(_two_namespaces(_bundle()))
    dumped, err = _dump(inprocess_rbln, kubeconfig, tmp_path / "d.json")
    assert _namespaces(dumped, "Pod") == {"serving", "team-b"}
    assert _info(dumped)["scope"] == {"namespaces": ["serving", "team-b"]}
    assert "serving, team-b" in err


def test_dump_with_n_and_with_a_record_their_scope(inprocess_rbln, serve, tmp_path: Path) -> None:
    kubeconfig = serve(_two_namespaces(_bundle()))
    dumped, _ = _dump(inprocess_rbln, kubeconfig, tmp_path / "n.json", "-n", "team-b")
    assert _info(dumped)["scope"] == {"namespaces": ["team-b"]}
    dumped, _ = _dump(inprocess_rbln, kubeconfig, tmp_path / "a.json", "-A")
    assert _info(dumped)["scope"] == {"allNamespaces": True}


def test_why_f_says_when_the_namespace_was_outside_the_dump(inprocess_rbln, serve, tmp_path: Path) -> None:
    kubeconfig = serve(_two_namespaces(_bundle()))
    _dump(inprocess_rbln, kubeconfig, tmp_path / "n.json", "-n", "team-b")
    code, out, err = inprocess_rbln("why", "-f", str(tmp_path / "n.json"), "-n", "serving")
    assert "not in the dump's scope" in err and "team-b" in err
    code, out, err = inprocess_rbln("why", "-f", str(tmp_path / "n.json"), "-o", "json")
    assert {p["pod"].split("/")[0] for p in json.loads(out)["pods"]} == {"team-b"}
