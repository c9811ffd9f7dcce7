"""Make untrusted text safe to print on a terminal.

Output read from a Pod (exec stdout/stderr, logs) or from objects users can write
(annotations, event messages) may carry escape sequences that move the cursor,
rewrite earlier lines, set the window title, plant OSC 8 hyperlinks or OSC 52
clipboard writes. Printing them verbatim lets a workload forge or hide what a
diagnosis says. Everything here removes, never interprets: the result holds no
ESC, no C0 control other than newline and tab, no C1 control, no DEL and no
Unicode bidirectional override (the "Trojan Source" reordering characters).

A bottom module that imports nothing from the package: the source layer
(cluster/exec_probe.py) cleans what a Pod printed before anything else sees it,
and render/ cleans what it draws; both need the same rules, neither may depend
on the other. Colour-aware and whole-report variants are render's
(render/sanitize.py).
"""

from __future__ import annotations

import re

# ESC-introduced sequences, most specific first:
#   OSC / DCS / SOS / PM / APC: ESC ] P X ^ _ ... up to BEL or ST (ESC \), or to the end if unterminated;
#   CSI: ESC [ parameter bytes, intermediate bytes, one final byte;
#   anything else: ESC, optional intermediates, one final byte (ESC ( B, ESC 7, ESC c ...).
_ESC_STRING = r"\x1b[\]PX^_][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c|$)"
_ESC_CSI = r"\x1b\[[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]?"
_ESC_OTHER = r"\x1b[\x20-\x2f]*[\x30-\x7e]?"
# The same introducers as single 8-bit C1 code points (U+009B CSI, U+009D OSC, U+0090 DCS ...).
_C1_STRING = r"[\x90\x98\x9d\x9e\x9f][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c|$)"
_C1_CSI = r"\x9b[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]?"
_SEQUENCE = re.compile("|".join((_ESC_STRING, _ESC_CSI, _ESC_OTHER, _C1_STRING, _C1_CSI)))
# Left over once sequences are gone: C0 but \t and \n, DEL, C1, bidi embeddings/overrides/isolates.
_SINGLE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_ONE_LINE_MAX = 300


def strip_controls(text: str) -> str:
    """`text` without terminal control sequences; newlines and tabs survive, \\r is dropped."""
    if not text:
        return ""
    if text.isascii() and text.isprintable():  # the usual case: nothing to strip (no ESC, no C0/C1)
        return text
    if _SINGLE.search(text) is None:  # every sequence starts with ESC or a C1 introducer: none here
        return text
    return _SINGLE.sub("", _SEQUENCE.sub("", text))


def one_line(text: str, limit: int = _ONE_LINE_MAX) -> str:
    """The first non-empty line of `text`, sanitized and cut to `limit` characters, for a one-line message."""
    for line in strip_controls(text).splitlines():
        line = " ".join(line.split())
        if line:
            return line if len(line) <= limit else line[: limit - 3] + "..."
    return ""


def safe_token(text: str, limit: int = 64) -> str:
    """A short name read from a Pod (a device entry), reduced to printable characters without spaces."""
    cleaned = "".join(strip_controls(text).split())
    return cleaned if len(cleaned) <= limit else cleaned[: limit - 3] + "..."


def _trunc(a: int, b: int) -> int:
    """Go's integer division (truncates toward zero)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def human_duration(nanoseconds: int) -> str:
    """Port of apimachinery pkg/util/duration/duration.go `HumanDuration`: ~2-3 significant figures, as
    kubectl writes an AGE (serve's Tables) or an event's LAST SEEN (why's EVENTS)."""
    second, minute, hour = 10**9, 60 * 10**9, 3600 * 10**9
    seconds = _trunc(nanoseconds, second)
    if seconds < -1:
        return "<invalid>"
    if seconds < 0:
        return "0s"
    if seconds < 60 * 2:
        return f"{seconds}s"
    minutes = nanoseconds // minute
    if minutes < 10:
        s = (nanoseconds // second) % 60
        return f"{minutes}m" if s == 0 else f"{minutes}m{s}s"
    if minutes < 60 * 3:
        return f"{minutes}m"
    hours = nanoseconds // hour
    if hours < 8:
        m = (nanoseconds // minute) % 60
        return f"{hours}h" if m == 0 else f"{hours}h{m}m"
    if hours < 48:
        return f"{hours}h"
    if hours < 24 * 8:
        h = hours % 24
        return f"{hours // 24}d" if h == 0 else f"{hours // 24}d{h}h"
    if hours < 24 * 365 * 2:
        return f"{hours // 24}d"
    if hours < 24 * 365 * 8:
        dy = (hours // 24) % 365
        return f"{hours // 24 // 365}y" if dy == 0 else f"{hours // 24 // 365}y{dy}d"
    return f"{hours // 24 // 365}y"
