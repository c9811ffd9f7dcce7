"""The events of one Pod and of its claims, and the scheduler's messages about it, parsed once."""

from __future__ import annotations

from typing import Any

from kubectl_rbln.diagnose.events import SchedulingMessage, classify_event, parse_pod_scheduled
from kubectl_rbln.diagnose.pod_view import PodView
from kubectl_rbln.dra.model import Event


def pod_events(ctx: PodView) -> list[Event]:
    pod = ctx.pod
    claim_names = {c.claim_name for c in ctx.claims if c.claim_name}
    events = [
        e
        for e in ctx.snapshot.events
        if (e.involved_namespace or e.namespace) == pod.namespace
        and (
            (e.involved_kind == "Pod" and e.involved_name == pod.name)
            or (e.involved_kind == "ResourceClaim" and e.involved_name in claim_names)
        )
    ]
    return sorted(events, key=lambda e: e.last_timestamp)


def relevant_events(ctx: PodView) -> list[dict[str, Any]]:
    """The `-o json` events[] of a Pod."""
    return [
        {
            "type": e.type,
            "reason": e.reason,
            "message": e.message,
            "count": e.count,
            "lastTimestamp": e.last_timestamp,
            "object": f"{e.involved_kind}/{e.involved_name}",
        }
        for e in ctx.events
    ]


def scheduling_messages(ctx: PodView) -> list[SchedulingMessage]:
    """The PodScheduled condition (it outlives events) first, then FailedScheduling events."""
    messages = []
    condition = ctx.pod.conditions.get("PodScheduled")
    if condition and condition.status == "False" and condition.message:
        messages.append(parse_pod_scheduled(condition))
    for event in ctx.events:
        parsed = classify_event(event)
        if parsed.scheduling is not None:
            messages.append(parsed.scheduling)
    return messages
