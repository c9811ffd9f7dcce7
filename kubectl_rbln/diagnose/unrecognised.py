"""The verdict of a stuck stage: its rules' findings, or, when none of them knows the cause, an error
that names the stage and quotes its evidence as the input holds it (never a cause of another stage)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from kubectl_rbln.catalog import Phrase, Said
from kubectl_rbln.diagnose.context import PodContext, restart_target
from kubectl_rbln.diagnose.findings import Finding, ordered
from kubectl_rbln.diagnose.registry import Rule
from kubectl_rbln.diagnose.stage_types import Life, Quote, StageState

SLUG = "cause-not-recognised"
# what a stage's rules say when they do not know the cause either (kept: they name what they saw)
NOT_A_CAUSE = frozenset({"claim-not-allocated", "pod-crashing"})


def stage_verdict(
    ctx: PodContext, life: Life, findings: list[Finding], by_stage: Mapping[str, Sequence[Rule]]
) -> list[Finding]:
    """`findings` when a rule of the stuck stage (or of a stage it may be at as well) named its cause,
    or when an error says the input it rests on could not be read or trusted; else cause-not-recognised
    first. A cause found at one of the `also` stages makes it the stage."""
    stuck = life.stuck
    if stuck is None or any(f.slug == "source-degraded" and f.severity == "error" for f in findings):
        return findings  # the input it rests on is unread or malformed: that error is the verdict
    for stage in (stuck.stage, *stuck.also):
        known = {slug for rule in by_stage.get(stage, ()) for slug in rule.emits} - NOT_A_CAUSE
        if any(f.slug in known and f.severity in ("error", "warning") for f in findings):
            stuck.stage, stuck.also = stage, ()
            return findings
    return ordered([not_recognised(ctx, stuck), *findings])


def not_recognised(ctx: PodContext, stuck: StageState) -> Finding:
    pod = ctx.pod
    facts = stuck.facts
    owner = restart_target(pod) or (f"{pod.owner_kind.lower()}/{pod.owner_name}" if pod.owner_name else "")
    quotes = sorted(stuck.quotes, key=_strength)  # stable: the stage's own order among equals
    quote = quotes[0].text if quotes else Said(Phrase("quote-none"))
    values = {
        "namespace": pod.namespace,
        "pod": pod.name,
        "stage": Said(Phrase(f"stage-{stuck.stage}")),
        "quote": quote,
        "owner": owner if stuck.stage == "created" else "",
        "container": str(facts.get("container", "")) if stuck.stage == "running" else "",
        "scheduler": str(facts.get("schedulerName", "")) if stuck.stage == "scheduler" else "",
    }
    # the stage's id (a str: scripts and tests read it), named in the reader's language in a view
    stage = Said(Phrase(f"stage-id-{stuck.stage}"))
    evidence = {"stage": stage, "quoted": [q.line() for q in quotes], **facts}
    return Finding("cause-not-recognised", values, evidence)


def _strength(quote: Quote) -> int:
    """What says most leads: an event's message, then a message or a selector, then reasons and names."""
    if quote.where.startswith("Event"):
        return 0
    if quote.where.endswith((".message", ".cel")):
        return 1
    return 2
