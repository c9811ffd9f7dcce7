"""The events of one Pod and of its claims, and the scheduler's messages about it, parsed once."""

from __future__ import annotations

from typing import Any

from kubectl_rbln.diagnose.events import SchedulingMessage, classify_event, parse_pod_scheduled
from kubectl_rbln.diagnose.pod_view import PodView
from kubectl_rbln.dra.model import Event, Snapshot


def pod_events(ctx: PodView) -> list[Event]:
    pod = ctx.pod
    index = events_by_object(ctx.snapshot)
    found = list(index.get((pod.namespace, "Pod", pod.name), ()))
    for name in {c.claim_name for c in ctx.claims if c.claim_name}:
        found += index.get((pod.namespace, "ResourceClaim", name), ())
    if not found:
        return []  # most Pods of a large cluster: nothing recorded
    found.sort(key=lambda pair: pair[0])  # the snapshot's order, then by time (a stable sort)
    return sorted((e for _, e in found), key=lambda e: e.last_timestamp)


def events_by_object(snapshot: Snapshot) -> dict[tuple[str, str, str], list[tuple[int, Event]]]:
    """(namespace, kind, name) -> its events with their places in the snapshot, indexed once: `check`
    asks for 10,000 Pods' events, and a large cluster keeps thousands of events."""

    def build() -> dict[tuple[str, str, str], list[tuple[int, Event]]]:
        out: dict[tuple[str, str, str], list[tuple[int, Event]]] = {}
        for position, e in enumerate(snapshot.events):
            key = (e.involved_namespace or e.namespace, e.involved_kind, e.involved_name)
            out.setdefault(key, []).append((position, e))
        return out

    return snapshot.memo("events-by-object", build)


def relevant_events(ctx: PodView) -> list[dict[str, Any]]:
    """The `-o json` events[] of a Pod."""
    return [
        {
            "type": e.type,
            "reason": e.reason,
            "message": e.message,
            "count": e.count,
            "lastTimestamp": e.last_timestamp,
            "firstTimestamp": e.first_timestamp or e.last_timestamp,
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
