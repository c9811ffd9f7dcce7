"""The terminal drawing of `topo`, as a user sees it: golden files for the reference node and
its variants, each within 100 columns.

Golden files are rewritten only when RBLN_UPDATE_GOLDEN=1 is set; otherwise a difference fails.
"""

from __future__ import annotations

import os
from pathlib import Path

import click
import pytest

from kubectl_rbln.app.topo import node_view
from kubectl_rbln.render.topo_text import MAX_WIDTH, render_node, render_topology
from tests.topo.topo_cases import CASES, NAMESPACE, case_snapshot, topology_of

GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("RBLN_UPDATE_GOLDEN", "") not in ("", "0")


def check_golden(name: str, text: str) -> None:
    path = GOLDEN / f"{name}.txt"
    if UPDATE:
        path.write_text(text, encoding="utf-8")
        return
    assert path.exists(), f"no golden file {path}; run with RBLN_UPDATE_GOLDEN=1 to create it, then review it"
    expected = path.read_text(encoding="utf-8")
    assert text == expected, f"{name}: drawing differs from {path}; if intended, RBLN_UPDATE_GOLDEN=1"


@pytest.mark.parametrize("name", list(CASES))
def test_drawing_matches_golden_within_100_columns(name):
    text = render_topology(topology_of(case_snapshot(name)))
    too_wide = [line for line in text.splitlines() if len(line) > MAX_WIDTH]
    assert not too_wide, f"{name}: lines over {MAX_WIDTH} columns: {too_wide}"
    check_golden(name, text)


def test_healthy_node_takes_two_more_pods_one_per_numa_node():
    text = render_topology(topology_of(case_snapshot("healthy")))
    assert "npu-node-01: 2 more Pods of serving/npu-rdma fit" in text
    rows = [line.split("│") for line in text.splitlines() if line.startswith("│")]
    numa0 = [row[1] for row in rows if "rbln" in row[1] or "ens" in row[1]]
    numa1 = [row[3] for row in rows if "rbln" in row[3] or "ens" in row[3]]
    assert len(numa0) == len(numa1) == 6
    assert all("free → #1" in cell for cell in numa0)
    assert all("free → #2" in cell for cell in numa1)


def test_half_allocated_names_the_holder_once_and_fits_one_more():
    text = render_topology(topology_of(case_snapshot("half-allocated")))
    assert "1 more Pod of serving/npu-rdma fit" in text
    assert text.count("held by A") == 6  # 4 NPUs + 2 NICs of one claim
    legend = [line for line in text.splitlines() if line.startswith("  A  ")]
    assert len(legend) == 1 and "serving/coder-prefill-" in legend[0] and "claim coder-prefill-" in legend[0]


def test_one_nic_per_numa_says_why_nothing_fits():
    text = render_topology(topology_of(case_snapshot("one-nic-per-numa")))
    assert "0 more Pods" in text
    assert "why not:" in text


def test_nics_without_numa_are_drawn_unplaced():
    text = render_topology(topology_of(case_snapshot("nics-without-numa")))
    assert "unplaced: no numaNode" in text
    unplaced = text[text.index("unplaced") :]
    assert unplaced.count("no numaNode") >= 5  # the title, and each RDMA NIC's reason
    assert "0 more Pods" in text


def test_rdma_disabled_marks_every_nic_unusable():
    text = render_topology(topology_of(case_snapshot("rdma-disabled")))
    nic_lines = [line for line in text.splitlines() if "ens" in line or "eno1" in line]
    assert nic_lines and all(
        line.count("✗ rdma=false") == line.count("ens") + line.count("eno1") for line in nic_lines
    )


def test_wide_adds_device_names_and_pci_addresses_and_numa_hints():
    snapshot = case_snapshot("healthy")
    text = render_topology(topology_of(snapshot), wide=True)
    for device in (d for s in snapshot.slices for d in s.devices):
        assert device.name in text
    assert "0000:18:00.0" in text  # rbln0's pciBusID
    assert "0000:54:00.0" in text  # a NIC's dra.net/pciAddress


def test_colour_only_when_asked_and_same_drawing_underneath():
    topology = topology_of(case_snapshot("half-allocated"))
    plain = render_topology(topology)
    coloured = render_topology(topology, color=True)
    assert "\x1b[" not in plain and "\x1b[" in coloured
    assert click.unstyle(coloured) == plain


def test_node_drawing_for_why_is_the_node_block():
    snapshot = case_snapshot("half-allocated")
    view = node_view(snapshot, "npu-node-01", namespace=NAMESPACE)
    drawing = render_node(view.topology, view.rct)
    assert drawing.startswith("npu-node-01: 1 more Pod of serving/npu-rdma fit")
    assert drawing in render_topology(topology_of(snapshot))
