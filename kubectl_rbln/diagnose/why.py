"""`why` as a pure function: a Snapshot and a Pod in, a diagnosis out.

The rules (rules/__init__.py WHY_RULES) run in their declared order through the one engine,
which hides the symptoms each root cause declares; the simulation runs at most once per Pod,
and the diagnosis keeps its typed results for the drawing of the closest node.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from kubectl_rbln.catalog import Names, sentence
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
from kubectl_rbln.dra.model import ContainerState, Pod, ResourceClaimTemplate, Snapshot


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
        allocated = self.context.life.state("allocated") if self.context.life is not None else None
        if allocated is not None and allocated.facts.get("hypothetical"):  # `--with-rct`, and it fits
            rct = str(allocated.facts.get("rct") or "")
            return with_rct_verdict(self.pod, allocated, rct, self.findings, lang)
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
    (a crash loop, a wait at binding) is named in the verdict rather than hidden below it. No count of
    the findings below is said: the reader sees them."""
    state = pod_state(pod, lang)
    blocking = [f for f in findings if f.severity == "error"]
    if blocking:
        return sentence(
            "verdict-blocked", lang, pod=pod.key, state=state, title=blocking[0].words(lang).title
        )
    if refused:
        key = "verdict-refused-notes" if findings else "verdict-refused"
        return sentence(key, lang, pod=pod.key, state=state)
    warned = [f for f in findings if f.severity == "warning"]
    if warned:
        return sentence("verdict-warned", lang, pod=pod.key, state=state, title=warned[0].words(lang).title)
    if findings:
        return sentence("verdict-notes", lang, pod=pod.key, state=state)
    return sentence("verdict-clear", lang, pod=pod.key, state=state)


def pod_state(pod: Pod, lang: str) -> str:
    """The Pod's state as `kubectl get pod` names it ("Pending (Unschedulable)"); a Running Pod with a
    container that crashes says so ("Running, but container x is crashing (...)"), never "Running"
    alone."""
    scheduled = pod.conditions.get("PodScheduled")
    if pod.phase == "Pending" and scheduled and scheduled.status == "False":
        return sentence("pending-reason", lang, reason=scheduled.reason or "unscheduled")
    crashing = crashing_container(pod)
    if pod.phase == "Running" and crashing is not None:
        return crash_headline(
            crashing.name, crashing.reason or crashing.last_reason, crashing.restart_count, lang, "state"
        )
    return pod.phase


def crashing_container(pod: Pod) -> ContainerState | None:
    """The first container in CrashLoopBackOff, or restarted and not ready (what `kubectl get pod`
    shows as RESTARTS with the Pod not READY)."""
    return next(
        (
            s
            for s in pod.container_states
            if s.reason == "CrashLoopBackOff" or (s.restart_count and not s.ready)
        ),
        None,
    )


def crash_headline(container: str, reason: str, restarts: int, lang: str, form: str = "headline") -> str:
    """ "Running, but container x is crashing (CrashLoopBackOff, 6 restarts)": the reason and the
    count as `kubectl get pod` shows them, each left out when the input has none. `form` "state" is
    the same words as the Pod's state inside a verdict (Korean says it as a noun phrase there)."""
    said = [reason] if reason else []
    if restarts:
        said.append(sentence("restarts-one" if restarts == 1 else "restarts-many", lang, count=restarts))
    detail = ", ".join(said)
    key = f"{form}-running-restarts" if detail else f"{form}-running-crashing"
    return sentence(key, lang, container=container, detail=detail)


def stuck_verdict(pod: Pod, stuck: StageState, findings: list[Finding], lang: str) -> str:
    """ "Pod x is Pending: its claims cannot be allocated: <the cause's title>": the stage in plain
    words first, then the finding that names its cause (cause-not-recognised when none does)."""
    cause = next((f for f in findings if f.severity == "error"), None) or next(iter(findings), None)
    title = cause.words(lang).title if cause is not None else sentence("quote-none", lang)
    return sentence("verdict-stuck", lang, pod=pod.key, state=stage_headline(pod, stuck, lang), title=title)


def with_rct_verdict(pod: Pod, allocated: StageState, rct: str, findings: list[Finding], lang: str) -> str:
    """`why --with-rct` whose claims the simulation allocates: the RCT fits, and where, first; then
    what else keeps the Pod off those nodes, if a check found it."""
    nodes = Names(allocated.facts.get("fitsOn") or [])
    state = pod_state(pod, lang)
    blocking = next((f for f in findings if f.severity == "error"), None)
    if blocking is not None:
        title = blocking.words(lang).title
        return sentence(
            "verdict-with-rct-fits-but", lang, pod=pod.key, state=state, rct=rct, nodes=nodes, title=title
        )
    return sentence("verdict-with-rct-fits", lang, pod=pod.key, state=state, rct=rct, nodes=nodes)


def stage_headline(pod: Pod, stuck: StageState, lang: str) -> str:
    """The stage a Pod is stuck at, in plain words, with the node, container and reason that say it."""
    facts = stuck.facts
    node = pod.node_name or str(facts.get("node") or "")
    key, values = f"headline-{stuck.stage}", {"phase": pod.phase, "node": node}
    if stuck.stage == "scheduler" and pod.node_name:
        key = "headline-scheduler-bound"
    elif stuck.stage == "allocated" and facts.get("hypothetical"):
        key, values["rct"] = "headline-allocated-with-rct", str(facts.get("rct") or "")
    elif (
        stuck.stage == "allocated"
        and not facts.get("claimsUnallocated")
        and not facts.get("claimsNotReservedForPod")
    ):
        key = "headline-allocated-no-claims"  # devices as extended resources (a device plugin): no claim
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
            return crash_headline(container, reason, int(facts.get("restarts") or 0), lang)
    return sentence(key, lang, **values)


def diagnose_pod(
    snapshot: Snapshot, pod: Pod, options: WhyOptions, rules: Sequence[Rule] | None = None
) -> PodDiagnosis:
    """The Pod's stages first (from the objects alone), then the rules of the stage it is stuck at
    (`rules` replaces them: a test empties them to show the stages need none); the simulation, if a
    rule needed it, is kept in the context."""
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
    nodes = diagnosis.nodes
    if nodes:  # no node simulated (a bound Pod, most of what `check` reads): none came closest
        from kubectl_rbln.diagnose.topology import closest_node  # noqa: PLC0415

        diagnosis.closest_node = closest_node(nodes)
    return diagnosis
