"""The body of `why`: read once, pick the Pods, diagnose each, render one report."""

from __future__ import annotations

from typing import Any

from kubectl_rbln.cli.options import Options
from kubectl_rbln.cluster.files import load_objects
from kubectl_rbln.cluster.source import default_namespace, load_snapshot
from kubectl_rbln.diagnose.context import is_device_pod, split_pod_ref
from kubectl_rbln.diagnose.features import allocator_features, choose_features
from kubectl_rbln.diagnose.findings import SCHEMA_VERSION, exit_code_for
from kubectl_rbln.diagnose.why import WhyOptions, diagnose_pod
from kubectl_rbln.dra.model import Pod, ResourceClaimTemplate, Snapshot
from kubectl_rbln.dra.normalize import normalize_template
from kubectl_rbln.errors import InputError, NotFoundError
from kubectl_rbln.render.output import emit_document
from kubectl_rbln.render.why_table import render_report


def load_rct_file(path: str) -> ResourceClaimTemplate:
    templates = [o for o in load_objects([path]) if o.get("kind") == "ResourceClaimTemplate"]
    if len(templates) != 1:
        raise InputError(f"--with-rct {path}: expected one ResourceClaimTemplate, found {len(templates)}")
    return normalize_template(templates[0])


def needs_attention(pod: Pod) -> bool:
    if pod.phase == "Pending":
        return True
    return any(s.restart_count > 0 or s.reason == "CrashLoopBackOff" for s in pod.container_states)


def select_pods(snapshot: Snapshot, names: list[str], namespace: str | None) -> list[Pod]:
    """Named Pods (an error if one is missing), else every device Pod that is Pending or crashing."""
    if names:
        chosen = []
        for name in names:
            ns, short = split_pod_ref(name, namespace)
            pod = snapshot.pod(ns, short)
            if pod is None:
                where = snapshot.source or "the cluster"
                raise NotFoundError(f'pod "{short}" not found in namespace "{ns}" ({where})')
            chosen.append(pod)
        return chosen
    return [
        pod
        for pod in snapshot.pods
        if (namespace is None or pod.namespace == namespace) and is_device_pod(pod) and needs_attention(pod)
    ]


def run_why(
    opts: Options,
    names: list[str],
    *,
    with_rct: str | None,
    k8s_version: str | None,
    feature_gates: str | None,
) -> tuple[str, int]:
    replacement = load_rct_file(with_rct) if with_rct else None
    snapshot, collected = load_snapshot(opts.source)
    namespace = None if opts.all_namespaces else default_namespace(opts.source, collected)
    pods = select_pods(snapshot, names, namespace)
    choice = choose_features(snapshot, k8s_version, feature_gates)
    options = WhyOptions(
        lang=opts.lang,
        features=allocator_features(choice),
        with_rct=replacement,
        assumptions=choice.describe(),
    )
    diagnoses = [diagnose_pod(snapshot, pod, options) for pod in pods]
    report: dict[str, Any] = {
        "apiVersion": SCHEMA_VERSION,
        "kind": "WhyReport",
        "source": snapshot.source,
        "assumptions": choice.describe(),
        "pods": [d.to_dict(opts.lang) for d in diagnoses],
    }
    if not pods:
        scope = "any namespace" if namespace is None else f'namespace "{namespace}"'
        report["message"] = f"no Pending or crashing device Pod in {scope}; name a Pod to diagnose it anyway"
    code = exit_code_for([f for d in diagnoses for f in d.findings], opts.fail_on)
    if opts.jq or opts.output in ("json", "yaml"):
        import io  # noqa: PLC0415

        buffer = io.StringIO()
        emit_document(report, opts.output, opts.jq, stream=buffer)
        return buffer.getvalue(), code
    drawings = closest_node_drawings(snapshot, diagnoses, replacement, options, opts)
    return render_report(report, color=opts.color, wide=opts.output == "wide", drawings=drawings), code


def closest_node_drawings(
    snapshot: Snapshot,
    diagnoses: list[Any],
    replacement: ResourceClaimTemplate | None,
    options: WhyOptions,
    opts: Options,
) -> dict[str, tuple[str, str]]:
    """Pod -> (node, drawing) of the node closest to fitting, so the reason is seen, not only read."""
    from kubectl_rbln.render.topo_text import render_node_drawing  # noqa: PLC0415

    drawings = {}
    for diagnosis in diagnoses:
        node = diagnosis.closest_node
        claim = next((c for c in diagnosis.context.unallocated if c.spec), None)
        if node is None or claim is None:
            continue
        spec = replacement.spec if replacement else claim.spec
        template_name = replacement.name if replacement else claim.ref.resource_claim_template_name
        name = template_name or claim.claim_name
        drawing = render_node_drawing(
            snapshot,
            node,
            namespace=diagnosis.pod.namespace,
            spec=spec,
            rct=name,
            features=options.features,
            color=opts.color,
            wide=opts.output == "wide",
        )
        drawings[diagnosis.pod.key] = (node, drawing)
    return drawings
