"""Node preparation that decides scheduling (seed 002): the RDS label and device-plugin mode."""

from __future__ import annotations

from typing import Any

from kubectl_rbln.diagnose.context import PodContext
from kubectl_rbln.diagnose.findings import Finding
from kubectl_rbln.diagnose.placement import required_labels
from kubectl_rbln.diagnose.registry import rule
from kubectl_rbln.domain import (
    DEVICE_RESOURCE_PREFIXES,
    NIC_RESOURCE_PREFIX,
    NPU_DRIVER,
    NPU_LABEL,
    NPU_RESOURCE_PREFIX,
    RDS_LABEL,
)
from kubectl_rbln.dra.model import Pod


def _npu_nodes(ctx: PodContext) -> list[str]:
    nodes = {s.node_name for s in ctx.snapshot.slices if s.driver == NPU_DRIVER and s.node_name}
    nodes |= {n.name for n in ctx.snapshot.nodes.values() if n.labels.get(NPU_LABEL) == "true"}
    return sorted(nodes)


@rule(
    "node-prep.rds-label",
    emits=("rds-label-missing",),
    suppresses={"not-device-related": None, "claim-not-allocated": None},
)
def rds_label_missing(ctx: PodContext) -> list[Finding]:
    """The Pod selects `rebellions.ai/rds.present=true` but no NPU node carries it."""
    wanted = required_labels(ctx.pod).get(RDS_LABEL)
    if wanted != "true" or ctx.pod.node_name:
        return []
    labelled = sorted(n.name for n in ctx.snapshot.nodes.values() if n.labels.get(RDS_LABEL) == "true")
    if labelled:
        return []
    npu_nodes = _npu_nodes(ctx)
    evidence = {"podRequires": f"{RDS_LABEL}=true", "nodesWithLabel": [], "npuNodesWithoutLabel": npu_nodes}
    return [rds_label_finding(ctx.pod, npu_nodes, evidence, blocking=ctx.pod.phase == "Pending")]


def rds_label_finding(pod: Pod, nodes: list[str], evidence: dict[str, Any], *, blocking: bool) -> Finding:
    """The one constructor of rds-label-missing (why, and check's item N1): label every NPU node."""
    values = {
        "namespace": pod.namespace,
        "pod": pod.name,
        "node": nodes[0] if nodes else "<node>",
        "other_nodes": nodes[1:],
        "label_nodes": label_targets(nodes),
    }
    return Finding("rds-label-missing", values, evidence, case="blocking" if blocking else None)


def label_targets(nodes: list[str]) -> list[str]:
    """`node/NAME` for each node: one `kubectl label` names every node to label (empty: none known)."""
    return [f"node/{name}" for name in nodes if name]


def _device_plugin_nodes(ctx: PodContext) -> dict[str, dict[str, str]]:
    return ctx.snapshot.memo("device-plugin-nodes", lambda: _scan_device_plugin_nodes(ctx))


def _scan_device_plugin_nodes(ctx: PodContext) -> dict[str, dict[str, str]]:
    out = {}
    for node in ctx.snapshot.nodes.values():
        resources = {
            k: v
            for k, v in node.allocatable.items()
            if k.startswith(DEVICE_RESOURCE_PREFIXES) and v not in ("0", "")
        }
        if resources:
            out[node.name] = resources
    return out


def _chart_values(requested: dict[str, str], plugin_nodes: dict[str, dict[str, str]]) -> dict[str, object]:
    """The chart's device-plugin values this cluster fills in: the NPU and NIC counts the Pod asks for
    (the reference 4 and 2 when it asks for none) and the RDMA extended resource the nodes advertise
    (`rdma_resource`, "" when none does: the fix then says where to find it)."""

    def asked(prefix: str, default: int) -> int:
        total = sum(int(v) for k, v in requested.items() if k.startswith(prefix) and str(v).isdigit())
        return total or default

    rdma = sorted({r for res in plugin_nodes.values() for r in res if r.startswith(NIC_RESOURCE_PREFIX)})
    wanted = [r for r in rdma if r in requested]
    return {
        "npu_count": asked(NPU_RESOURCE_PREFIX, 4),
        "nic_count": asked(NIC_RESOURCE_PREFIX, 2),
        "rdma_resource": (wanted or rdma or [""])[0],
    }


@rule("node-prep.device-plugin", emits=("device-plugin-mode",))
def device_plugin_mode(ctx: PodContext) -> list[Finding]:
    """Device-plugin mode has no NUMA guarantee; DRA and the device plugin on one node is unpredictable.

    Only about nodes that really advertise what the Pod asks for: a request that no node advertises
    is a DRA-backed extended resource (rules/extended.py) or nothing offers it at all, and then this
    finding would name no node."""
    findings: list[Finding] = []
    plugin_nodes = _device_plugin_nodes(ctx)
    if not plugin_nodes:  # no node advertises a device plugin's resources: nothing to say (most clusters)
        return findings
    requested = ctx.extended_resources
    served = {n: {r: v for r, v in res.items() if r in requested} for n, res in plugin_nodes.items()}
    served = {n: res for n, res in served.items() if res}
    values = ctx.values(
        resource=sorted(
            {r for res in served.values() for r in res} or {r for n in plugin_nodes.values() for r in n}
        ),
        node=min(served or plugin_nodes, default=""),
        **_chart_values(requested, plugin_nodes),
    )
    pod_mode = bool(served) and not ctx.pod.resource_claims
    asked = {"podRequests": requested, "nodesAdvertising": dict(sorted(served.items())), "draClaims": 0}
    npu_slice_nodes = ctx.snapshot.memo(
        "npu-slice-nodes",
        lambda: {s.node_name for s in ctx.snapshot.slices if s.driver == NPU_DRIVER and s.any_devices()},
    )
    both = sorted(n for n in plugin_nodes if n in npu_slice_nodes)
    if both:  # says what the Pod-mode finding says, and more: one finding, never the same words twice
        evidence = {
            "nodesWithBoth": both,
            "extendedResources": {n: plugin_nodes[n] for n in both},
            "draDriver": NPU_DRIVER,
            **(asked if pod_mode else {}),
        }
        findings.append(
            Finding(
                "device-plugin-mode",
                {**values, "node": both[0], "count": len(both)},
                evidence,
                case="both-exposed",
            )
        )
    elif pod_mode:
        findings.append(Finding("device-plugin-mode", values, asked))
    return findings
