"""The devices of one reference node, with the attributes each driver publishes.

Why: the attribute names, types and value formats are what a diagnosis reads, so they follow the
drivers' sources (ecosystem-facts §1.1, §2.2, §9.9): the RBLN NPU driver publishes unqualified
names in its own domain plus the standard resource.kubernetes.io ones; dranet publishes
fully qualified dra.net/* names. Each knob removes or changes exactly one of them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kubectl_rbln.domain import (
    DRANET_NUMA_ATTR,
    IF_NAME_ATTR,
    NIC_DRIVER,
    NPU_DRIVER,
    NUMA_ATTR,
    PCI_ADDRESS_ATTR,
    PCI_BUS_ID_ATTR,
    PCI_SUBSYSTEM_ATTR,
    PCIE_ROOT_ATTR,
    RDMA_ATTR,
    RDMA_DEVICE_ATTR,
    REFERENCE_SUBSYSTEM,
)
from testing.synthetic.ids import Ids
from testing.synthetic.knobs import Knobs


@dataclass
class Device:
    name: str
    driver: str
    node: str
    numa: int
    attributes: dict[str, dict[str, Any]]
    capacity: dict[str, dict[str, str]] = field(default_factory=dict)
    rdma_device: str | None = None
    mgmt: bool = False

    def attr(self, name: str) -> Any:
        entry = self.attributes.get(name)
        return None if entry is None else next(iter(entry.values()))


def _bus_layout(knobs: Knobs) -> tuple[int, int]:
    """(segment, step): NUMA node n owns PCI buses [n*segment, (n+1)*segment)."""
    segment = 0x100 // knobs.numa_per_node
    slots = knobs.npus_per_numa + knobs.nics_per_numa + 2
    step = (segment - 0x08) // slots
    if step < 2:
        raise ValueError("topology does not fit 256 PCI buses; use fewer devices per NUMA node")
    return segment, step


def npu_devices(node: str, knobs: Knobs, ids: Ids) -> list[Device]:
    segment, step = _bus_layout(knobs)
    devices = []
    for numa in range(knobs.numa_per_node):
        for i in range(knobs.npus_per_numa):
            index = numa * knobs.npus_per_numa + i
            root = numa * segment + 0x08 + (i + 1) * step
            if knobs.npu_pcie_root_format == "bdf":
                pcie_root = f"0000:{root:02x}:02.0"
            else:
                pcie_root = f"pci0000:{root:02x}"
            attrs: dict[str, dict[str, Any]] = {
                "type": {"string": "npu"},
                "productName": {"string": "RBLN-CA25"},
                "pciDeviceID": {"string": "1250"},
                "sid": {"string": "RBL25" + ids.hex(11, "sid", node, index).upper()},
                "uuid": {"string": ids.uid("npu-uuid", node, index)},
                "firmwareVersion": {"string": "1.9.4"},
                "driverVersion": {"string": "2.0.3"},
                "pciLinkSpeed": {"string": "32.0 GT/s PCIe"},
                "pciLinkWidth": {"string": "16"},
                PCI_BUS_ID_ATTR: {"string": f"0000:{root + 1:02x}:00.0"},
                PCIE_ROOT_ATTR: {"string": pcie_root},
            }
            if knobs.npu_numa:
                attrs[NUMA_ATTR] = {"int": numa}
                if knobs.npu_numa_mirror:
                    attrs[DRANET_NUMA_ATTR] = {"int": numa}
            devices.append(
                Device(f"rbln{index}", NPU_DRIVER, node, numa, attrs, {"memory": {"value": "64Gi"}})
            )
    return devices


_VENDORS = {
    "broadcom": (
        "Broadcom Inc. and subsidiaries",
        "BCM57508 NetXtreme-E 10Gb/25Gb/40Gb/50Gb/100Gb/200Gb Ethernet",
        REFERENCE_SUBSYSTEM,
        "bnxt_re",
    ),
    "mellanox": ("Mellanox Technologies", "MT2910 Family [ConnectX-7]", "0101", "mlx5_"),
}


def nic_devices(node: str, node_index: int, knobs: Knobs, ids: Ids) -> list[Device]:
    segment, step = _bus_layout(knobs)
    vendor, product, subsystem, rdma_prefix = _VENDORS[knobs.nic_vendor]
    devices = []
    rdma_index = 0
    for numa in range(knobs.numa_per_node):
        for j in range(knobs.nics_per_numa):
            if knobs.nics_share_pcie_root:
                slot, function = j // 2, j % 2
            else:
                slot, function = j, 0
            if knobs.nic_roots_shared_with_npus:
                root = numa * segment + 0x08 + (slot % knobs.npus_per_numa + 1) * step
                bus = root + 2
            else:
                root = numa * segment + 0x08 + (knobs.npus_per_numa + slot + 1) * step
                bus = root + 1
            address = f"0000:{bus:02x}:00.{function}"
            rdma_device = f"{rdma_prefix}{rdma_index}" if knobs.nic_rdma else None
            rdma_index += 1
            attrs = _nic_attributes(
                if_name=f"ens{bus}f{function}np{function}",
                address=address,
                mac=_mac(ids, node, address),
                vendor=vendor,
                product=product,
                subsystem=subsystem,
                numa=numa,
                mtu=9000,
                rdma_device=rdma_device,
                ipv4=f"10.{100 + numa * 16 + j}.{node_index // 250}.{node_index % 250 + 1}",
            )
            if knobs.nic_pcie_root:
                attrs[PCIE_ROOT_ATTR] = {"string": f"pci0000:{root:02x}"}
            if knobs.nic_numa_standard:
                attrs[NUMA_ATTR] = {"int": numa}
            devices.append(Device(_pci_name(address), NIC_DRIVER, node, numa, attrs, rdma_device=rdma_device))
    if knobs.mgmt_nic:
        address = "0000:02:00.0"
        attrs = _nic_attributes(
            if_name="eno1",
            address=address,
            mac=_mac(ids, node, address),
            vendor="Intel Corporation",
            product="Ethernet Controller X710 for 10GbE SFP+",
            subsystem="0101",
            numa=0,
            mtu=1500,
            rdma_device=None,
            ipv4=f"192.168.{node_index // 250}.{node_index % 250 + 10}",
        )
        if knobs.nic_pcie_root:
            attrs[PCIE_ROOT_ATTR] = {"string": "pci0000:00"}
        if knobs.nic_numa_standard:
            attrs[NUMA_ATTR] = {"int": 0}
        devices.append(Device(_pci_name(address), NIC_DRIVER, node, 0, attrs, mgmt=True))
    return devices


def _nic_attributes(
    *,
    if_name: str,
    address: str,
    mac: str,
    vendor: str,
    product: str,
    subsystem: str,
    numa: int,
    mtu: int,
    rdma_device: str | None,
    ipv4: str,
) -> dict[str, dict[str, Any]]:
    """dranet's attribute set (pkg/inventory/db.go names), fully qualified as dranet publishes them."""
    attrs: dict[str, dict[str, Any]] = {
        "dra.net/alias": {"string": ""},
        "dra.net/encapsulation": {"string": "ether"},
        IF_NAME_ATTR: {"string": if_name},
        "dra.net/ipv4": {"string": ipv4},
        "dra.net/mac": {"string": mac},
        "dra.net/mtu": {"int": mtu},
        DRANET_NUMA_ATTR: {"int": numa},
        PCI_ADDRESS_ATTR: {"string": address},
        "dra.net/pciDevice": {"string": product},
        PCI_SUBSYSTEM_ATTR: {"string": subsystem},
        "dra.net/pciVendor": {"string": vendor},
        RDMA_ATTR: {"bool": rdma_device is not None},
        "dra.net/sriov": {"bool": False},
        "dra.net/state": {"string": "up"},
        "dra.net/type": {"string": "device"},
        "dra.net/virtual": {"bool": False},
    }
    if rdma_device is not None:
        attrs[RDMA_DEVICE_ATTR] = {"string": rdma_device}
    return attrs


def _pci_name(address: str) -> str:
    return "pci-" + address.replace(":", "-").replace(".", "-")


def _mac(ids: Ids, node: str, address: str) -> str:
    raw = ids.hex(10, "mac", node, address)
    return "bc:97:e1:" + ":".join(raw[i : i + 2] for i in range(4, 10, 2))


def device_json(device: Device) -> dict[str, Any]:
    out: dict[str, Any] = {"attributes": device.attributes, "name": device.name}
    if device.capacity:
        out["capacity"] = device.capacity
    return out
