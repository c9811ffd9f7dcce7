"""Test-local bundles for `pod-devices`: a synthetic cluster plus the probe output each Pod would print.

The synthetic package records single by-hand commands; `pod-devices` needs its one
constant probe, so the captures are built here from each Pod's real allocation
(claim results -> slice devices -> rdmaDevice names) and then bent per case.
"""

from __future__ import annotations

from typing import Any

from kubectl_rbln.cluster.exec_probe import PROBE_COMMAND, format_probe_output
from testing.synthetic import build_cluster
from testing.synthetic.objects import ClusterObjects

NS = "serving"


def probe_stdout(**sections: Any) -> str:
    """What PROBE_SCRIPT prints, section by section, in its order."""
    return format_probe_output(**sections)


def capture(
    pod: str,
    stdout: str = "",
    *,
    stderr: str = "",
    exit_code: int = 0,
    container: str = "modelserver",
    delay: float | None = None,
) -> dict[str, Any]:
    item: dict[str, Any] = {
        "apiVersion": "kubectl-rbln/v1",
        "kind": "ExecCapture",
        "metadata": {"name": pod, "namespace": NS},
        "container": container,
        "command": list(PROBE_COMMAND),
        "stdout": stdout,
        "stderr": stderr,
        "exitCode": exit_code,
    }
    if delay is not None:
        item["delaySeconds"] = delay
    return item


class Cluster(ClusterObjects):
    """A synthetic cluster's objects with lookups by role: `pods("prefill")`, `allocation(pod)`."""

    def __init__(self, *, unlabel: tuple[str, ...] = (), **knobs: Any) -> None:
        knobs.setdefault("captures", False)
        self.objects = build_cluster(seed=5, **knobs)
        for obj in self.objects:
            if obj["kind"] == "Node" and obj["metadata"]["name"] in unlabel:
                obj["metadata"]["labels"].pop("rebellions.ai/rds.present", None)

    def pods(self, component: str, running: bool = True) -> list[str]:
        return [
            p["metadata"]["name"]
            for p in self.of_kind("Pod")
            if p["metadata"]["labels"]["app.kubernetes.io/component"] == component
            and (p["status"]["phase"] == "Running") == running
        ]

    def healthy(self, pod: str) -> dict[str, Any]:
        """probe_stdout() arguments for a Pod that got exactly its allocation (exclusive RDMA mode):
        each NIC in the Pod under its host name with its PCI address, its HCA ACTIVE, its uverbs open."""
        results = self.claim(pod)["status"]["allocation"]["devices"]["results"]
        npus = [r["device"] for r in results if r["driver"] == "npu.rebellions.ai"]
        nics = [
            self.device(r["pool"], r["device"])["attributes"] for r in results if r["driver"] == "dra.net"
        ]
        hcas = [a["dra.net/rdmaDevice"]["string"] for a in nics]
        node = next(
            n for n in self.of_kind("Node") if n["metadata"]["name"] == self.pod(pod)["spec"]["nodeName"]
        )
        rds = ["rblnfs0"] if node["metadata"]["labels"].get("rebellions.ai/rds.present") == "true" else []
        return {
            "interfaces": [
                (a["dra.net/ifName"]["string"], "up", "9000", a["dra.net/pciAddress"]["string"]) for a in nics
            ],
            "rdma": [
                (h, "ACTIVE", "Ethernet", a["dra.net/pciAddress"]["string"], f"uverbs{i}")
                for i, (h, a) in enumerate(zip(hcas, nics, strict=True))
            ],
            "infiniband": hcas,
            "uverbs": [(f"uverbs{i}", h) for i, h in enumerate(hcas)],
            "npus": npus,
            "rsd": ["rsd0"] if len(npus) > 1 else [],
            "rds": rds,
            "netns": "N",
        }
