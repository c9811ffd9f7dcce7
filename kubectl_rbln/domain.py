"""The serving stack's names: drivers, DeviceClasses, labels, attributes and the RCT recipes.

Why: every check, renderer and suggestion speaks of the same few objects (the RBLN NPU driver,
dranet, the chart's `npu-rdma` template, the standard topology attributes). Spelling them here
once keeps a rename (a driver, a label, a recipe) to one line, and the module imports nothing
from the package, so any layer may import it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

# Drivers and their DeviceClasses (ecosystem-facts.md 0.1).
NPU_DRIVER = "npu.rebellions.ai"
NPU_CLASS = NPU_DRIVER  # the NPU operator names its DeviceClass after its driver
NIC_DRIVER = "dra.net"
NIC_CLASS = "dranet"  # dranet's install creates no class; the docs name it this
REFERENCE_CLASSES: dict[str, str] = {NPU_CLASS: NPU_DRIVER, NIC_CLASS: NIC_DRIVER}  # class -> driver

# The chart's ResourceClaimTemplate (values `devices.claimTemplateName`).
DEFAULT_RCT = "npu-rdma"

# Node labels.
NPU_LABEL = "rebellions.ai/npu.present"  # the NPU operator's node feature label
RDS_LABEL = "rebellions.ai/rds.present"  # nodes that host RDS (prefill's LMCache backend)

# Standard device attributes (resource.kubernetes.io, KEP-5491) and dranet's own.
NUMA_ATTR = "resource.kubernetes.io/numaNode"
PCIE_ROOT_ATTR = "resource.kubernetes.io/pcieRoot"
PCI_BUS_ID_ATTR = "resource.kubernetes.io/pciBusID"
DRANET_NUMA_ATTR = "dra.net/numaNode"
RDMA_ATTR = "dra.net/rdma"
RDMA_DEVICE_ATTR = "dra.net/rdmaDevice"
PCI_SUBSYSTEM_ATTR = "dra.net/pciSubsystem"
PCI_ADDRESS_ATTR = "dra.net/pciAddress"
PCI_VENDOR_ATTR = "dra.net/pciVendor"  # dranet: the PCI vendor's name (pci.ids)
PCI_DEVICE_ATTR = "dra.net/pciDevice"  # dranet: the PCI device's name (pci.ids)
IF_NAME_ATTR = "dra.net/ifName"

# The annotation the kubelet-side controller puts on a claim generated for a Pod.
POD_CLAIM_NAME_ANNOTATION = "resource.kubernetes.io/pod-claim-name"

# Extended-resource prefixes of device-plugin mode (no DRA claims).
NPU_RESOURCE_PREFIX = "rebellions.ai/"
NIC_RESOURCE_PREFIX = "rdma/"
DEVICE_RESOURCE_PREFIXES = (NPU_RESOURCE_PREFIX, NIC_RESOURCE_PREFIX)

# The recipes' NIC selector (CEL text, as the user writes it in the RCT).
REFERENCE_SUBSYSTEM = "9140"  # Broadcom BCM57508, the reference node's backend NICs
RDMA_TERM = 'device.attributes["dra.net"].rdma == true'


def nic_selector(subsystem: str | None) -> str:
    """The recipe's NIC selector with its pciSubsystem term set to `subsystem`, or without it (None)."""
    if subsystem is None:
        return RDMA_TERM
    return f'{RDMA_TERM} && device.attributes["dra.net"].pciSubsystem == "{subsystem}"'


NIC_SELECTOR = nic_selector(REFERENCE_SUBSYSTEM)


def nic_model_selector(terms: tuple[tuple[str, str], ...]) -> str:
    """The RDMA term and `== value` on each (qualified dra.net attribute, string value): a NIC model pin."""
    out = RDMA_TERM
    for attribute, value in terms:
        domain, _, name = attribute.partition("/")
        literal = json.dumps(value, ensure_ascii=False)  # a CEL string literal: same quoting and escapes
        out += f' && device.attributes["{domain}"].{name} == {literal}'
    return out


def dranet_numa_selector(numa: int) -> str:
    """A selector pinning a device to one NUMA node by dranet's attribute (a user's NPU selector)."""
    return f'device.attributes["dra.net"].numaNode == {numa}'


@dataclass(frozen=True, slots=True)
class Recipe:
    """One RCT recipe: what it requests and how it constrains the devices.

    `chart` says whether it is one of the chart's reference recipes (what `suggest-rct` writes);
    `pcie-paired` is a user's RCT that only the synthetic clusters apply.
    """

    name: str
    npu_count: int
    nic_count: int  # 0: the recipe requests no NIC
    match_attribute: str | None  # matchAttribute over the NPU and NIC requests
    distinct_nic_attribute: str | None  # distinctAttribute over the NIC request
    template_name: str  # the RCT name the chart gives it
    chart: bool = True


RECIPES: dict[str, Recipe] = {
    r.name: r
    for r in (
        Recipe("numa-aligned", 4, 2, NUMA_ATTR, PCIE_ROOT_ATTR, DEFAULT_RCT),
        Recipe("numa-unaligned", 4, 2, None, None, DEFAULT_RCT),
        Recipe("npu-only", 4, 0, None, None, "npu-only"),
        Recipe("pcie-paired", 1, 1, PCIE_ROOT_ATTR, None, DEFAULT_RCT, chart=False),
    )
}
CHART_RECIPES: tuple[str, ...] = tuple(name for name, r in RECIPES.items() if r.chart)  # strongest first

# Who publishes each reference DeviceClass: a missing class names its creator.
CLASS_CREATORS: dict[str, str] = {
    NPU_CLASS: "RBLN NPU Operator (DRA mode)",
    NIC_CLASS: "you (dranet's install creates no DeviceClass)",
}


@dataclass(frozen=True, slots=True)
class KubeletPlugin:
    """Where a driver's DRA kubelet plugin runs: one DaemonSet Pod per node.

    RBLN: the NPU Operator's DaemonSet `rbln-dra-kubelet-plugin` (label app=<name>) in the namespace the
    operator's chart is installed in (rbln-system in its quickstart). dranet: its install.yaml's DaemonSet
    `dranet` in kube-system (labels app=dranet, k8s-app=dranet).
    """

    driver: str
    namespace: str
    label: str  # key=value, as `kubectl -l` takes it
    name_prefix: str
    installer: str


KUBELET_PLUGINS: dict[str, KubeletPlugin] = {
    NPU_DRIVER: KubeletPlugin(
        NPU_DRIVER,
        "rbln-system",
        "app=rbln-dra-kubelet-plugin",
        "rbln-dra-kubelet-plugin",
        "RBLN NPU Operator",
    ),
    NIC_DRIVER: KubeletPlugin(NIC_DRIVER, "kube-system", "app=dranet", "dranet", "dranet"),
}


def plugin_driver(name: str, labels: dict[str, str]) -> str | None:
    """The driver whose kubelet plugin a Pod is (by its well-known label, else its name), or None."""
    for plugin in KUBELET_PLUGINS.values():
        key, _, value = plugin.label.partition("=")
        if labels.get(key) == value or name.startswith(plugin.name_prefix + "-"):
            return plugin.driver
    return None
