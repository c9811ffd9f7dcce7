"""Pods, claims and Nodes read from their text (cluster/wire_templates.py) are what decoding them gives.

Why: a `-f` item whose text matches a template is never decoded (issue 26): its model is the
representative's with the template's values put where the normalizer puts them. Each case edits items
of a generated cluster where a template could be fooled (a value the normalizer tests or drops, one it
keeps as a key, escapes, non-ASCII text, empty texts, numbers, booleans, other resourceVersions, a
duplicate, a field added) and reads the file three ways: the plain way (json, every object
normalized from its dict), the `-f` reader, and the `-f` reader with templates off; the Snapshots must
be equal field by field, problems and notes included.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kubectl_rbln.cluster import wire_templates
from kubectl_rbln.cluster.source import read_inputs
from kubectl_rbln.cluster.wire_read import iter_checked
from kubectl_rbln.dra.normalize import PREBUILT
from testing.bundle_layouts import compared_fields, plain_snapshot, write_layout
from testing.synthetic.builder import ClusterBuilder, Knobs

FIELDS = compared_fields()


def _cluster() -> list[dict[str, Any]]:
    base = Knobs(npu_nodes=8, prefill_running=0, prefill_pending=0, decode_pending=2, captures=False)
    return ClusterBuilder(7, "v1", base.replace(decode_running=12)).build()


def _of(objects, kind, index):
    return [o for o in objects if o["kind"] == kind][index]


def _pods(objects):
    return [o for o in objects if o["kind"] == "Pod" and o["status"].get("phase") == "Running"]


def _every(kind, edit, start=3, step=2):
    def apply(objects):
        items = _pods(objects) if kind == "Pod" else [o for o in objects if o["kind"] == kind]
        for index in range(start, len(items), step):
            edit(items[index], index)

    return apply


def _results(claim):
    return claim.get("status", {}).get("allocation", {}).get("devices", {}).get("results", [{}])


def _owner(claim):
    return claim["metadata"].get("ownerReferences", [{}])[0]


def _status(pod):
    return pod["status"]["containerStatuses"][0]


EDITS = {
    "nothing": lambda o: None,
    "a Pod name with a quote": lambda o: _pods(o)[5]["metadata"].update(name='a"b'),
    "a Pod name with a backslash": lambda o: _pods(o)[5]["metadata"].update(name="a\\b"),
    "a Pod name non-ASCII": lambda o: _pods(o)[5]["metadata"].update(name="décodé-😀"),
    "a Pod name empty": lambda o: _pods(o)[5]["metadata"].update(name=""),
    "a Pod's node empty": lambda o: _pods(o)[5]["spec"].update(nodeName=""),
    "Pods' phases vary": _every("Pod", lambda p, i: p["status"].update(phase=f"Phase{i}")),
    "Pods' restarts vary": _every("Pod", lambda p, i: _status(p).update(restartCount=i)),
    "a restart count as text": lambda o: _status(_pods(o)[6]).update(restartCount="3"),
    "readiness varies": _every("Pod", lambda p, i: _status(p).update(ready=i % 3 == 0)),
    "a waiting reason": lambda o: _status(_pods(o)[6]).update(state={"waiting": {"reason": "Crashed"}}),
    "exit codes vary": _every(
        "Pod", lambda p, i: _status(p).update(lastState={"terminated": {"exitCode": i, "reason": "Error"}})
    ),
    "condition statuses vary": _every(
        "Pod", lambda p, i: p["status"]["conditions"][0].update(status="True" if i % 2 else "False")
    ),
    "condition types vary": _every("Pod", lambda p, i: p["status"]["conditions"][0].update(type=f"T{i}")),
    "labels vary": _every("Pod", lambda p, i: p["metadata"]["labels"].update(batch=f"b{i}")),
    "resourceVersions not digits": _every("Pod", lambda p, i: p["metadata"].update(resourceVersion=f"v{i}")),
    "resourceVersions with leading zeros": _every(
        "Pod", lambda p, i: p["metadata"].update(resourceVersion=f"00{i}")
    ),
    "a Pod twice, the older second": lambda o: o.append(
        {**_pods(o)[4], "metadata": {**_pods(o)[4]["metadata"], "resourceVersion": "1"}}
    ),
    "a Pod twice, the newer second": lambda o: o.append(
        {**_pods(o)[4], "metadata": {**_pods(o)[4]["metadata"], "resourceVersion": "99999999"}}
    ),
    "namespaces vary": _every("Pod", lambda p, i: p["metadata"].update(namespace=f"ns{i % 3}")),
    "a field added": lambda o: _pods(o)[5]["spec"].update(hostNetwork=True),
    "claims' devices vary": _every(
        "ResourceClaim",
        lambda c, i: _results(c)[0].update(device=f"dev{i}"),
    ),
    "claims' owners not controllers": _every(
        "ResourceClaim", lambda c, i: _owner(c).update(controller=i % 2 == 0)
    ),
    "claims' owner kinds vary": _every("ResourceClaim", lambda c, i: _owner(c).update(kind=f"K{i}")),
    "claims' pod claim names vary": _every(
        "ResourceClaim",
        lambda c, i: (
            c["metadata"]
            .setdefault("annotations", {})
            .update({"resource.kubernetes.io/pod-claim-name": f"c{i}"})
        ),
    ),
    "claims' finalizers vary": _every(
        "ResourceClaim", lambda c, i: c["metadata"].update(finalizers=[f"f{i}"])
    ),
    "claims' deletion times vary": _every(
        "ResourceClaim", lambda c, i: c["metadata"].update(deletionTimestamp=f"2026-09-14T06:00:{i:02d}Z")
    ),
    "claims' counts vary": _every(
        "ResourceClaim",
        lambda c, i: c["spec"]["devices"]["requests"][0].get("exactly", {}).update(count=i % 5),
    ),
    "Nodes' readiness varies": _every(
        "Node",
        lambda n, i: [
            c.update(status="False") for c in n["status"]["conditions"] if c["type"] == "Ready" and i
        ],
        start=1,
        step=3,
    ),
    "Nodes' cpus vary": _every("Node", lambda n, i: n["status"]["allocatable"].update(cpu=str(i)), start=1),
    "Nodes' labels vary": _every("Node", lambda n, i: n["metadata"]["labels"].update(zone=f"z{i}"), start=1),
    "Nodes unschedulable": _every("Node", lambda n, i: n["spec"].update(unschedulable=i % 2 == 0), start=1),
    "a Node name non-ASCII": lambda o: _of(o, "Node", 4)["metadata"].update(name="nöde"),
}


@pytest.mark.parametrize("layout", ["lines", "whole"])
@pytest.mark.parametrize("edit", list(EDITS))
def test_an_item_read_from_its_text_is_the_decoded_item(
    tmp_path: Path, monkeypatch, edit: str, layout: str
) -> None:
    objects = _cluster()
    EDITS[edit](objects)
    path = tmp_path / "cluster.json"
    write_layout(objects, path, layout)
    plain, fast = plain_snapshot(path), read_inputs([str(path)], "x")
    monkeypatch.setenv(wire_templates.ENV, "0")
    decoded = read_inputs([str(path)], "x")
    for name in FIELDS:
        assert getattr(fast, name) == getattr(plain, name), name
        assert getattr(decoded, name) == getattr(plain, name), name


def test_most_pods_claims_and_nodes_are_read_from_their_text(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "cluster.json"
    objects = _cluster()
    write_layout(objects, path, "lines")
    read = {}
    for obj, _ in iter_checked(str(path)):
        if PREBUILT in obj:
            read[obj["kind"]] = read.get(obj["kind"], 0) + 1
    kinds = {k: sum(o["kind"] == k for o in objects) for k in wire_templates.KINDS}
    assert read["Node"] >= kinds["Node"] - 4 and read["Pod"] >= kinds["Pod"] - 8, (read, kinds)
    assert read["ResourceClaim"] >= kinds["ResourceClaim"] - 8, (read, kinds)
    monkeypatch.setenv(wire_templates.ENV, "0")
    assert not any(PREBUILT in obj for obj, _ in iter_checked(str(path)))


def test_a_value_the_normalizer_tests_makes_no_template() -> None:
    """A Node's Ready status is read as a test (`== "True"`), not kept: a hole there is refused, and the
    Nodes are decoded."""
    from kubectl_rbln.cluster.wire_read import _template_decode

    nodes = [o for o in _cluster() if o["kind"] == "Node"][1:3]
    texts = []
    for index, node in enumerate(nodes):
        for condition in node["status"]["conditions"]:
            if condition["type"] == "Ready":
                condition["status"] = "True" if index else "False"
        node["metadata"]["name"] = "same"
        texts.append(json.dumps(node, separators=(",", ":"), sort_keys=True).encode())
    templates = wire_templates.Templates(_template_decode, frozenset())  # the markers alone refuse it
    first, second = texts
    templates.learn("Node", first)
    templates.learn("Node", second)
    assert not templates.kinds["Node"]
