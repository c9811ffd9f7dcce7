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
from kubectl_rbln.text import human_duration

UNKNOWN = "<unknown>"  # what kubectl prints for a zero timestamp


def since(stamp: str, read_at: datetime | None) -> str:
    """`stamp` as an age at `read_at` ("<unknown>" when either is missing or unreadable)."""
    at = parse_time(stamp) if stamp else None
    if at is None or read_at is None:
        return UNKNOWN
    return human_duration(round((read_at - at).total_seconds() * 10**9))


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
