"""Which context, cluster and namespace a command uses: kubectl's rules, read from real kubeconfig files."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml

from kubectl_rbln.cluster.kubeconfig import check_kubeconfig_file, resolve_context
from kubectl_rbln.errors import ClusterError, KubeconfigError


def kubeconfig(path: Path, contexts: dict[str, dict], current: str | None = None) -> Path:
    """contexts: name -> context body (cluster, user, namespace); clusters and users are made to fit."""
    doc = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [
            {"name": c["cluster"], "cluster": {"server": "https://127.0.0.1:6443"}} for c in contexts.values()
        ],
        "users": [{"name": c["user"], "user": {"token": "t0ken"}} for c in contexts.values()],
        "contexts": [{"name": n, "context": body} for n, body in contexts.items()],
    }
    if current:
        doc["current-context"] = current
    path.write_text(yaml.safe_dump(doc), encoding="utf-8")
    return path


def ctx(cluster: str, namespace: str | None = None) -> dict:
    body = {"cluster": cluster, "user": f"{cluster}-admin"}
    if namespace:
        body["namespace"] = namespace
    return body


@pytest.fixture
def env(tmp_path, monkeypatch):
    """A clean HOME and no KUBECONFIG: only what a test writes is read."""
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("KUBECONFIG", raising=False)
    return monkeypatch


def test_current_context_and_its_namespace(tmp_path, env):
    path = kubeconfig(tmp_path / "config", {"npu": ctx("npu-cluster", "ml"), "other": ctx("b")}, "npu")
    c = resolve_context(str(path), None, None)
    assert (c.context, c.cluster, c.namespace, c.user) == ("npu", "npu-cluster", "ml", "npu-cluster-admin")
    assert c.config_file == str(path)


def test_namespace_flag_wins_and_default_is_default(tmp_path, env):
    path = kubeconfig(tmp_path / "config", {"npu": ctx("a", "ml"), "plain": ctx("b")}, "npu")
    assert resolve_context(str(path), None, "serving").namespace == "serving"
    assert resolve_context(str(path), "plain", None).namespace == "default"


def test_home_kube_config_is_the_fallback(tmp_path, env):
    (tmp_path / ".kube").mkdir()
    kubeconfig(tmp_path / ".kube" / "config", {"home": ctx("h")}, "home")
    assert resolve_context(None, None, None).context == "home"


def test_kubeconfig_env_merges_files_as_kubectl_does(tmp_path, env):
    """Contexts of every file are known; the first file's current-context wins; a path that does not
    exist is skipped."""
    first = kubeconfig(tmp_path / "first", {"staging": ctx("staging-cluster")}, "staging")
    second = kubeconfig(tmp_path / "second", {"prod": ctx("prod-cluster", "ml")}, "prod")
    env.setenv("KUBECONFIG", os.pathsep.join([str(tmp_path / "missing"), str(first), str(second)]))
    assert resolve_context(None, None, None).context == "staging"
    prod = resolve_context(None, "prod", None)
    assert (prod.cluster, prod.namespace) == ("prod-cluster", "ml")


def test_current_context_from_a_later_file_when_the_first_has_none(tmp_path, env):
    first = kubeconfig(tmp_path / "first", {"staging": ctx("s")})
    second = kubeconfig(tmp_path / "second", {"prod": ctx("p")}, "prod")
    env.setenv("KUBECONFIG", os.pathsep.join([str(first), str(second)]))
    assert resolve_context(None, None, None).context == "prod"


def test_the_first_definition_of_a_context_wins(tmp_path, env):
    """kubectl: "the first file to set a particular map key wins" (kubectl config --help)."""
    first = kubeconfig(tmp_path / "first", {"npu": ctx("first-cluster", "ml")}, "npu")
    second = kubeconfig(tmp_path / "second", {"npu": ctx("second-cluster", "other")})
    env.setenv("KUBECONFIG", os.pathsep.join([str(first), str(second)]))
    c = resolve_context(None, None, None)
    assert (c.cluster, c.namespace) == ("first-cluster", "ml")


def test_unknown_context_is_a_kubeconfig_error_listing_the_known_ones(tmp_path, env):
    path = kubeconfig(tmp_path / "config", {"b": ctx("b"), "a": ctx("a")}, "a")
    with pytest.raises(KubeconfigError) as info:
        resolve_context(str(path), "nope", None)
    assert info.value.message == f'context "nope" not found in {path} (contexts: a, b)'
    assert isinstance(info.value, ClusterError) and info.value.exit_code == 3


def test_context_flag_works_without_a_current_context(tmp_path, env):
    """`kubectl --context a ...` works on a kubeconfig that never ran `kubectl config use-context`."""
    path = kubeconfig(tmp_path / "config", {"a": ctx("a", "ml")})
    c = resolve_context(str(path), "a", None)
    assert (c.context, c.namespace) == ("a", "ml")


def test_no_current_context_asks_for_one(tmp_path, env):
    path = kubeconfig(tmp_path / "config", {"a": ctx("a")})
    with pytest.raises(KubeconfigError, match="has no current-context; pass --context"):
        resolve_context(str(path), None, None)


def test_missing_files(tmp_path, env):
    with pytest.raises(KubeconfigError, match=r"kubeconfig .*/nothere does not exist"):
        resolve_context(str(tmp_path / "nothere"), None, None)
    with pytest.raises(KubeconfigError) as info:
        resolve_context(None, None, None)
    assert info.value.message == f"no kubeconfig found (looked at {tmp_path}/.kube/config)"
    assert "--kubeconfig" in (info.value.hint or "")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("- a\n- b\n", "is not a kubeconfig: a list, not a mapping"),
        ("contexts: {a: 1}\n", "`contexts` is not a list of entries"),
        ("clusters:\n  - name: a\n   bad: indent\n", "is not valid YAML at line 3"),
    ],
)
def test_malformed_files_are_named_with_the_problem(tmp_path, text, message):
    path = tmp_path / "config"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(KubeconfigError, match=message):
        check_kubeconfig_file(str(path))


def test_empty_file_is_left_to_the_client(tmp_path):
    path = tmp_path / "config"
    path.write_text("", encoding="utf-8")
    assert check_kubeconfig_file(str(path)) is None


def test_nothing_is_written_back(tmp_path, env):
    path = kubeconfig(tmp_path / "config", {"a": ctx("a")}, "a")
    before = path.read_bytes()
    resolve_context(str(path), None, None)
    assert path.read_bytes() == before
