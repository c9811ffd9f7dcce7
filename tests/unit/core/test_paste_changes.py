"""How the paste harness reads a recorded change (testing/paste/changes.py): every spelling of one
object is one key, a file's objects are its keys, a restarted owner re-creates its Pods."""

from __future__ import annotations

import pytest

from testing.paste.changes import Key, kind_of, kubectl_keys, owned_pods, recreated_pods, simple_commands
from testing.paste.shell import SYSTEM_WRITE, Record
from testing.synthetic.scenarios import SCENARIOS


def change(*argv: str, **raw: object) -> Record:
    return Record("kubectl", argv, "change", {"verb": "", **raw})


@pytest.mark.parametrize(
    "word",
    ["rct", "resourceclaimtemplate", "resourceclaimtemplates", "resourceclaimtemplates.resource.k8s.io"],
)
def test_every_spelling_of_a_kind_is_one_kind(word: str) -> None:
    assert kind_of(word) == "resourceclaimtemplate"


def test_deviceclasses_and_deployments_lose_only_their_plural() -> None:
    assert [kind_of(w) for w in ("deviceclasses", "deploy", "DaemonSet", "nodes")] == [
        "deviceclass",
        "deployment",
        "daemonset",
        "node",
    ]


def test_a_delete_by_name_and_by_slash_are_the_same_key() -> None:
    by_name = kubectl_keys(change("-n", "serving", "delete", "resourceclaimtemplate", "npu-rdma"))
    by_slash = kubectl_keys(change("delete", "rct/npu-rdma", "--namespace=serving"))
    assert by_name == by_slash == [Key("delete", "resourceclaimtemplate", "serving", "npu-rdma")]


def test_an_applied_file_is_the_objects_in_it() -> None:
    manifest = (
        "kind: ResourceClaimTemplate\nmetadata: {name: x}\n---\nkind: DeviceClass\nmetadata: {name: y}\n"
    )
    keys = kubectl_keys(change("-n", "llm", "apply", "-f", "f.yaml", files={"f.yaml": manifest}))
    assert keys == [Key("write", "resourceclaimtemplate", "llm", "x"), Key("write", "deviceclass", "", "y")]


def test_a_rollout_restart_names_each_owner_and_label_skips_the_label() -> None:
    restart = change("-n", "s", "rollout", "restart", "deployment/a", "deployment/b")
    assert kubectl_keys(restart) == [
        Key("restart", "deployment", "s", "a"),
        Key("restart", "deployment", "s", "b"),
    ]
    assert kubectl_keys(change("label", "node", "n1", "x=true")) == [Key("label", "node", "", "n1")]


def test_a_restarted_deployment_re_creates_its_pods_through_replicasets() -> None:
    owners = owned_pods(SCENARIOS["nic-no-numanode"].build("v1"))
    namespace, pod = SCENARIOS["nic-no-numanode"].pending_pod
    restart = Key("restart", "deployment", namespace, "coder-decode")
    assert recreated_pods(restart, owners) == [Key("re-create", "pod", namespace, pod)]
    assert recreated_pods(Key("delete", "pod", namespace, pod), owners) == [
        Key("re-create", "pod", namespace, pod)
    ]


def test_simple_commands_drop_redirections_and_split_chains() -> None:
    line = "kubectl create -f a -o name >/dev/null 2>&1 && sudo systemctl restart containerd | tee x"
    assert list(simple_commands(line)) == [
        ["kubectl", "create", "-f", "a", "-o", "name"],
        ["sudo", "systemctl", "restart", "containerd"],
        ["tee", "x"],
    ]


def test_the_harness_refuses_to_redirect_into_a_system_folder() -> None:
    assert SYSTEM_WRITE.search("cat > /etc/containerd/config.toml <<'EOF'")
    assert not SYSTEM_WRITE.search("kubectl get x > x.yaml 2>/dev/null")
