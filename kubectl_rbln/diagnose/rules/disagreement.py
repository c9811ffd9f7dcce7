"""Never a false all-clear: the scheduler recorded that nodes cannot allocate, the simulation fits.

The simulation is a model of the structured allocator over one snapshot; the scheduler's event
or PodScheduled condition is what really happened, at its own time. When the scheduler says nodes
failed for DRA reasons (`cannot allocate all claims` and the related texts, dra-facts.md 1.1-1.2)
and the simulation finds nodes where the devices fit and the Pod may run, neither side is hidden:
the finding shows both, the event's time against the newest change of the objects it concerns (an
event older than a change may be stale), and the catalog lists what the simulation does not model.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from kubectl_rbln.catalog import Names, Phrase, Said
from kubectl_rbln.diagnose.context import PodContext
from kubectl_rbln.diagnose.events import SchedulingMessage, classify_event
from kubectl_rbln.diagnose.findings import Finding
from kubectl_rbln.diagnose.registry import rule
from kubectl_rbln.diagnose.simulation import EVIDENCE_NODES, row_reason


@dataclass(slots=True)
class _Recorded:
    """One scheduler text that says nodes cannot allocate, and when it was recorded."""

    message: SchedulingMessage
    source: str  # "event" | "condition"
    at: str  # ISO time, "" when unknown
    count: int  # how many times the event was recorded (1 for the condition)
    dra_nodes: int  # nodes the scheduler rejected for DRA reasons
    dra_texts: list[str]


def _dra_texts(message: SchedulingMessage) -> tuple[int, list[str]]:
    """(nodes rejected for DRA reasons, their `count text` lines); a DRA PreFilter counts as all nodes."""
    # a filter that timed out said nothing of the devices (kubernetes#133531): no disagreement with it
    reasons = [
        r
        for r in message.reasons
        if r.category == "dra" and not (r.dra and (r.dra.fatal or r.dra.code == "timeout"))
    ]
    nodes = sum(r.count for r in reasons)
    texts = [f"{r.count} {r.text}" for r in reasons]
    if message.prefilter and any(not d.fatal for d in message.dra) and not reasons:
        nodes = message.total_nodes or 0
        texts = [message.prefilter]
    return nodes, texts


def _condition_time(ctx: PodContext) -> str:
    for condition in (ctx.pod.raw.get("status") or {}).get("conditions") or []:
        if isinstance(condition, dict) and condition.get("type") == "PodScheduled":
            return str(condition.get("lastTransitionTime") or "")
    return ""


def _recorded(ctx: PodContext) -> list[_Recorded]:
    """Every recorded DRA refusal: the condition (it outlives events) first, then events, oldest first."""
    out: list[_Recorded] = []
    condition = ctx.pod.conditions.get("PodScheduled")
    if condition and condition.status == "False" and condition.message and ctx.scheduling_messages:
        message = ctx.scheduling_messages[0]
        nodes, texts = _dra_texts(message)
        if texts:
            out.append(_Recorded(message, "condition", _condition_time(ctx), 1, nodes, texts))
    for event in ctx.events:
        scheduling = classify_event(event).scheduling
        if scheduling is None:
            continue
        nodes, texts = _dra_texts(scheduling)
        if texts:
            out.append(_Recorded(scheduling, "event", event.last_timestamp, event.count, nodes, texts))
    return out


def _latest(recorded: list[_Recorded]) -> _Recorded:
    """The newest recorded refusal (events carry a time; the condition only its transition)."""
    dated = [(at, i) for i, r in enumerate(recorded) if (at := _parse_time(r.at)) is not None]
    return recorded[max(dated)[1]] if dated else recorded[0]


def _parse_time(text: str) -> datetime | None:
    try:
        at = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return at if at.tzinfo is not None else at.replace(tzinfo=timezone.utc)


def _changes(raw: dict[str, Any]) -> list[str]:
    meta = raw.get("metadata") or {}
    times = [meta.get("creationTimestamp"), meta.get("deletionTimestamp")]
    times += [m.get("time") for m in meta.get("managedFields") or [] if isinstance(m, dict)]
    return [t for t in times if isinstance(t, str) and t]


def _changed_after(ctx: PodContext, when: datetime) -> tuple[list[Said], str]:
    """Objects the allocation reads that changed after `when` ("Kind name at time"), and the newest change."""
    changed: dict[str, datetime] = {}
    newest: datetime | None = None
    for kind, obj, at in ctx.snapshot.memo("newest-changes", lambda: _newest_changes(ctx.snapshot)):
        if obj is ctx.pod:
            continue
        newest = at if newest is None or at > newest else newest
        if at > when:
            name = f"{kind} {obj.name}" if kind == "DeviceClass" else f"{kind} {obj.namespace}/{obj.name}"
            if name not in changed or at > changed[name]:
                changed[name] = at
    ordered = sorted(changed.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)
    changes = [Said(Phrase("object-changed-at", {"name": name, "at": _iso(at)})) for name, at in ordered]
    return changes, _iso(newest) if newest else ""


def _newest_changes(snapshot: Any) -> list[tuple[str, Any, datetime]]:
    """(kind, object, its newest change) of every object the allocation reads, in the order
    `_changed_after` reads them: once per snapshot, not once per Pod (20,000 objects at 5,000 nodes).
    The first of equal times is kept, as a walk over every time would keep it."""
    parsed: dict[str, datetime | None] = {}
    out: list[tuple[str, Any, datetime]] = []
    groups: list[tuple[str, Any]] = [
        ("DeviceClass", snapshot.device_classes.values()),
        ("ResourceClaimTemplate", snapshot.templates),
        ("ResourceClaim", snapshot.claims),
        ("Pod", snapshot.pods),
    ]
    for kind, objects in groups:
        for obj in objects:
            raw = getattr(obj, "raw", None)
            if not raw:  # Pods and claims keep no raw object: no time to read (40,000 at 20,000 nodes)
                continue
            latest: datetime | None = None
            for text in _changes(raw):
                if text in parsed:
                    at = parsed[text]
                else:
                    at = parsed[text] = _parse_time(text)
                if at is not None and (latest is None or at > latest):
                    latest = at
            if latest is not None:
                out.append((kind, obj, latest))
    return out


def _example(ctx: PodContext, node: str, rows: dict[str, Any]) -> Said | str:
    """`node: reason` of the first node the simulation fits, in the reader's language."""
    simulation = ctx.simulation
    result = next((r for r in simulation.results if r.node == node), None)
    reason = row_reason(result, simulation.excluded.get(node, [])) if result is not None else None
    if reason is None:
        return f"{node}: {rows.get(node, {}).get('reason', 'fits')}"
    return Said(Phrase("node-says", {"node": node, "text": reason}))


def _iso(at: datetime) -> str:
    return at.strftime("%Y-%m-%dT%H:%M:%SZ")


@rule(
    "disagreement.simulation",
    emits=("simulation-disagrees",),
    suppresses={"claim-not-allocated": None},
)
def simulation_disagrees(ctx: PodContext) -> Iterator[Finding]:
    """The scheduler recorded DRA refusals, the simulation fits: show both, never an all-clear."""
    pod = ctx.pod
    if pod.phase != "Pending" or pod.node_name or any(f.severity == "error" for f in ctx.found):
        return
    if any(c.spec_override is not None for c in ctx.claims):
        return  # `why --with-rct` simulates another RCT than the one the scheduler tried
    simulation = ctx.simulation
    if not simulation.ran or simulation.error or not simulation.fitting:
        return
    recorded = _recorded(ctx)
    if not recorded:
        return
    latest = _latest(recorded)
    at = _parse_time(latest.at)
    changed, newest = _changed_after(ctx, at) if at is not None else ([], "")
    fitting = simulation.fitting
    rows = {row["name"]: row for row in simulation.rows}
    message = latest.message
    evidence: dict[str, Any] = {
        "schedulerSays": message.text,
        "recordedIn": Said(Phrase(f"recorded-in-{'event' if latest.source == 'event' else 'condition'}")),
        "recordedAt": latest.at or "unknown",
        "timesRecorded": latest.count,
        "draRefusals": latest.dra_texts,
        "nodesRefusedForDevices": latest.dra_nodes,
        "nodesInScheduler": message.total_nodes,
        "simulationFitsOn": fitting[:EVIDENCE_NODES],
        "simulationExample": _example(ctx, fitting[0], rows),
        "newestObjectChange": newest or "unknown",
        "changedAfterEvent": changed[:EVIDENCE_NODES],
    }
    values = ctx.values(
        nodes=Names(fitting),
        node=fitting[0],
        refused=latest.dra_nodes,
        total=message.total_nodes if message.total_nodes is not None else "?",
        said=latest.dra_texts[0],
        recorded_at=latest.at or "unknown",
        changed=Names(changed),
        stale=bool(changed),
    )
    yield Finding("simulation-disagrees", values, evidence, case="stale" if changed else None)
