"""`why` as a pure function: a Snapshot and a Pod in, a diagnosis out.

The rules (rules/__init__.py WHY_RULES) run in their declared order through the one engine,
which hides the symptoms each root cause declares; the simulation runs at most once per Pod,
and the diagnosis keeps its typed results for the drawing of the closest node.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from kubectl_rbln.catalog import sentence
from kubectl_rbln.diagnose.context import PodContext, pod_context
from kubectl_rbln.diagnose.engine import run_rules
from kubectl_rbln.diagnose.findings import Finding
from kubectl_rbln.diagnose.lifecycle import decide_life
from kubectl_rbln.diagnose.pod_events import relevant_events
from kubectl_rbln.diagnose.registry import Rule
from kubectl_rbln.diagnose.rules import RULES_BY_STAGE, rules_for
from kubectl_rbln.diagnose.simulation import rows_in
from kubectl_rbln.diagnose.stage_types import StageState
from kubectl_rbln.diagnose.unrecognised import stage_verdict
from kubectl_rbln.dra.allocator import Features
from kubectl_rbln.dra.model import Pod, ResourceClaimTemplate, Snapshot


@dataclass(slots=True)
class WhyOptions:
    features: Features = field(default_factory=Features)
    with_rct: ResourceClaimTemplate | None = None
    assumptions: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class PodDiagnosis:
    pod: Pod
    findings: list[Finding]
    context: PodContext
    features: dict[str, Any]
    closest_node: str | None = None

    @property
    def nodes(self) -> list[dict[str, Any]]:
        return self.context.simulation.rows if not self.context.simulation_blocked else []

    def nodes_in(self, lang: str) -> list[dict[str, Any]]:
        """`nodes` with the simulation's reasons in `lang` (the table reads them; English is `nodes`)."""
        return rows_in(self.context.simulation, lang) if not self.context.simulation_blocked else []

    @property
    def stuck(self) -> StageState | None:
        """The earliest stage of the Pod's life it has not passed (None: it runs as it should)."""
        life = self.context.life
        return life.stuck if life is not None else None

    def verdict(self, lang: str) -> str:
        stuck = self.stuck
        if stuck is not None:
            return stuck_verdict(self.pod, stuck, self.findings, lang)
        return verdict_for(self.pod, self.findings, lang, refused=scheduler_refused(self.context))

    def to_dict(self, lang: str = "en") -> dict[str, Any]:
        life = self.context.life
        stuck = self.stuck
        return {
            "pod": self.pod.key,
            "phase": self.pod.phase,
            "node": self.pod.node_name,
            "stage": stuck.stage if stuck is not None else None,
            "life": [s.to_dict() for s in life.stages] if life is not None else [],
            "verdict": self.verdict(lang),
            "findings": [f.to_dict(lang) for f in self.findings],
            "nodes": self.nodes_in(lang),
            "closestNode": self.closest_node,
            "events": relevant_events(self.context),
            "assumptions": _with_stages(self.features, life.assumptions() if life is not None else []),
        }


def _with_stages(features: dict[str, Any], stages: list[str]) -> dict[str, Any]:
    """The report's assumptions, and what this Pod's stages could not see (`stages`), if anything."""
    return {**features, "stages": stages} if stages else features


def _apply_with_rct(ctx: PodContext, template: ResourceClaimTemplate) -> None:
    """Diagnose as if `template` replaced the Pod's RCT: unallocated claims become virtual claims of it."""
    for claim in ctx.claims:
        if claim.ref.resource_claim_template_name and not claim.allocated:
            claim.template = replace(template, namespace=ctx.pod.namespace, raw={})
            claim.spec_override = template.spec
            claim.hypothetical = True
            if claim.claim is None:
                claim.status_recorded = True


def _diagnose_current_rct(ctx: PodContext) -> None:
    """A stale unallocated claim (claim-stale) is diagnosed as the claim a re-created Pod would get:
    the findings then speak of the current RCT, not of the one already replaced (issue 13, 1)."""
    for claim in ctx.claims:
        if claim.spec_override is None and not claim.allocated and claim.drift and claim.template is not None:
            claim.spec_override = claim.template.spec


def scheduler_refused(ctx: PodContext) -> bool:
    """A Pending, unbound Pod about which the scheduler recorded a refusal (event or condition)."""
    if ctx.pod.phase != "Pending" or ctx.pod.node_name:
        return False
    return any(
        m.reasons or m.prefilter or m.scheduler_error or m.total_nodes for m in ctx.scheduling_messages
    )


def verdict_for(pod: Pod, findings: list[Finding], lang: str, *, refused: bool = False) -> str:
    """The first line a user reads, in the catalog's words: the blocking finding's title, or none.

    "Nothing blocks it" / "nothing to fix" only when no evidence says otherwise: a Pod the scheduler
    refused (`refused`) gets `verdict-refused` when no error finding names the cause, and a warning
    (a crash loop, a wait at binding) is named in the verdict rather than hidden below it."""
    state = pod.phase
    scheduled = pod.conditions.get("PodScheduled")
    if state == "Pending" and scheduled and scheduled.status == "False":
        state = sentence("pending-reason", lang, reason=scheduled.reason or "unscheduled")
    blocking = [f for f in findings if f.severity == "error"]
    if blocking:
        return sentence(
            "verdict-blocked", lang, pod=pod.key, state=state, title=blocking[0].words(lang).title
        )
    if refused:
        return sentence("verdict-refused", lang, pod=pod.key, state=state, count=len(findings))
    warned = [f for f in findings if f.severity == "warning"]
    if warned:
        title = warned[0].words(lang).title
        return sentence("verdict-warned", lang, pod=pod.key, state=state, title=title, count=len(findings))
    if findings:
        return sentence("verdict-notes", lang, pod=pod.key, state=state, count=len(findings))
    return sentence("verdict-clear", lang, pod=pod.key, state=state)


def stuck_verdict(pod: Pod, stuck: StageState, findings: list[Finding], lang: str) -> str:
    """ "Pod x is Pending: its claims cannot be allocated: <the cause's title>": the stage in plain
    words first, then the finding that names its cause (cause-not-recognised when none does)."""
    cause = next((f for f in findings if f.severity == "error"), None) or next(iter(findings), None)
    title = cause.words(lang).title if cause is not None else sentence("quote-none", lang)
    return sentence("verdict-stuck", lang, pod=pod.key, state=stage_headline(pod, stuck, lang), title=title)


def stage_headline(pod: Pod, stuck: StageState, lang: str) -> str:
    """The stage a Pod is stuck at, in plain words, with the node, container and reason that say it."""
    facts = stuck.facts
    node = pod.node_name or str(facts.get("node") or "")
    key, values = f"headline-{stuck.stage}", {"phase": pod.phase, "node": node}
    if stuck.stage == "scheduler" and pod.node_name:
        key = "headline-scheduler-bound"
    elif stuck.stage == "admitted":
        values["reason"] = pod.reason
    elif stuck.stage == "running":
        container, reason = str(facts.get("container") or ""), str(facts.get("reason") or "")
        values.update(container=container, reason=reason, since=pod.deletion_timestamp)
        if facts.get("terminating"):
            key = "headline-running-terminating"
        elif not container:
            key = "headline-running-unready"
        elif pod.phase == "Running" and (facts.get("restarts") or reason == "CrashLoopBackOff"):
            key = "headline-running-restarts"
    return sentence(key, lang, **values)


def diagnose_pod(
    snapshot: Snapshot, pod: Pod, options: WhyOptions, rules: Sequence[Rule] | None = None
) -> PodDiagnosis:
    """The Pod's stages first (from the objects alone), then the rules of the stage it is stuck at
    (`rules` replaces them: a test empties them to show the stages need none); the simulation, if a
    rule needed it, is kept in the context."""
    from kubectl_rbln.diagnose.topology import closest_node  # noqa: PLC0415

    ctx = pod_context(snapshot, pod, options.features)
    if options.with_rct is not None:
        _apply_with_rct(ctx, options.with_rct)
    _diagnose_current_rct(ctx)
    life = ctx.life = decide_life(ctx)
    stuck = life.stuck
    if rules is None:
        chosen = rules_for(stuck.stage, stuck.also) if stuck is not None else rules_for(None)
        by_stage: Mapping[str, Sequence[Rule]] = RULES_BY_STAGE
    else:
        chosen, by_stage = tuple(rules), {}
    findings = stage_verdict(ctx, life, run_rules(ctx, chosen), by_stage)
    diagnosis = PodDiagnosis(pod=pod, findings=findings, context=ctx, features=options.assumptions)
    diagnosis.closest_node = closest_node(diagnosis.nodes)
    return diagnosis
