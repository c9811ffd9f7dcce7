"""`pod-devices` cases from real dranet and RBLN device shapes: one running Pod per finding, plus
healthy Pods that must stay clean and Pods whose probe fails, in one bundle.

The cluster is the synthetic reference cluster (RBLN-CA25 NPUs, Broadcom BCM57508 NICs published
with dranet's attribute set). Three things make it what current dranet produces:

- dranet publishes no `dra.net/rdmaDevice` (google/dranet pkg/apis/attributes.go at 7b7661a: ifName,
  pciAddress, rdma, ... and no RDMA device name), so the Pod's RDMA devices can only be matched by
  PCI address; the attribute is removed from every NIC here.
- dranet reports where it put each NIC in the claim's `status.devices[]` (`networkData.interfaceName`,
  `hardwareAddress`, `ips`, condition `Ready`/`NetworkDeviceReady`, and `RDMALinkReady` when it moved
  the RDMA link in exclusive mode: pkg/driver/nri_hooks.go runPodSandbox). It may rename the netdev
  (pkg/driver/hostdevice.go nsAttachNetdev, `interface.name`); the `renamed` case does.
- dranet moves the netdev (RunPodSandbox) and injects /dev/infiniband/uverbsN + rdma_cm (NRI
  CreateContainer, pkg/driver/nri_hooks.go createContainer) separately, so each can fail alone.

RBLN: /dev/rbln<N> per allocated NPU, /dev/rsd0 for a multi-NPU claim, /dev/rblnfs0 on RDS nodes
(the RDS CDI spec in ../shared/reference/samples/rbln-rds-cdi-spec.yaml). Device health: the
container's `allocatedResourcesStatus` (kubernetes/api core/v1/types.go v0.36.0 ResourceStatus /
ResourceHealth: name `claim:<claim>/<request>`, resourceID `<driver>/<pool>/<device>`).

Each probe is what PROBE_SCRIPT prints in that Pod (`format_probe_output`), recorded as an
ExecCapture, so the same bundle answers `pod-devices -f` and, through `kubectl rbln serve`, a live
run with exec over websocket.
"""

from __future__ import annotations

from typing import Any

from kubectl_rbln.cluster.exec_probe import MAX_OUTPUT, PROBE_COMMAND, PROBE_COMMAND_V1, format_probe_output
from kubectl_rbln.domain import (
    NIC_DRIVER,
    NIC_RESOURCE_PREFIX,
    NPU_DRIVER,
    NPU_RESOURCE_PREFIX,
    PCI_ADDRESS_ATTR,
    RDMA_DEVICE_ATTR,
    RDS_LABEL,
)
from testing.synthetic import build_cluster
from testing.synthetic.objects import ClusterObjects

NS = "serving"
NO_SHELL = (
    'OCI runtime exec failed: exec failed: unable to start container process: exec: "sh": '
    "executable file not found in $PATH: unknown"
)
ESCAPES = "\x1b]52;c;cHduZWQ=\x07\x1b[2J\x1b[H\x9b31m"
HANG_SECONDS = 30.0  # longer than any --timeout the tests give the hanging case

# case -> the finding slugs it must show (healthy and failing cases show none)
EXPECTED: dict[str, list[str]] = {
    "healthy-prefill": [],
    "healthy-decode": [],
    "shared": [],
    "renamed": [],
    "old-capture": [],
    "nic-not-moved": ["nic-not-in-pod"],
    "rdma-missing": ["rdma-device-missing"],
    "uverbs-missing": ["uverbs-missing"],
    "port-down": ["rdma-port-down"],
    "npu-extra": ["npu-not-allocated"],
    "npu-missing": ["npu-missing"],
    "rsd-missing": ["rsd-group-missing"],
    "rds-missing": ["rds-devices-missing"],
    "memlock": ["memlock-limit"],
    "unhealthy": ["device-unhealthy"],
    "escapes": [],
    "device-plugin": ["npu-count-mismatch"],
    "old-capture-short": ["nic-count-mismatch"],
}
# case -> why it could not be probed (probe.reason)
FAILING: dict[str, str] = {
    "forbidden": "forbidden",
    "no-shell": "no-shell",
    "hang": "timeout",
    "too-large": "too-large",
    "pending": "not-running",
}
RDS_NODES = ("npu-node-01", "npu-node-02", "npu-node-03", "npu-node-04", "npu-node-05", "npu-node-06")


class Cases(ClusterObjects):
    """The cluster's objects, with lookups by role and the healthy probe of each Pod."""

    def __init__(self) -> None:
        self.objects = build_cluster(
            seed=5, captures=False, npu_nodes=12, prefill_running=12, decode_running=10, decode_pending=1
        )
        self.hca: dict[tuple[str, str], str] = {}
        for obj in self.objects:
            if obj["kind"] == "Node" and obj["metadata"]["name"] not in RDS_NODES:
                obj["metadata"]["labels"].pop(RDS_LABEL, None)
            if obj["kind"] == "ResourceSlice" and obj["spec"]["driver"] == NIC_DRIVER:
                pool = obj["spec"]["pool"]["name"]
                for device in obj["spec"]["devices"]:
                    hca = device["attributes"].pop(RDMA_DEVICE_ATTR, None)  # current dranet: not published
                    if hca:
                        self.hca[(pool, device["name"])] = hca["string"]

    def pods(self, running: bool = True) -> list[str]:
        """Running Pods on RDS nodes first, then the others, each group by name."""
        pods = [p for p in self.of_kind("Pod") if (p["status"]["phase"] == "Running") == running]
        pods.sort(key=lambda p: (p["spec"].get("nodeName") not in RDS_NODES, p["metadata"]["name"]))
        return [p["metadata"]["name"] for p in pods]

    def results(self, pod: str, driver: str) -> list[dict[str, Any]]:
        results = self.claim(pod)["status"]["allocation"]["devices"]["results"]
        return [r for r in results if r["driver"] == driver]

    def network_status(self, pod: str, names: list[str] | None = None) -> None:
        """The claim's status.devices as dranet writes it once the NICs are in the Pod."""
        devices = []
        for index, result in enumerate(self.results(pod, NIC_DRIVER)):
            attrs = self.device(result["pool"], result["device"])["attributes"]
            name = names[index] if names else attrs["dra.net/ifName"]["string"]
            devices.append(
                {
                    "driver": NIC_DRIVER,
                    "pool": result["pool"],
                    "device": result["device"],
                    "conditions": [
                        {
                            "type": "Ready",
                            "status": "True",
                            "reason": "NetworkDeviceReady",
                            "message": "",
                            "lastTransitionTime": "2026-09-14T01:00:05Z",
                        }
                    ],
                    "networkData": {
                        "interfaceName": name,
                        "hardwareAddress": attrs["dra.net/mac"]["string"],
                        "ips": [attrs["dra.net/ipv4"]["string"] + "/24"],
                    },
                }
            )
        self.claim(pod)["status"]["devices"] = devices

    def healthy(self, pod: str, names: list[str] | None = None) -> dict[str, Any]:
        """format_probe_output() arguments for a Pod that got exactly its allocation (exclusive mode)."""
        npus = [r["device"] for r in self.results(pod, NPU_DRIVER)]
        interfaces, rdma, hcas, uverbs = [], [], [], []
        for index, result in enumerate(self.results(pod, NIC_DRIVER)):
            attrs = self.device(result["pool"], result["device"])["attributes"]
            pci = attrs[PCI_ADDRESS_ATTR]["string"]
            name = names[index] if names else attrs["dra.net/ifName"]["string"]
            hca = self.hca[(result["pool"], result["device"])]
            interfaces.append((name, "up", "9000", pci))
            rdma.append((hca, "ACTIVE", "Ethernet", pci, f"uverbs{index}"))
            hcas.append(hca)
            uverbs.append((f"uverbs{index}", hca, "yes"))
        node = self.pod(pod)["spec"]["nodeName"]
        return {
            "interfaces": [("eth0", "up", "1500", ""), *interfaces],
            "rdma": rdma,
            "infiniband": hcas,
            "uverbs": uverbs,
            "npus": npus,
            "rsd": ["rsd0"] if len(npus) > 1 else [],
            "rds": ["rblnfs0"] if node in RDS_NODES else [],
            "netns": "N",
        }


def capture(pod: str, stdout: str = "", **extra: Any) -> dict[str, Any]:
    item: dict[str, Any] = {
        "apiVersion": "kubectl-rbln/v1",
        "kind": "ExecCapture",
        "metadata": {"name": pod, "namespace": NS},
        "container": "modelserver",
        "command": list(extra.pop("command", PROBE_COMMAND)),
        "stdout": stdout,
        "stderr": "",
        "exitCode": 0,
    }
    item.update(extra)
    return item


def build_cases() -> tuple[list[dict[str, Any]], dict[str, str]]:
    """The bundle's objects and case -> Pod name."""
    cases = Cases()
    running = cases.pods()
    order = [c for c in [*EXPECTED, *FAILING] if c not in ("pending", "healthy-decode")]
    # cases that need an RDS node come first: running[0..] are on RDS nodes
    rds_first = ["healthy-prefill", "rds-missing", "npu-extra", "escapes"]
    order = rds_first + [c for c in order if c not in rds_first]
    names = dict(zip(order, running[:-1], strict=True))
    names["healthy-decode"] = running[-1]  # a node without RDS: none expected, none seen
    names["pending"] = cases.pods(running=False)[0]
    objects = cases.objects
    for pod in running:
        cases.network_status(pod)

    def add(case: str, **changes: Any) -> None:
        args = {**cases.healthy(names[case]), **changes}
        objects.append(capture(names[case], format_probe_output(**args)))

    add("healthy-prefill")
    add("healthy-decode")
    one = cases.healthy(names["shared"])  # shared mode: the host's 4 HCAs listed, 2 uverbs injected
    extra = [("bnxt_re6", "ACTIVE", "Ethernet", "0000:b1:00.0", "uverbs6")]
    add("shared", netns="Y", rdma=one["rdma"] + extra, infiniband=[*one["infiniband"], "bnxt_re6"])
    cases.network_status(names["renamed"], ["net1", "net2"])  # dranet's interface.name config
    renamed = cases.healthy(names["renamed"], ["net1", "net2"])
    renamed["interfaces"] = [(n, s, m, "") for n, s, m, _ in renamed["interfaces"]]  # no device link
    add("renamed", **renamed)
    old = cases.healthy(names["old-capture"])
    objects.append(
        capture(
            names["old-capture"],
            format_probe_output(**{**old, "version": 1}),
            command=PROBE_COMMAND_V1,
        )
    )
    one = cases.healthy(names["nic-not-moved"])  # the second NIC stayed on the host (and its HCA)
    add(
        "nic-not-moved",
        interfaces=one["interfaces"][:2],
        rdma=one["rdma"][:1],
        infiniband=one["infiniband"][:1],
        uverbs=one["uverbs"][:1],
    )
    one = cases.healthy(names["rdma-missing"])  # exclusive mode: the RDMA link of NIC 2 not moved
    add("rdma-missing", rdma=one["rdma"][:1], infiniband=one["infiniband"][:1], uverbs=one["uverbs"][:1])
    one = cases.healthy(names["uverbs-missing"])  # the case: 2 RDMA NICs, 1 uverbs device
    add("uverbs-missing", netns="Y", uverbs=one["uverbs"][:1])
    one = cases.healthy(names["port-down"])
    name, _, link, pci, uverbs = one["rdma"][1]
    add("port-down", rdma=[one["rdma"][0], (name, "DOWN", link, pci, uverbs)])
    one = cases.healthy(names["npu-extra"])  # a privileged container: every NPU of the node
    add("npu-extra", npus=[f"rbln{i}" for i in range(8)])
    one = cases.healthy(names["npu-missing"])
    add("npu-missing", npus=one["npus"][:3])
    add("rsd-missing", rsd=[])
    add("rds-missing", rds=[])
    add("memlock", memlock="8192")
    add("unhealthy")
    one = cases.healthy(names["old-capture-short"])  # v1: one HCA and its uverbs device, counted
    v1 = {**one, "version": 1, "infiniband": one["infiniband"][:1], "uverbs": one["uverbs"][:1]}
    objects.append(capture(names["old-capture-short"], format_probe_output(**v1), command=PROBE_COMMAND_V1))
    device_plugin(cases, names["device-plugin"])
    one = cases.healthy(names["device-plugin"])  # counts only: 3 of its 4 NPUs, both uverbs open
    add("device-plugin", npus=one["npus"][:3])
    unhealthy(cases, names["unhealthy"])
    one = cases.healthy(names["escapes"])
    hostile = [("veth" + ESCAPES, "up" + ESCAPES, "1500", ""), *one["interfaces"]]  # a Pod's own names
    add(
        "escapes",
        infiniband=[one["infiniband"][0] + ESCAPES],
        memlock="unlimited" + ESCAPES,
        interfaces=hostile,
    )
    forbidden = {"reason": "forbidden", "message": "exec forbidden: recorded by dump"}
    objects.append(capture(names["forbidden"], error=forbidden))
    objects.append(capture(names["no-shell"], stderr=NO_SHELL + ESCAPES + "\n", exitCode=126))
    stdout = format_probe_output(**cases.healthy(names["hang"]))
    objects.append(capture(names["hang"], stdout, delaySeconds=HANG_SECONDS))
    objects.append(capture(names["too-large"], "x" * (MAX_OUTPUT + 1)))
    return objects, names


def device_plugin(cases: Cases, pod: str) -> None:
    """The Pod as device-plugin mode writes it: extended resources, no claim (seed 000: `rebellions.ai/ATOM`
    NPUs, `rdma/hca` NICs); the node's allocation is the same devices."""
    obj = cases.pod(pod)
    obj["spec"].pop("resourceClaims", None)
    obj["status"].pop("resourceClaimStatuses", None)
    resources = obj["spec"]["containers"][0]["resources"]
    resources.pop("claims", None)
    for kind in ("requests", "limits"):
        resources.setdefault(kind, {}).update(
            {NPU_RESOURCE_PREFIX + "ATOM": "4", NIC_RESOURCE_PREFIX + "hca": "2"}
        )


def unhealthy(cases: Cases, pod: str) -> None:
    """The kubelet's allocatedResourcesStatus with one NPU reported Unhealthy by the RBLN driver."""
    obj = cases.pod(pod)
    statuses = []
    for result in cases.results(pod, NPU_DRIVER) + cases.results(pod, NIC_DRIVER):
        bad = result["device"] == "rbln2"
        health: dict[str, Any] = {
            "resourceID": f"{result['driver']}/{result['pool']}/{result['device']}",
            "health": "Unhealthy" if bad else "Healthy",
        }
        if bad:
            health["message"] = "ECC error count exceeded threshold"
        statuses.append(health)
    status = obj["status"]["containerStatuses"][0]
    # the container names its claim without a request: "claim:<claim>" (ResourceStatus.Name)
    status["allocatedResourcesStatus"] = [{"name": "claim:npu-rdma", "resources": statuses}]
