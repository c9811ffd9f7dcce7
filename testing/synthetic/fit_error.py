"""The texts the scheduler writes for an unschedulable Pod: FitError and the event note.

Why: a diagnosis parses these texts, so the synthetic ones follow the scheduler's rules exactly
(dra-facts §1.1): a histogram of per-node reasons, entries sorted as strings, the PreFilter
message alone when a PreFilter plugin rejected the Pod, then the PostFilter messages.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

EVENT_NOTE_MAX = 1024  # the scheduler truncates event notes to this many bytes


def fit_error_message(
    total_nodes: int,
    node_reasons: Iterable[Iterable[str]],
    *,
    prefilter: str | None = None,
    dra_postfilter: str | None = "still not schedulable",
    preemption_reasons: Iterable[str] | None = None,
) -> str:
    """The scheduler's FitError text (pkg/scheduler/framework/types.go, dra-facts §1.1).

    `node_reasons` holds, per rejected node, the reasons of the plugin that rejected it (a node
    can count under several, e.g. two `Insufficient` resources). Entries `count reason` are
    sorted as strings, so "10 ..." sorts before "2 ...". The PostFilter part follows without an
    added period: the DRA plugin's message, then DefaultPreemption's own histogram.
    """
    message = f"0/{total_nodes} nodes are available:"
    if prefilter:
        message += f" {prefilter}."
    else:
        histogram: Counter[str] = Counter()
        for reasons in node_reasons:
            histogram.update(reasons)
        entries = sorted(f"{count} {reason}" for reason, count in histogram.items())
        if entries:
            message += " " + ", ".join(entries) + "."
    preemption = Counter(
        preemption_reasons
        if preemption_reasons is not None
        else ["Preemption is not helpful for scheduling"] * total_nodes
    )
    entries = sorted(f"{count} {reason}" for reason, count in preemption.items())
    post = f"preemption: 0/{total_nodes} nodes are available: " + ", ".join(entries) + "."
    if dra_postfilter:
        post = f"{dra_postfilter}, {post}"
    return f"{message} {post}"


def event_note(message: str) -> str:
    """Event notes are cut to 1024 bytes with a ` ...` suffix; the condition keeps the full text."""
    if len(message.encode()) <= EVENT_NOTE_MAX:
        return message
    return message.encode()[: EVENT_NOTE_MAX - 4].decode(errors="ignore") + " ..."
