"""`topo -o svg` is a standalone, well-formed SVG that names every device."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from kubectl_rbln.dra.normalize import build_snapshot
from kubectl_rbln.render.topo_svg import render_svg
from tests.topo.topo_cases import CASES, case_objects, case_snapshot, topology_of

SVG = "{http://www.w3.org/2000/svg}"


def texts(document: str) -> str:
    root = ET.fromstring(document.encode("utf-8"))
    assert root.tag == f"{SVG}svg"
    return "\n".join("".join(t.itertext()) for t in root.iter(f"{SVG}text"))


@pytest.mark.parametrize("name", list(CASES))
def test_svg_parses_and_names_every_device(name):
    snapshot = case_snapshot(name)
    shown = texts(render_svg(topology_of(snapshot)))
    for device in (d for s in snapshot.slices for d in s.devices):
        assert device.name in shown, f"{name}: {device.name} missing from the SVG"
    assert "npu-node-01" in shown


def test_svg_shows_state_reason_and_holder():
    shown = texts(render_svg(topology_of(case_snapshot("half-allocated"))))
    assert "held by A" in shown and "free → #1" in shown and "rdma=false" in shown
    assert "A = claim serving/coder-prefill-" in shown


def test_names_from_the_cluster_cannot_break_the_document():
    objects = case_objects("healthy")
    for obj in objects:
        if obj.get("kind") == "ResourceSlice" and obj["spec"]["driver"] == "dra.net":
            obj["spec"]["devices"][0]["attributes"]["dra.net/ifName"] = {"string": 'eth<&>"0'}
    shown = texts(render_svg(topology_of(build_snapshot(objects))))
    assert 'eth<&>"0' in shown
