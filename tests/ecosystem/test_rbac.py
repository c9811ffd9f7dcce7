"""The roles shipped in the package (`kubectl rbln explain rbac`) grant exactly what the plugin asks for:
the read-only ClusterRole everything but exec, the opt-in namespaced exec Role what `pod-devices` needs.
The replay server enforces them as kube-apiserver does for its emulated minor (replay/rbac.py: a
websocket exec is `get pods/exec`, and from 1.35 also `create`), while every command that reads a
cluster runs; docs/rbac/ holds the same files for `kubectl apply -f` from the source."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from kubectl_rbln.cli.group import COMMANDS
from kubectl_rbln.cluster.files import load_objects
from kubectl_rbln.dra.gates import MINORS
from kubectl_rbln.replay.rbac import Rbac, checks, emulated_minor, request_attributes
from kubectl_rbln.replay.server import Faults, ReplayServer

REPO = Path(__file__).resolve().parents[2]
PACKAGED = REPO / "kubectl_rbln" / "cluster" / "clusterrole.yaml"
PACKAGED_EXEC = REPO / "kubectl_rbln" / "cluster" / "exec-role.yaml"
ROLE = yaml.safe_load(PACKAGED.read_text(encoding="utf-8"))
EXEC_ROLE = yaml.safe_load(PACKAGED_EXEC.read_text(encoding="utf-8"))
# Commands that never read a cluster: the rest must each run below, so a new command is covered.
OFFLINE_COMMANDS = {"explain", "completion", "serve"}
BASIC = REPO / "tests" / "data" / "replay-basic.json"
USER = "system:serviceaccount:rbln:diagnose"
NS = "serving"
CONNECT = ("pods/exec", "pods/attach", "pods/portforward", "pods/proxy")


def granted(*roles: dict[str, Any]) -> set[tuple[str, str]]:
    """(verb, group/resource) pairs the roles allow."""
    pairs = set()
    for role in roles:
        for rule in role["rules"]:
            for group in rule["apiGroups"]:
                for resource in rule["resources"]:
                    pairs |= {(verb, f"{group}/{resource}" if group else resource) for verb in rule["verbs"]}
    return pairs


def bound(*, exec_role: dict[str, Any] | None = EXEC_ROLE) -> list[dict[str, Any]]:
    """The reader bound cluster-wide to USER, and `exec_role` (if any) applied and bound in NS, as the
    commands of docs/rbac.md do (`kubectl create clusterrolebinding` / `rolebinding`)."""
    subject = [{"kind": "ServiceAccount", "name": "diagnose", "namespace": "rbln"}]
    objects: list[dict[str, Any]] = [
        ROLE,
        {
            "kind": "ClusterRoleBinding",
            "metadata": {"name": "rbln-reader"},
            "roleRef": {"kind": "ClusterRole", "name": ROLE["metadata"]["name"]},
            "subjects": subject,
        },
    ]
    if exec_role is not None:
        role = copy.deepcopy(exec_role)
        role["metadata"]["namespace"] = NS  # `kubectl apply -n serving`
        binding = {"kind": "RoleBinding", "metadata": {"name": "rbln-exec", "namespace": NS}}
        binding |= {"roleRef": {"kind": "Role", "name": role["metadata"]["name"]}, "subjects": subject}
        objects += [role, binding]
    return objects


def at_minor(minor: int, extra: list[dict[str, Any]] = ()) -> list[dict[str, Any]]:  # type: ignore[assignment]
    """The basic bundle as a cluster of Kubernetes 1.`minor` (its ClusterInfo's serverVersion)."""
    objects = [*load_objects([str(BASIC)]), *extra]
    return [{**o, "serverVersion": f"v1.{minor}.0"} if o.get("kind") == "ClusterInfo" else o for o in objects]


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


def test_explain_rbac_prints_both_packaged_roles_and_the_docs_hold_the_same(inprocess_rbln) -> None:
    code, out, err = inprocess_rbln("explain", "rbac")
    assert code == 0, err
    assert list(yaml.safe_load_all(out)) == [ROLE, EXEC_ROLE]
    docs = REPO / "docs" / "rbac"
    assert out == "---\n".join(p.read_text(encoding="utf-8") for p in (PACKAGED, PACKAGED_EXEC))
    assert (docs / "clusterrole.yaml").read_bytes() == PACKAGED.read_bytes()
    assert (docs / "exec-role.yaml").read_bytes() == PACKAGED_EXEC.read_bytes()
    assert "kubectl rbln explain rbac | kubectl apply -f - -l app.kubernetes.io/component=reader" in out
    assert (
        "kubectl rbln explain rbac | kubectl apply -n serving -f - -l app.kubernetes.io/component=exec" in out
    )


def test_the_clusterrole_is_read_only_without_exec_or_secrets() -> None:
    assert ROLE["kind"] == "ClusterRole"
    for verb, resource in granted(ROLE):
        assert verb in ("get", "list", "watch"), (verb, resource)
        assert "secrets" not in resource and resource not in CONNECT, resource


def test_exec_is_a_namespaced_role_with_the_verbs_a_websocket_exec_needs_on_every_minor() -> None:
    assert EXEC_ROLE["kind"] == "Role" and "namespace" not in EXEC_ROLE["metadata"]  # `apply -n NS`
    assert granted(EXEC_ROLE) == {("get", "pods/exec"), ("create", "pods/exec")}
    upgrade = request_attributes("GET", f"/api/v1/namespaces/{NS}/pods/p/exec", "command=sh")
    needed = {(a.verb, a.combined_resource) for minor in MINORS for a in checks(upgrade, minor)}
    assert needed == granted(EXEC_ROLE)  # get on every minor, create from 1.35: neither is spare
    labels = {d["metadata"]["labels"]["app.kubernetes.io/component"] for d in (ROLE, EXEC_ROLE)}
    assert labels == {"reader", "exec"}  # what `kubectl apply -l` picks one by


@pytest.mark.slow  # replay server, the CLI as a subprocess
def test_the_roles_cover_exactly_what_the_plugin_sends(tmp_path: Path) -> None:
    rule = {  # DeviceTaintRules are read where served (v1beta2 here): the role must cover them
        "apiVersion": "resource.k8s.io/v1beta2",
        "kind": "DeviceTaintRule",
        "metadata": {"name": "maintenance"},
        "spec": {"deviceSelector": {"driver": "dra.net"}, "taint": {"key": "k", "effect": "None"}},
    }
    newest = MINORS.stop - 1  # where a websocket exec needs both verbs
    server = ReplayServer(at_minor(newest, [rule]), faults=Faults(rbac=Rbac(bound()), user=USER)).start()
    try:
        kubeconfig = tmp_path / "kubeconfig"
        kubeconfig.write_text(server.kubeconfig_yaml(), encoding="utf-8")
        runs = (
            ("dump", "-n", NS),
            ("why", "-n", NS),
            ("why", "-n", NS, "prefill-0", "--watch", "--interval", "0.2s", "--timeout", "0.5s"),
            ("version",),
            ("pod-devices", "-n", NS),
            ("check", "-n", NS),
            ("check", "--all-contexts", "-n", NS),
            ("attrs", "-n", NS),
            ("topo", "-n", NS),
            ("suggest-rct", "-n", NS),
        )
        assert {args[0] for args in runs} == set(COMMANDS) - OFFLINE_COMMANDS
        for args in runs:
            done = run_plugin(kubeconfig, *args)
            assert done.returncode in (0, 1), f"{args}: {done.stderr}"
        audit = server.audit
    finally:
        server.stop()
    assert [(e.method, e.path) for e in audit if e.status == 403] == []
    sent = set()
    for entry in audit:
        attrs = request_attributes(entry.method, entry.path, entry.query)
        if attrs.resource_request:  # discovery is every authenticated user's (system:discovery)
            sent |= {(a.verb, f"{a.group}/{a.combined_resource}".lstrip("/")) for a in checks(attrs, newest)}
    assert ("get", "pods/exec") in sent and ("create", "pods/exec") in sent  # pod-devices probed
    # `get` beside `list` reveals nothing a list does not, and is how every read-only role is written.
    expected = sent | {("get", resource) for verb, resource in sent if verb == "list"}
    assert granted(ROLE, EXEC_ROLE) == expected, (
        f"the roles grant more than the plugin uses: {granted(ROLE, EXEC_ROLE) - expected}"
    )


def pod_devices(
    inprocess_rbln, tmp_path: Path, minor: int, roles: list[dict[str, Any]]
) -> tuple[int, dict, str]:
    """`pod-devices -o json` against the basic bundle at 1.`minor`, as USER holding `roles`."""
    server = ReplayServer(at_minor(minor), faults=Faults(rbac=Rbac(roles), user=USER)).start()
    try:
        kubeconfig = tmp_path / f"kubeconfig-{minor}"
        kubeconfig.write_text(server.kubeconfig_yaml(), encoding="utf-8")
        code, out, err = inprocess_rbln(
            "pod-devices", "-n", NS, "-o", "json", "--kubeconfig", str(kubeconfig)
        )
    finally:
        server.stop()
    (probe,) = [p["probe"] for p in json.loads(out)["pods"] if p["name"] == "decode-0"]  # the Running one
    return code, probe, err


@pytest.mark.slow  # a replay server per minor
@pytest.mark.parametrize("minor", list(MINORS))
def test_pod_devices_needs_the_exec_role_on_every_supported_minor(
    inprocess_rbln, tmp_path: Path, minor: int
) -> None:
    assert emulated_minor(f"v1.{minor}.0") == minor
    code, probe, err = pod_devices(inprocess_rbln, tmp_path, minor, bound(exec_role=None))
    assert (
        code == 3 and "Traceback" not in err
    )  # nothing could be probed: the cluster refused, said in one line
    assert (
        probe["reason"] == "forbidden" and "kubectl auth can-i get pods/exec -n serving" in probe["message"]
    )
    code, probe, err = pod_devices(inprocess_rbln, tmp_path, minor, bound())
    assert probe["reason"] != "forbidden", probe  # the exec reached the container (the bundle's capture)
    old = copy.deepcopy(EXEC_ROLE)  # the role this project shipped before: `create` alone
    old["rules"][0]["verbs"] = ["create"]
    _, probe, _ = pod_devices(inprocess_rbln, tmp_path, minor, bound(exec_role=old))
    assert probe["reason"] == "forbidden"  # the websocket upgrade is a GET: `get`, on every minor
    get_only = copy.deepcopy(EXEC_ROLE)
    get_only["rules"][0]["verbs"] = ["get"]
    _, probe, _ = pod_devices(inprocess_rbln, tmp_path, minor, bound(exec_role=get_only))
    assert (probe["reason"] == "forbidden") == (minor >= 35)  # AuthorizePodWebsocketUpgradeCreatePermission


@pytest.mark.slow  # the real kubectl against the replay server
def test_the_documented_apply_commands_take_one_role_each(kubectl_binary: str, tmp_path: Path) -> None:
    """`kubectl apply -l` filters the documents of `explain rbac` (client dry run: nothing is written;
    --validate=false because the replay server serves no OpenAPI document)."""
    text = "---\n".join(p.read_text(encoding="utf-8") for p in (PACKAGED, PACKAGED_EXEC))
    served = [  # so that the server's discovery names both kinds, as a cluster's does
        {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": {"name": "x"}},
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "Role",
            "metadata": {"name": "x", "namespace": "y"},
        },
    ]
    server = ReplayServer([*load_objects([str(BASIC)]), *served]).start()
    try:
        kubeconfig = tmp_path / "kubeconfig"
        kubeconfig.write_text(server.kubeconfig_yaml(), encoding="utf-8")
        applied = {}
        for component, namespace in (("reader", []), ("exec", ["-n", NS])):
            done = subprocess.run(
                [
                    kubectl_binary,
                    "--kubeconfig",
                    str(kubeconfig),
                    "apply",
                    "--dry-run=client",
                    "--validate=false",
                ]
                + ["-o", "name", *namespace, "-f", "-", "-l", f"app.kubernetes.io/component={component}"],
                input=text,
                capture_output=True,
                text=True,
                timeout=60,
                check=False,
            )
            assert done.returncode == 0, done.stderr
            applied[component] = done.stdout.split()
        assert server.write_attempts() == []
    finally:
        server.stop()
    assert applied == {
        "reader": ["clusterrole.rbac.authorization.k8s.io/kubectl-rbln-reader"],
        "exec": ["role.rbac.authorization.k8s.io/kubectl-rbln-exec"],
    }
