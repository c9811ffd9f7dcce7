"""The ClusterRole shipped in the package (`kubectl rbln explain rbac`) grants exactly what the plugin asks
for, read from the replay server's audit while every command that reads a cluster runs; docs/rbac/ holds
the same file for `kubectl apply -f` from the source."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from kubectl_rbln.cli.group import COMMANDS
from kubectl_rbln.cluster.files import load_objects
from kubectl_rbln.replay.server import ReplayServer

REPO = Path(__file__).resolve().parents[2]
PACKAGED = REPO / "kubectl_rbln" / "cluster" / "clusterrole.yaml"
ROLE = yaml.safe_load(PACKAGED.read_text(encoding="utf-8"))
# Commands that never read a cluster: the rest must each run below, so a new command is covered.
OFFLINE_COMMANDS = {"explain", "completion", "serve"}
BASIC = REPO / "tests" / "data" / "replay-basic.json"
DISCOVERY_ROOTS = {"api", "apis", "version", "openapi", "healthz", "livez", "readyz"}


def granted() -> set[tuple[str, str]]:
    """(verb, group/resource) pairs the ClusterRole allows."""
    pairs = set()
    for rule in ROLE["rules"]:
        for group in rule["apiGroups"]:
            for resource in rule["resources"]:
                pairs |= {(verb, f"{group}/{resource}" if group else resource) for verb in rule["verbs"]}
    return pairs


def requested(method: str, path: str, query: str) -> tuple[str, str] | None:
    """The RBAC (verb, resource) of one audited request; None for discovery, which every user may read."""
    parts = [p for p in path.split("/") if p]
    if parts[:1] == ["api"] and len(parts) >= 3:
        group, rest = "", parts[2:]
    elif parts[:1] == ["apis"] and len(parts) >= 4:
        group, rest = parts[1], parts[3:]
    else:
        assert parts[0] in DISCOVERY_ROOTS, path
        return None
    if rest[:1] == ["namespaces"] and len(rest) >= 3:
        rest = rest[2:]
    resource = rest[0] + (f"/{rest[2]}" if len(rest) >= 3 else "")
    if resource == "pods/exec":
        verb = "create"
    elif method != "GET":
        verb = method.lower()
    elif "watch=true" in query:
        verb = "watch"
    else:
        verb = "get" if len(rest) >= 2 else "list"
    return verb, f"{group}/{resource}" if group else resource


def run_plugin(kubeconfig: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "KUBECONFIG": str(kubeconfig), "NO_COLOR": "1", "LANG": "C.UTF-8"}
    return subprocess.run(
        [sys.executable, "-m", "kubectl_rbln", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
        cwd=REPO,
    )


def test_explain_rbac_prints_the_packaged_role_and_the_docs_hold_the_same(inprocess_rbln) -> None:
    code, out, err = inprocess_rbln("explain", "rbac")
    assert code == 0, err
    assert yaml.safe_load(out) == ROLE and out == PACKAGED.read_text(encoding="utf-8")
    assert "kubectl rbln explain rbac | kubectl apply -f -" in out
    assert (REPO / "docs" / "rbac" / "clusterrole.yaml").read_text(encoding="utf-8") == out


def test_clusterrole_is_read_only_and_has_no_secrets() -> None:
    assert ROLE["kind"] == "ClusterRole"
    for verb, resource in granted():
        assert verb in ("get", "list") or (verb, resource) == ("create", "pods/exec"), (verb, resource)
        assert "secrets" not in resource


@pytest.mark.slow  # replay server, the CLI as a subprocess
def test_clusterrole_covers_exactly_what_the_plugin_sends(tmp_path: Path) -> None:
    rule = {  # DeviceTaintRules are read where served (v1beta2 here): the role must cover them
        "apiVersion": "resource.k8s.io/v1beta2",
        "kind": "DeviceTaintRule",
        "metadata": {"name": "maintenance"},
        "spec": {"deviceSelector": {"driver": "dra.net"}, "taint": {"key": "k", "effect": "None"}},
    }
    server = ReplayServer([*load_objects([str(BASIC)]), rule]).start()
    try:
        kubeconfig = tmp_path / "kubeconfig"
        kubeconfig.write_text(server.kubeconfig_yaml(), encoding="utf-8")
        runs = (
            ("dump", "-n", "serving"),
            ("why", "-n", "serving"),
            ("why", "-n", "serving", "prefill-0", "--watch", "--interval", "0.2s", "--timeout", "0.5s"),
            ("version",),
            ("pod-devices", "-n", "serving"),
            ("check", "-n", "serving"),
            ("check", "--all-contexts", "-n", "serving"),
            ("attrs", "-n", "serving"),
            ("topo", "-n", "serving"),
            ("suggest-rct", "-n", "serving"),
        )
        assert {args[0] for args in runs} == set(COMMANDS) - OFFLINE_COMMANDS
        for args in runs:
            done = run_plugin(kubeconfig, *args)
            assert done.returncode in (0, 1), f"{args}: {done.stderr}"
        sent = {pair for e in server.audit if (pair := requested(e.method, e.path, e.query))}
    finally:
        server.stop()
    assert sent <= granted(), f"the plugin sent requests the ClusterRole does not allow: {sent - granted()}"
    # `get` beside `list` reveals nothing a list does not, and is how every read-only role is written.
    expected = sent | {("get", resource) for verb, resource in sent if verb == "list"}
    assert granted() == expected, f"the ClusterRole grants more than the plugin uses: {granted() - expected}"
