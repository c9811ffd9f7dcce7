"""The clusters of the recipe decisions: a synthetic cluster per story, with the knob or edit that makes it.

Every cluster has its prefill and decode Pods Pending (nothing allocated yet), so the suggestion
is verified against real Pods. Stories the builder has no knob for (unqualified names, NICs on
one node only, the management NIC listed first) are small edits of the built objects.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from testing.synthetic import ClusterBuilder, Knobs

SEED = 11
PENDING = {"prefill_running": 0, "decode_running": 0, "prefill_pending": 1, "decode_pending": 1}


def strip_dranet_domain(objects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """dranet publishing its attributes unqualified (`rdma`, not `dra.net/rdma`): the same to allocation."""
    out = copy.deepcopy(objects)
    for obj in out:
        if obj.get("kind") == "ResourceSlice" and obj["spec"]["driver"] == "dra.net":
            for device in obj["spec"]["devices"]:
                body = device.get("basic", device)
                body["attributes"] = {k.removeprefix("dra.net/"): v for k, v in body["attributes"].items()}
    return out


def nics_on_first_node_only(objects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """dranet runs on npu-node-01 only."""
    return [
        o
        for o in objects
        if not (
            o.get("kind") == "ResourceSlice"
            and o["spec"]["driver"] == "dra.net"
            and o["spec"].get("nodeName") != "npu-node-01"
        )
    ]


def mgmt_nic_first(objects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The management NIC (no RDMA, no rdmaDevice) is devices[0] of each dra.net slice."""
    out = copy.deepcopy(objects)
    for obj in out:
        if obj.get("kind") == "ResourceSlice" and obj["spec"]["driver"] == "dra.net":
            devices = obj["spec"]["devices"]
            obj["spec"]["devices"] = devices[-1:] + devices[:-1]
    return out


@dataclass(frozen=True)
class Story:
    name: str
    knobs: dict[str, Any]
    recipe: str | None  # the recipe suggest-rct must choose (None: no RCT can fix it)
    edit: Callable[[list[dict[str, Any]]], list[dict[str, Any]]] | None = None
    verdicts: dict[tuple[str, str], str] = field(default_factory=dict)  # (attribute, driver) -> verdict
    adaptation: str | None = None  # a phrase the stderr must show
    fits_on: tuple[str, ...] = ("npu-node-01", "npu-node-02")

    def objects(self, api_version: str = "v1") -> list[dict[str, Any]]:
        built = ClusterBuilder(SEED, api_version, Knobs(**{**PENDING, **self.knobs})).build()
        return self.edit(built) if self.edit else built

    def write(self, directory: Path, api_version: str = "v1") -> Path:
        path = directory / f"{self.name}-{api_version}.json"
        path.write_text(
            json.dumps({"apiVersion": "v1", "kind": "List", "items": self.objects(api_version)}),
            encoding="utf-8",
        )
        return path


NUMA_STD = "resource.kubernetes.io/numaNode"
PCIE = "resource.kubernetes.io/pcieRoot"
NIC, NPU = "dra.net", "npu.rebellions.ai"

STORIES = [
    Story(
        "all-present",
        {},
        "numa-aligned",
        verdicts={
            (NUMA_STD, NIC): "present",
            (NUMA_STD, NPU): "present",
            (PCIE, NIC): "present",
            ("dra.net/rdma", NIC): "present",
            ("dra.net/pciSubsystem", NIC): "present",
        },
    ),
    Story(
        "nic-numanode-missing",
        {"nic_numa_standard": False},
        "numa-aligned",
        verdicts={(NUMA_STD, NIC): "absent", (NUMA_STD, NPU): "present"},
        adaptation="matchAttribute dra.net/numaNode",
    ),
    Story(
        "numanode-missing-no-mirror",
        {"nic_numa_standard": False, "npu_numa_mirror": False},
        "numa-unaligned",
        verdicts={(NUMA_STD, NIC): "absent", (NUMA_STD, NPU): "present"},
    ),
    Story(
        "pcieroot-missing",
        {"nic_pcie_root": False},
        "numa-unaligned",
        verdicts={(PCIE, NIC): "absent", (NUMA_STD, NIC): "present"},
    ),
    Story(
        "unqualified-names",
        {},
        "numa-aligned",
        edit=strip_dranet_domain,
        verdicts={
            ("dra.net/rdma", NIC): "present",
            ("dra.net/pciSubsystem", NIC): "present",
            (NUMA_STD, NIC): "present",
        },
    ),
    Story(
        "bdf-pcieroot",
        {"npu_pcie_root_format": "bdf"},
        "numa-aligned",
        verdicts={(PCIE, NIC): "present", (NUMA_STD, NPU): "present"},
    ),
    Story(
        "mellanox-nics",
        {"nic_vendor": "mellanox"},
        "numa-aligned",
        verdicts={("dra.net/pciSubsystem", NIC): "present"},
        adaptation='pciSubsystem == "0101"',
    ),
    Story("no-rdma-nic", {"nic_rdma": False}, None, verdicts={("dra.net/rdma", NIC): "present"}),
    Story(
        "nics-on-one-node",
        {},
        "numa-aligned",
        edit=nics_on_first_node_only,
        verdicts={("dra.net/rdma", NIC): "partial", (NUMA_STD, NIC): "partial", (NUMA_STD, NPU): "present"},
        fits_on=("npu-node-01",),
    ),
]
BY_NAME = {s.name: s for s in STORIES}
