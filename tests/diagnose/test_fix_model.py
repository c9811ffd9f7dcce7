"""A fix read into steps (catalog/fix.py, commands.py): what an operator sees before pasting (issue 22).

Each command is read for its kind (check, write, preview, change), its place (workstation or node)
and what it changes; steps group commands of one kind and place; node steps run through ssh on
the named nodes, quoted for the remote shell; values from the cluster are quoted where they stand.
"""

from __future__ import annotations

import shlex

import pytest

from kubectl_rbln.catalog import alternative, load_catalog, render_entry, say
from kubectl_rbln.catalog.commands import CHANGE, CHECK, NODE, PREVIEW, WORKSTATION, WRITE, read_command
from kubectl_rbln.catalog.fill import fill_command
from kubectl_rbln.catalog.fix import build_fix


@pytest.mark.parametrize(
    ("command", "kind", "runs_on"),
    [
        ("kubectl -n serving get resourceclaimtemplate npu-rdma -o yaml", CHECK, WORKSTATION),
        ("kubectl get resourceslices -o json | jq '.items[]'", CHECK, WORKSTATION),
        ("kubectl -n s get rct x -o yaml > x.yaml", WRITE, WORKSTATION),
        ("kubectl rbln suggest-rct -n s --rct x > x.yaml", WRITE, WORKSTATION),
        ("diff -u a.yaml b.yaml", PREVIEW, WORKSTATION),
        ("kubectl label node n a=b --dry-run=server", PREVIEW, WORKSTATION),
        ("kubectl -n s delete resourceclaimtemplate x", CHANGE, WORKSTATION),
        ("kubectl -n s rollout restart deployment/a deployment/b", CHANGE, WORKSTATION),
        ("kubectl -n s rollout status deployment/a", CHECK, WORKSTATION),
        ("sudo systemctl restart containerd", CHANGE, NODE),
        ("sudo systemctl show containerd -p LimitMEMLOCK", CHECK, NODE),
        ("ls /sys/class/infiniband/", CHECK, NODE),
        ("sudo crictl pods --state NotReady -q | xargs -r sudo crictl rmp", CHANGE, NODE),
        ("printf '%s\\n' '[Service]' | sudo tee /etc/x.conf >/dev/null", CHANGE, NODE),
        ("sudo modprobe bnxt_re", CHANGE, NODE),
    ],
)
def test_a_command_is_read_for_its_kind_and_place(command: str, kind: str, runs_on: str) -> None:
    reading = read_command(command)
    assert (reading.kind, reading.runs_on) == (kind, runs_on)


def test_a_change_says_what_it_deletes_creates_and_restarts() -> None:
    chain = (
        "kubectl -n s delete resourceclaimtemplate npu-rdma && \\\n  kubectl -n s create -f f.yaml && \\\n"
        "  kubectl -n s rollout restart deployment/a deployment/b"
    )
    effects = [say(e, "en") for e in read_command(chain).effects]
    assert effects == [
        "deletes `resourceclaimtemplate npu-rdma`",
        "creates the objects of `f.yaml`",
        "restarts `deployment/a`, `deployment/b`",
    ]
    assert [say(e, "en") for e in read_command("sudo systemctl restart containerd").effects] == [
        "restarts `containerd`"
    ]


def test_steps_group_by_kind_and_place_and_a_change_is_one_chain() -> None:
    fix = build_fix(
        [
            "kubectl get nodes",
            "kubectl describe node a",
            "# why the change",
            "kubectl -n s delete pod p",
            "kubectl -n s rollout restart deployment/d",
            alternative("if it does not help", "en"),
            "kubectl -n s get events",
        ],
        "en",
    )
    kinds = [step.kind for step in fix.recommended.steps]
    assert kinds == [CHECK, CHANGE]
    change = fix.recommended.steps[1]
    assert change.notes == ("why the change",)
    assert change.commands == (
        "kubectl -n s delete pod p && \\\n  kubectl -n s rollout restart deployment/d",
    )
    assert [a.label for a in fix.alternatives] == ["if it does not help"]
    assert fix.alternatives[0].steps[0].commands == ("kubectl -n s get events",)


def test_node_steps_run_on_each_named_node_through_ssh_quoted_for_the_remote_shell() -> None:
    fix = build_fix(
        ["ls /sys/class/infiniband/", "sudo modprobe bnxt_re"], "en", ["npu-node-01", "node $(id)"]
    )
    steps = fix.recommended.steps
    assert [(s.kind, s.node) for s in steps] == [
        (CHECK, "npu-node-01"),
        (CHECK, "node $(id)"),
        (CHANGE, "npu-node-01"),
        (CHANGE, "node $(id)"),
    ]
    words = shlex.split(steps[3].commands[0])
    assert words == ["ssh", "-t", "node $(id)", "sudo modprobe bnxt_re"]
    assert fix.to_dict()["steps"][2]["via"] == "ssh"


def test_a_node_step_without_a_node_runs_nothing() -> None:
    (step,) = build_fix(["sudo modprobe bnxt_re"], "en").recommended.steps
    assert step.runs_on == NODE and step.commands == ()


@pytest.mark.parametrize("name", ["plain", "we ird", "x;rm -rf ~", "$(reboot)", "it's", '"q"'])
def test_values_are_quoted_where_they_stand(name: str) -> None:
    bare = fill_command("kubectl -n {ns} delete pod {pod}", {"ns": "serving", "pod": name})
    assert shlex.split(bare) == ["kubectl", "-n", "serving", "delete", "pod", name]
    inside = fill_command("kubectl get pod {pod} -o jsonpath='{{.metadata.name}} {pod}'", {"pod": name})
    assert shlex.split(inside)[-1] == "jsonpath={.metadata.name} " + name
    listed = fill_command("kubectl label node {nodes} a=b", {"nodes": ["n1", name]})
    assert shlex.split(listed) == ["kubectl", "label", "node", "n1", name, "a=b"]


def test_a_catalog_command_with_a_hostile_pod_name_still_names_one_pod() -> None:
    entry = load_catalog()["pod-crashing"]
    values = {"namespace": "serving", "pod": "p;touch /tmp/x", "container": "c", "restart": ""}
    lines = render_entry(entry, "en", values).remediation
    commands = [line for line in lines if line.startswith("kubectl")]
    assert commands and all("'p;touch /tmp/x'" in command for command in commands if "p;" in command)
