"""bench/gen's worst-case shapes (issue 26) build what their names promise, so a benchmark row named
after a shape times that shape: 64-NPU nodes on 8 NUMA nodes, the claims no node can satisfy, PCI
addresses that never repeat across nodes, and a share of nodes unlike the others."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]


def gen(tmp_path: Path, *options: str, nodes: int = 20) -> list[dict[str, Any]]:
    out = tmp_path / "cluster.json"
    subprocess.run(
        [sys.executable, str(REPO / "bench" / "gen"), "--nodes", str(nodes), "--out", str(out), *options],
        check=True,
        capture_output=True,
        timeout=120,
    )
    return json.loads(out.read_text(encoding="utf-8"))["items"]


def npus(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        d
        for i in items
        if i["kind"] == "ResourceSlice" and i["spec"]["driver"] == "npu.rebellions.ai"
        for d in i["spec"]["devices"]
    ]


def unallocated_claims(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [i for i in items if i["kind"] == "ResourceClaim" and not i.get("status", {}).get("allocation")]


@pytest.mark.parametrize(("shape", "requests"), [("numa9", 9), ("over16", 17)])
def test_shapes_ask_more_than_a_64_npu_node_can_give(tmp_path: Path, shape: str, requests: int) -> None:
    items = gen(tmp_path, "--shape", shape, "--pending", "5")
    per_node = Counter(
        i["metadata"]["name"].rsplit("-npu.rebellions.ai-", 1)[0]
        for i in items
        if i["kind"] == "ResourceSlice" and i["spec"]["driver"] == "npu.rebellions.ai"
    )
    assert set(per_node.values()) == {1}
    assert Counter(
        len(s["spec"]["devices"])
        for s in items
        if s["kind"] == "ResourceSlice" and s["spec"]["driver"] == "npu.rebellions.ai"
    ) == {64: 20}
    numa = {d["attributes"]["resource.kubernetes.io/numaNode"]["int"] for d in npus(items)}
    assert numa == set(range(8))
    pending = [p for p in items if p["kind"] == "Pod" and p["status"]["phase"] == "Pending"]
    assert len(pending) == 5
    assert not [p for p in items if p["kind"] == "Pod" and p["status"]["phase"] == "Running"]
    claims = unallocated_claims(items)
    assert len(claims) == 5
    template = next(i for i in items if i["kind"] == "ResourceClaimTemplate")
    for devices in [c["spec"]["devices"] for c in claims] + [template["spec"]["spec"]["devices"]]:
        assert len(devices["requests"]) == requests
        assert all(r["exactly"]["count"] == 1 for r in devices["requests"])
    applied = json.loads(
        template["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"]
    )
    assert len(applied["spec"]["spec"]["devices"]["requests"]) == requests


def test_unique_devices_repeat_no_pci_address_and_odd_nodes_differ(tmp_path: Path) -> None:
    items = gen(tmp_path, "--unique-devices", "--odd-nodes", "0.05", "--running", "0")
    devices = [d for i in items if i["kind"] == "ResourceSlice" for d in i["spec"]["devices"]]
    for attribute in ("resource.kubernetes.io/pciBusID", "dra.net/pciAddress", "uuid", "dra.net/mac"):
        values = [d["attributes"][attribute]["string"] for d in devices if attribute in d["attributes"]]
        assert values and len(values) == len(set(values)), attribute
    firmware = Counter(d["attributes"]["firmwareVersion"]["string"] for d in npus(items))
    assert firmware == {"1.9.4": 19 * 8, "1.8.0": 1 * 8}  # 1 node in 20
