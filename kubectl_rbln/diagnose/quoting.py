"""Evidence that quotes the cluster: only what an object of the input holds, byte for byte.

A rule that knows what a component writes in its case (the scheduler's `device class dranet does not
exist`) quotes the Pod's event or condition that says it; when none is left (events expire), the text
goes under `expectedText`, said as what the component writes, never as if it had been recorded
(tests/why/test_lifecycle.py checks every `event` and `condition` of every scenario against its input).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kubectl_rbln.diagnose.context import PodContext


def recorded(ctx: PodContext, needle: str) -> dict[str, str]:
    """{"event": "<reason>: <message>"} of the newest event of the Pod or its claims whose message holds
    `needle`, else {"condition": ...} of its PodScheduled condition that does; {} when neither does."""
    for event in sorted(ctx.events, key=lambda e: e.last_timestamp, reverse=True):
        if needle in event.message:
            return {"event": f"{event.reason}: {event.message}"}
    scheduled = ctx.pod.conditions.get("PodScheduled")
    if scheduled is not None and needle in scheduled.message:
        return {"condition": f"{scheduled.reason}: {scheduled.message}"}
    return {}


def quoted_or_expected(ctx: PodContext, needle: str, expected: str) -> dict[str, str]:
    """`recorded(ctx, needle)`, or {"expectedText": expected} when the input holds no such text."""
    return recorded(ctx, needle) or {"expectedText": expected}
