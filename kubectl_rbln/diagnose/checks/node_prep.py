"""Node preparation that decides scheduling (seed 002): the RDS label and device-plugin mode."""

from __future__ import annotations

from kubectl_rbln.diagnose.context import PodContext
from kubectl_rbln.diagnose.findings import Finding, build_finding
from kubectl_rbln.diagnose.placement import required_labels
from kubectl_rbln.domain import DEVICE_RESOURCE_PREFIXES, NPU_DRIVER, NPU_LABEL, RDS_LABEL


def _npu_nodes(ctx: PodContext) -> list[str]:
    nodes = {s.node_name for s in ctx.snapshot.slices if s.driver == NPU_DRIVER and s.node_name}
    nodes |= {
        n.name for n in ctx.snapshot.nodes.values() if n.labels.get(NPU_LABEL) == "true"
    }
    return sorted(nodes)


def check_rds_label(ctx: PodContext, lang: str) -> list[Finding]:
    """The Pod selects `rebellions.ai/rds.present=true` but no NPU node carries it."""
    wanted = required_labels(ctx.pod).get(RDS_LABEL)
    if wanted != "true" or ctx.pod.node_name:
        return []
    labelled = sorted(n.name for n in ctx.snapshot.nodes.values() if n.labels.get(RDS_LABEL) == "true")
    if labelled:
        return []
    npu_nodes = _npu_nodes(ctx)
    values = {
        "node": npu_nodes[0] if npu_nodes else "<node>",
        "namespace": ctx.pod.namespace,
        "pod": ctx.pod.name,
    }
    evidence = {"podRequires": f"{RDS_LABEL}=true", "nodesWithLabel": [], "npuNodesWithoutLabel": npu_nodes}
    remediation = [f"kubectl label node {name} {RDS_LABEL}=true" for name in npu_nodes[1:]]
    blocking = "error" if ctx.pod.phase == "Pending" else None
    return [
        build_finding(
            "rds-label-missing",
            lang,
            values,
            evidence=evidence,
            extra_remediation=remediation,
            severity=blocking,
        )
    ]


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


def check_device_plugin_mode(ctx: PodContext, lang: str) -> list[Finding]:
    """Device-plugin mode has no NUMA guarantee; DRA and the device plugin on one node is unpredictable."""
    findings = []
    plugin_nodes = _device_plugin_nodes(ctx)
    requested = ctx.extended_resources
    values = {
        "namespace": ctx.pod.namespace,
        "pod": ctx.pod.name,
        "resource": ", ".join(sorted(requested or {r for n in plugin_nodes.values() for r in n})),
        "node": min(plugin_nodes, default="<node>"),
    }
    if requested and not ctx.pod.resource_claims:
        evidence = {
            "podRequests": requested,
            "nodesAdvertising": {n: r for n, r in sorted(plugin_nodes.items())},
            "draClaims": 0,
        }
        findings.append(
            build_finding("device-plugin-mode", lang, values, evidence=evidence, severity="warning")
        )
    npu_slice_nodes = ctx.snapshot.memo(
        "npu-slice-nodes",
        lambda: {s.node_name for s in ctx.snapshot.slices if s.driver == NPU_DRIVER and s.devices},
    )
    both = sorted(n for n in plugin_nodes if n in npu_slice_nodes)
    if both:
        evidence = {
            "nodesWithBoth": both,
            "extendedResources": {n: plugin_nodes[n] for n in both},
            "draDriver": NPU_DRIVER,
        }
        values["node"] = both[0]
        findings.append(
            build_finding(
                "device-plugin-mode",
                lang,
                values,
                evidence=evidence,
                severity="error",
                title=f"DRA driver and device plugin both expose NPUs on {len(both)} node(s)"
                if lang != "ko"
                else f"노드 {len(both)}개에서 DRA 드라이버와 디바이스 플러그인이 함께 NPU를 노출합니다",
            )
        )
    return findings
