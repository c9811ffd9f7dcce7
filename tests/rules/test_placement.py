"""diagnose/placement.py: the non-device reasons a node is out (taints, nodeSelector, affinity)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from kubectl_rbln.diagnose.context import probe_pod
from kubectl_rbln.diagnose.placement import exclusions, required_labels, tolerates
from kubectl_rbln.dra.model import Node

TAINT = {"key": "dedicated", "value": "batch", "effect": "NoSchedule"}


def _node(**changes) -> Node:
    base = Node(
        name="npu-node-01",
        labels={"rebellions.ai/npu.present": "true", "zone": "a"},
        taints=[],
        allocatable={},
    )
    return replace(base, **changes)


def _pod(**changes):
    return replace(probe_pod("serving", "npu-rdma"), **changes)


@pytest.mark.parametrize(
    ("toleration", "expected"),
    [
        ({"key": "dedicated", "operator": "Equal", "value": "batch", "effect": "NoSchedule"}, True),
        ({"key": "dedicated", "operator": "Equal", "value": "batch"}, True),  # no effect: any effect
        ({"key": "dedicated", "operator": "Exists"}, True),
        ({"operator": "Exists"}, True),  # empty key + Exists tolerates everything
        ({"key": "dedicated", "value": "batch"}, True),  # Equal is the default operator
        ({"key": "dedicated", "operator": "Equal", "value": "online"}, False),
        ({"key": "dedicated", "operator": "Exists", "effect": "NoExecute"}, False),
        ({"key": "other", "operator": "Exists"}, False),
        ({"value": "batch"}, False),  # empty key with Equal tolerates nothing
    ],
)
def test_tolerates_follows_core_v1(toleration, expected):
    assert tolerates([toleration], TAINT) is expected


def test_untolerated_blocking_taint_is_an_exclusion_in_the_schedulers_words():
    found = exclusions(_pod(), _node(taints=[TAINT]))
    assert [(e.kind, e.text) for e in found] == [
        ("taint", "node(s) had untolerated taint {dedicated: batch}")
    ]


def test_prefer_no_schedule_and_tolerated_taints_do_not_exclude():
    soft = {**TAINT, "effect": "PreferNoSchedule"}
    assert exclusions(_pod(), _node(taints=[soft])) == []
    pod = _pod(tolerations=[{"key": "dedicated", "operator": "Exists"}])
    assert exclusions(pod, _node(taints=[TAINT])) == []


def test_node_selector_lists_the_missing_labels():
    pod = _pod(node_selector={"zone": "b", "rebellions.ai/npu.present": "true"})
    [found] = exclusions(pod, _node())
    assert found.kind == "node-selector"
    assert "zone=b" in found.text and "npu.present" not in found.text


def test_required_affinity_excludes_a_node_that_does_not_match():
    term = {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["b"]}]}
    affinity = {
        "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [term]}}
    }
    pod = _pod(affinity=affinity)
    assert [e.kind for e in exclusions(pod, _node())] == ["affinity"]
    assert exclusions(pod, _node(labels={"zone": "b"})) == []


def test_unschedulable_node_and_several_reasons_at_once():
    pod = _pod(node_selector={"zone": "b"})
    kinds = [e.kind for e in exclusions(pod, _node(unschedulable=True, taints=[TAINT]))]
    assert kinds == ["unschedulable", "taint", "node-selector"]


def test_required_labels_reads_node_selector_and_single_value_in_terms():
    term = {
        "matchExpressions": [
            {"key": "rebellions.ai/rds.present", "operator": "In", "values": ["true"]},
            {"key": "zone", "operator": "In", "values": ["a", "b"]},  # not certain: two values
            {"key": "gpu", "operator": "NotIn", "values": ["x"]},
        ]
    }
    affinity = {
        "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [term]}}
    }
    pod = _pod(node_selector={"tier": "serving"}, affinity=affinity)
    assert required_labels(pod) == {"tier": "serving", "rebellions.ai/rds.present": "true"}


def test_required_labels_ignores_alternatives_of_several_terms():
    terms = [
        {"matchExpressions": [{"key": "rebellions.ai/rds.present", "operator": "In", "values": ["true"]}]},
        {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]},
    ]
    affinity = {
        "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": terms}}
    }
    assert required_labels(_pod(affinity=affinity)) == {}
