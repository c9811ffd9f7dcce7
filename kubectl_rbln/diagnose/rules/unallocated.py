"""The last word for a Pending Pod: its claims are still unallocated and no rule found why."""

from __future__ import annotations

from collections.abc import Iterator

from kubectl_rbln.diagnose.context import PodContext
from kubectl_rbln.diagnose.findings import Finding
from kubectl_rbln.diagnose.registry import rule


@rule("unallocated.claims", emits=("claim-not-allocated",))
def claim_not_allocated(ctx: PodContext) -> Iterator[Finding]:
    """Pending with unallocated claims and no cause found: say so, with where the devices would fit."""
    if ctx.pod.phase != "Pending" or ctx.pod.node_name or any(f.severity == "error" for f in ctx.found):
        return
    for claim in ctx.unallocated:
        if claim.claim is None:
            continue
        values = ctx.values(claim=claim.claim.name)
        evidence = {
            "claim": f"{ctx.pod.namespace}/{claim.claim.name}",
            "simulationFitsOn": ctx.simulation.fitting,
        }
        yield Finding("claim-not-allocated", values, evidence)
