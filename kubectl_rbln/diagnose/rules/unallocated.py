"""The last word for a Pending Pod: its claims are still unallocated and no rule found why."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from kubectl_rbln.diagnose.context import EXTENDED_CLAIM_NAME, PodContext
from kubectl_rbln.diagnose.findings import Finding
from kubectl_rbln.diagnose.registry import rule
from kubectl_rbln.dra.model import Pod


@rule("unallocated.claims", emits=("claim-not-allocated",))
def claim_not_allocated(ctx: PodContext) -> Iterator[Finding]:
    """Pending with unallocated claims and no cause found: say so, with where the devices would fit."""
    if ctx.pod.phase != "Pending" or ctx.pod.node_name or any(f.severity == "error" for f in ctx.found):
        return
    for claim in ctx.unallocated:
        if claim.claim is None:
            continue
        evidence = {
            "claim": f"{ctx.pod.namespace}/{claim.claim.name}",
            "simulationFitsOn": ctx.simulation.fitting,
        }
        yield unallocated_finding(ctx.pod, claim.claim.name, evidence)


def unallocated_finding(pod: Pod, claim: str, evidence: dict[str, Any]) -> Finding:
    """The one constructor of claim-not-allocated (why, and check's item 4). `in_memory`: the
    scheduler's claim for extended resources, which exists in no API until it is allocated."""
    values = {
        "namespace": pod.namespace,
        "pod": pod.name,
        "claim": claim,
        "in_memory": claim == EXTENDED_CLAIM_NAME,
    }
    return Finding("claim-not-allocated", values, evidence)
