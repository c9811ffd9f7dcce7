"""How long ago an event was seen, written as `kubectl events` writes it, counted from the read time.

A bundle is read later than it was dumped: "4m (x82 over 2h)" is counted back from when the objects
were read (the WhyReport's `readAt`: ClusterInfo readAt, else the newest event), never from this
machine's clock, so the same bundle reads the same tomorrow.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from kubectl_rbln.catalog import sentence
from kubectl_rbln.diagnose.lifecycle import parse_time

UNKNOWN = "<unknown>"  # what kubectl prints for a zero timestamp


def human_duration(seconds: float) -> str:
    """k8s.io/apimachinery pkg/util/duration/duration.go HumanDuration: ~2-3 significant figures."""
    whole = int(seconds)
    if whole < -1:
        return "<invalid>"
    if whole < 0:
        return "0s"
    if whole < 60 * 2:
        return f"{whole}s"
    minutes = whole // 60
    if minutes < 10:
        rest = whole % 60
        return f"{minutes}m" if rest == 0 else f"{minutes}m{rest}s"
    if minutes < 60 * 3:
        return f"{minutes}m"
    hours = whole // 3600
    if hours < 8:
        rest = minutes % 60
        return f"{hours}h" if rest == 0 else f"{hours}h{rest}m"
    if hours < 48:
        return f"{hours}h"
    if hours < 24 * 8:
        rest = hours % 24
        return f"{hours // 24}d" if rest == 0 else f"{hours // 24}d{rest}h"
    if hours < 24 * 365 * 2:
        return f"{hours // 24}d"
    if hours < 24 * 365 * 8:
        rest = (hours // 24) % 365
        return f"{hours // 24 // 365}y" if rest == 0 else f"{hours // 24 // 365}y{rest}d"
    return f"{hours // 24 // 365}y"


def since(stamp: str, read_at: datetime | None) -> str:
    """`stamp` as an age at `read_at` ("<unknown>" when either is missing or unreadable)."""
    at = parse_time(stamp) if stamp else None
    if at is None or read_at is None:
        return UNKNOWN
    return human_duration((read_at - at).total_seconds())


def last_seen(event: dict[str, Any], read_at: datetime | None, lang: str = "en") -> str:
    """The LAST SEEN cell of one `-o json` event: kubernetes/kubectl pkg/cmd/events/event_printer.go
    getInterval, "<last> (x<count> over <first>)" when it repeated, else its age (in Korean, "over"
    is said in Korean)."""
    first = since(str(event.get("firstTimestamp") or event.get("lastTimestamp") or ""), read_at)
    count = int(event.get("count") or 1)
    if count > 1:
        last = since(str(event.get("lastTimestamp") or ""), read_at)
        return sentence("events-interval", lang, last=last, count=count, first=first)
    return first
