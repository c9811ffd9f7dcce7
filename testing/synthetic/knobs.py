"""The knobs of a synthetic cluster (the names it is built from live in kubectl_rbln.domain).

Why: one frozen dataclass lists every way a cluster can differ from the healthy reference
cluster, so a scenario is a handful of keyword arguments and a benchmark can set any of them
from the command line.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

CONTROL_PLANE_TAINT = {"key": "node-role.kubernetes.io/control-plane", "effect": "NoSchedule"}
API_VERSIONS = ("v1", "v1beta2", "v1beta1")


@dataclass(frozen=True)
class Knobs:
    """Every way the synthetic cluster can differ from the healthy reference cluster."""

    # topology
    npu_nodes: int = 2
    control_plane: bool = True
    numa_per_node: int = 2
    npus_per_numa: int = 4
    nics_per_numa: int = 2  # RDMA-capable backend NICs per NUMA node
    mgmt_nic: bool = True
    kubernetes_version: str = "v1.34.2"
    # workload
    namespace: str = "serving"
    release: str = "coder"
    prefill_running: int = 1
    decode_running: int = 1
    prefill_pending: int = 0
    decode_pending: int = 1
    pod_mode: str = "dra"  # "dra" | "device-plugin" (extended resources, no claim)
    prefill_rds_selector: bool = True  # prefill Pods (LMCache on RDS) select rebellions.ai/rds.present=true
    node_rds_label: bool = True
    memlock_crash: bool = False  # the first running decode Pod's modelserver crash-loops
    captures: bool = True  # PodLog / ExecCapture items for running Pods
    # DRA objects
    drop_device_classes: tuple[str, ...] = ()
    extended_resource_name: bool = False  # npu.rebellions.ai class carries extendedResourceName
    drop_slices: tuple[str, ...] = ()  # drivers that publish no ResourceSlice
    empty_slices: tuple[str, ...] = ()  # drivers that publish slices with zero devices
    incomplete_pools: tuple[str, ...] = ()  # drivers whose pool says 2 slices but publishes 1
    rct: str | None = "numa-aligned"  # one of domain.RECIPES, or None: the RCT was never applied
    claim_created: bool = True  # False: Pending Pods have no resourceClaimStatuses
    distinct_dropped: bool = False  # stored RCT lost distinctAttribute (DRAConsumableCapacity off)
    npu_selector_dranet_numa: int | None = None  # adds `device.attributes["dra.net"].numaNode == N` to npu
    # device attributes
    nic_numa_standard: bool = True  # NICs publish resource.kubernetes.io/numaNode (dranet main only)
    nic_pcie_root: bool = True
    npu_numa: bool = True
    npu_numa_mirror: bool = True  # NPUs mirror NUMA as dra.net/numaNode (newer RBLN driver)
    npu_pcie_root_format: str = "pci"  # "pci" (pci0000:16) | "bdf" (old v0.1.x driver: 0000:16:02.0)
    nic_vendor: str = "broadcom"  # "broadcom" | "mellanox"
    nic_rdma: bool = True  # False: the vendor RDMA driver (bnxt_re) is not loaded
    nics_share_pcie_root: bool = False  # NIC pairs are two ports of one card (one pcieRoot)
    nic_roots_shared_with_npus: bool = False  # NIC j sits under NPU j's root complex
    # nodes
    device_plugin_allocatable: bool = False  # rebellions.ai/ATOM and rdma/hca in allocatable
    dra_npu: bool = True  # the NPU operator runs its DRA driver (class + slices)
    device_node_taint: tuple[str, str, str] | None = None  # (key, value, effect) on every NPU node

    def replace(self, **changes: Any) -> Knobs:
        return dataclasses.replace(self, **changes)
