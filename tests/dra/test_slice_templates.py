"""A typed slice read from its devices text (dra/slice_templates.py) is the slice the decoding builds.

Why: a `-f` slice whose devices text matches its type's pattern is never decoded (issue 26); its
devices are built from the representative's and the values read from the pattern's holes. Each case
below edits one slice of a generated cluster where a pattern could be fooled (escapes, non-ASCII
text, numbers past int64, a value of another type, a value of a position that never varied, spacing)
and reads the file both ways: the plain way (json, every device built) and the `-f` reader, in both
file layouts (one item a line, and one JSON text); every slice must equal its plain twin, device by
device, and the types must say which attributes varied as the slices show.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from kubectl_rbln.cluster.source import read_inputs
from kubectl_rbln.dra import node_types, slice_templates
from testing.bundle_layouts import plain_snapshot, write_layout
from testing.synthetic.builder import ClusterBuilder, Knobs


def _cluster() -> list[dict[str, Any]]:
    base = Knobs(npu_nodes=8, prefill_running=0, prefill_pending=0, decode_pending=1, captures=False)
    return ClusterBuilder(5, "v1", base.replace(decode_running=4)).build()


def _varying(objects: list[dict[str, Any]]) -> set[str]:
    """The qualified attribute names whose values differ among slices of one layout (the test's own
    reckoning: driver, device names and attribute names in order)."""
    first: dict[Any, dict[str, Any]] = {}
    out: set[str] = set()
    for obj in objects:
        if obj["kind"] != "ResourceSlice":
            continue
        driver, devices = obj["spec"]["driver"], obj["spec"]["devices"]
        layout = (
            driver,
            tuple(
                (d["name"], tuple(d.get("attributes", {})), json.dumps(d.get("capacity"))) for d in devices
            ),
        )
        rep = first.setdefault(layout, obj)
        for mine, theirs in zip(devices, rep["spec"]["devices"], strict=True):
            for key, value in mine.get("attributes", {}).items():
                if value != theirs["attributes"][key]:
                    out.add(key if "/" in key else f"{driver}/{key}")
    return out


def _npu(objects, index=5, device=0):
    slices = [
        o for o in objects if o["kind"] == "ResourceSlice" and o["spec"]["driver"] == "npu.rebellions.ai"
    ]
    return slices[index]["spec"]["devices"][device]["attributes"]


def _nic(objects, index=5, device=0):
    slices = [o for o in objects if o["kind"] == "ResourceSlice" and o["spec"]["driver"] == "dra.net"]
    return slices[index]["spec"]["devices"][device]["attributes"]


EDITS = {
    "nothing": lambda o: None,
    "an escaped quote": lambda o: _npu(o)["uuid"].update(string='a"b'),
    "a backslash": lambda o: _npu(o)["uuid"].update(string="a\\b"),
    "a control character": lambda o: _npu(o)["uuid"].update(string="a\x01b"),
    "non-ASCII text": lambda o: _npu(o)["uuid"].update(string="é-ü-€-😀"),
    "an empty text": lambda o: _npu(o)["sid"].update(string=""),
    "a NUL escaped": lambda o: _npu(o)["sid"].update(string="a\x00b"),
    "the representative's value": lambda o: _npu(o)["uuid"].update(string=_npu(o, 0)["uuid"]["string"]),
    "an int where a text was": lambda o: _npu(o).__setitem__("uuid", {"int": 7}),
    "a number past int64": lambda o: _npu(o).__setitem__("resource.kubernetes.io/numaNode", {"int": 2**70}),
    "a negative number": lambda o: _npu(o).__setitem__("resource.kubernetes.io/numaNode", {"int": -3}),
    "a value that never varied": lambda o: _npu(o)["productName"].update(string="RBLN-CA99"),
    "a version": lambda o: _npu(o).__setitem__("firmwareVersion", {"version": "1.2.3"}),
    "a boolean flipped": lambda o: _nic(o)["dra.net/rdma"].update(bool=False),
    "two values at once": lambda o: _npu(o)["uuid"].update(string="x", int=1),
    "an attribute more": lambda o: _npu(o).__setitem__("extra", {"string": "x"}),
    "an attribute less": lambda o: _npu(o).pop("sid"),
    "every slice's numbers vary": lambda o: [
        _npu(o, i, d)["resource.kubernetes.io/numaNode"].update(int=i * 10 + d)
        for i in range(8)
        for d in range(8)
    ],
    "every slice's booleans vary": lambda o: [
        _nic(o, i, 0)["dra.net/sriov"].update(bool=i % 2 == 0) for i in range(8)
    ],
}


@pytest.mark.parametrize("layout", ["lines", "whole"])
@pytest.mark.parametrize("edit", list(EDITS))
def test_a_slice_read_from_its_text_is_the_decoded_slice(tmp_path: Path, edit: str, layout: str) -> None:
    objects = _cluster()
    EDITS[edit](objects)
    path = tmp_path / "cluster.json"
    write_layout(objects, path, layout)
    plain, fast = plain_snapshot(path), read_inputs([str(path)], "x")
    assert fast.slices == plain.slices
    assert [s.devices for s in fast.slices] == [s.devices for s in plain.slices]
    assert fast.problems == plain.problems
    types = fast.derived[node_types.DERIVED_KEY].types.values()
    assert set().union(*(t.varying for t in types)) == _varying(objects)


def test_most_slices_of_a_type_are_read_from_their_text(tmp_path: Path) -> None:
    """The first slice of a type is its representative, the second teaches what varies; from the third
    on, each is read from its text (its own values kept as one text until its devices are built)."""
    path = tmp_path / "cluster.json"
    write_layout(_cluster(), path, "lines")
    snapshot = read_inputs([str(path)], "x")
    read = [s for s in snapshot.slices if isinstance(s, node_types.TypedSlice) and not s.built]
    held = [s for s in read if isinstance(s.own, node_types.HoleText)]
    assert len(snapshot.slices) == 16 and len(held) == 12


def test_a_slice_spaced_otherwise_is_decoded(tmp_path: Path) -> None:
    """Spacing is part of a pattern: a slice written with other spacing does not match it and is
    decoded, to the same slice."""
    path = tmp_path / "cluster.json"
    write_layout(_cluster(), path, "lines")
    lines = path.read_text(encoding="utf-8").split("\n")
    at = [i for i, line in enumerate(lines) if '"kind":"ResourceSlice"' in line][9]
    lines[at] = lines[at].replace('"uuid":{"string":', '"uuid": {"string": ')
    path.write_text("\n".join(lines), encoding="utf-8")
    plain, fast = plain_snapshot(path), read_inputs([str(path)], "x")
    assert [s.devices for s in fast.slices] == [s.devices for s in plain.slices]


def test_a_representative_with_an_escape_in_a_varying_value_makes_no_pattern() -> None:
    devices = [{"name": "a", "attributes": {"u": {"string": 'x\\"y'}, "n": {"int": 1}}}]
    text = json.dumps(devices, separators=(",", ":")).encode()
    assert slice_templates.make(text, [(0,)]) is None
    pattern = slice_templates.make(text, [(1,)])
    assert pattern is not None
    other = copy.deepcopy(devices)
    other[0]["attributes"]["n"] = {"int": 42}
    assert slice_templates.values_of(pattern, json.dumps(other, separators=(",", ":")).encode()) == "42"
    other[0]["attributes"]["n"] = {"int": 4.5}
    assert slice_templates.values_of(pattern, json.dumps(other, separators=(",", ":")).encode()) is None
