"""The serving stack's names, spelled once (placeholder until the domain module lands)."""

DEFAULT_RCT = "npu-rdma"
REFERENCE_CLASSES = {"npu.rebellions.ai": "npu.rebellions.ai", "dranet": "dra.net"}
CLASS_CREATORS = {
    "npu.rebellions.ai": "RBLN NPU Operator (DRA mode)",
    "dranet": "you (dranet's install creates no DeviceClass)",
}
NPU_DRIVER = "npu.rebellions.ai"
NIC_DRIVER = "dra.net"
PCIE_ROOT = "resource.kubernetes.io/pcieRoot"
DEVICE_RESOURCE_PREFIXES = ("rebellions.ai/", "rdma/")
