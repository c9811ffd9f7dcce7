"""Label, field and node selectors: what `-l`, `--field-selector` and a NodeSelector select.

tests/test_replay_unit.py covers the label grammar and field escapes through the replay server; here
the parsed requirements, field values, and NodeSelector terms (agreeing with the allocator's own).
"""

from __future__ import annotations

import pytest

from kubectl_rbln.dra.model import Node
from kubectl_rbln.dra.pools import node_selector_matches as allocator_node_selector_matches
from kubectl_rbln.selectors import (
    LabelRequirement,
    SelectorError,
    field_value,
    match_fields,
    node_requirement_holds,
    node_selector_matches,
    node_selector_term_matches,
    parse_field_selector,
    parse_label_selector,
)

LABELS = {"rebellions.ai/npu.present": "true", "topology.kubernetes.io/zone": "a", "npus": "8"}


def test_parsed_label_requirements():
    reqs = parse_label_selector("rebellions.ai/npu.present=true, zone in (a,b),!gpu, npus>4 ,tier!=web")
    assert reqs == [
        LabelRequirement("rebellions.ai/npu.present", "=", ("true",)),
        LabelRequirement("zone", "in", ("a", "b")),
        LabelRequirement("gpu", "!exists"),
        LabelRequirement("npus", "gt", ("4",)),
        LabelRequirement("tier", "!=", ("web",)),
    ]


@pytest.mark.parametrize("text", ["npus>x", "a=b=c", "a in (b", "a,"])
def test_label_selectors_the_apiserver_refuses(text):
    with pytest.raises(SelectorError):
        parse_label_selector(text)


def test_empty_in_set_is_refused():
    with pytest.raises(SelectorError):
        parse_label_selector("npu in ()")


@pytest.mark.parametrize("text", ["-bad=x", "a/b/c=x", "bad-=x"])
def test_invalid_label_keys_are_refused(text):
    with pytest.raises(SelectorError):
        parse_label_selector(text)


def test_field_values_as_the_apiserver_compares_them():
    event = {
        "involvedObject": {"name": "decode-0", "kind": "Pod"},
        "source": {"component": "default-scheduler"},
        "spec": {"unschedulable": True},
    }
    assert field_value(event, "involvedObject.name") == "decode-0"
    assert field_value(event, "source") == "default-scheduler"
    assert field_value(event, "spec.unschedulable") == "true"
    assert field_value(event, "spec.nodeName") == ""
    assert field_value({"spec": "not-a-map"}, "spec.nodeName") == ""
    reqs = parse_field_selector("involvedObject.kind=Pod,source!=kubelet", {"involvedObject.kind", "source"})
    assert match_fields(reqs, event)
    assert not match_fields(parse_field_selector("source=kubelet", {"source"}), event)


def req(key, operator, *values):
    return {"key": key, "operator": operator, "values": list(values)}


@pytest.mark.parametrize(
    ("requirement", "holds"),
    [
        (req("topology.kubernetes.io/zone", "In", "a", "b"), True),
        (req("topology.kubernetes.io/zone", "NotIn", "a"), False),
        (req("rebellions.ai/npu.present", "Exists"), True),
        (req("gpu", "DoesNotExist"), True),
        (req("npus", "Gt", "4"), True),
        (req("npus", "Lt", "4"), False),
        (req("npus", "Gt"), False),  # Gt without a value
        (req("npus", "Near", "4"), False),  # unknown operators match nothing (no error here)
    ],
)
def test_node_requirements(requirement, holds):
    assert node_requirement_holds(LABELS, requirement) is holds


def test_node_selector_terms_are_ored_requirements_anded():
    zone_a = {"matchExpressions": [req("topology.kubernetes.io/zone", "In", "a")]}
    named = {"matchFields": [req("metadata.name", "In", "npu-node-1")]}
    both = {**zone_a, **named}
    assert node_selector_term_matches(both, "npu-node-1", LABELS)
    assert not node_selector_term_matches(both, "npu-node-2", LABELS)
    assert not node_selector_term_matches({}, "npu-node-1", LABELS)  # an empty term matches nothing
    assert node_selector_matches({"nodeSelectorTerms": [named, zone_a]}, "npu-node-2", LABELS)
    assert not node_selector_matches({"nodeSelectorTerms": []}, "npu-node-1", LABELS)
    assert node_selector_matches(None, "npu-node-1", LABELS)  # no selector: every node


@pytest.mark.parametrize(
    "selector",
    [
        {"nodeSelectorTerms": [{"matchExpressions": [req("npus", "Gt", "7"), req("gpu", "DoesNotExist")]}]},
        {"nodeSelectorTerms": [{"matchFields": [req("metadata.name", "NotIn", "npu-node-1")]}]},
        {"nodeSelectorTerms": [{}, {"matchExpressions": [req("topology.kubernetes.io/zone", "In", "b")]}]},
        {"nodeSelectorTerms": [{"matchExpressions": [req("npus", "Lt", "x")]}]},
    ],
)
@pytest.mark.parametrize("name", ["npu-node-1", "npu-node-2"])
def test_placement_and_the_allocator_agree_on_valid_selectors(selector, name):
    node = Node(name=name, labels=dict(LABELS), taints=[], allocatable={})
    assert node_selector_matches(selector, name, LABELS) is allocator_node_selector_matches(
        selector, node, "s"
    )
