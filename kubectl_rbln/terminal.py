"""The one gate between the tool and the terminal: everything written to stdout and stderr passes here.

Why: the table views clean what they draw (render/sanitize.py), but a warning, an error message, a
server's Status text or a line added tomorrow can forget to, and one forgotten path is enough for a
name to clear the screen or plant a link. The entry point (cli/main.py) puts a `TerminalWriter` over
sys.stdout and sys.stderr, so click.echo, print and .write alike pass through it: every control
sequence is removed (the rules are text.py's), and credentials the live client registered are
masked, after the removal, so no stripped character can reassemble one. What it keeps: newline and
tab and, on a colour terminal, the SGR codes of our own palette (click.style's bold, dim and
foreground colours), never a cursor move, a title, a link or a clipboard write.

Two kinds of text pass as they are: text `vouch`ed for, which only the JSON writer's callers do
(its escapes leave nothing to strip, and 6 MB of `-o json` is not scanned twice), and `redraw_line`,
the progress line's own carriage return and erase-line around text it cleans first.
"""

from __future__ import annotations

import collections
import io
import os
import re
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TextIO

from kubectl_rbln.text import strip_controls

# The SGR codes click.style writes for what we colour: reset, bold, dim, normal intensity, the
# foreground colours and the default one. Conceal (8), blink, reverse, 256-colour forms: never ours.
_OUR_SGR = re.compile(r"(\x1b\[(?:0|1|2|22|3[0-79]|9[0-7])m)")
_MIN_SECRET = 6  # shorter values would mask ordinary words; kubeconfig tokens are far longer
_MASK = "<secret>"
_secrets: set[str] = set()
_secrets_lock = threading.Lock()


_vouched: collections.deque[str] = collections.deque(maxlen=4)
_vouched_lock = threading.Lock()


def vouch(text: str) -> str:
    """`text` holds no control character (JSON that render/json_text.py escaped): the writer passes it
    unscanned, once. Known by identity, so 6 MB of JSON is neither copied nor scanned again."""
    with _vouched_lock:
        _vouched.append(text)
    return text


def _vouched_for(text: str) -> bool:
    with _vouched_lock:
        for index, known in enumerate(_vouched):
            if known is text:
                del _vouched[index]
                return True
    return False


def strip_controls_keep_color(text: str) -> str:
    """`strip_controls` for text we coloured: our palette's SGR codes stay, every other sequence goes."""
    parts = _OUR_SGR.split(text)
    return "".join(part if index % 2 else strip_controls(part) for index, part in enumerate(parts))


def register_secret(value: str) -> None:
    """A credential (a bearer token, a password) that must never be printed, whatever carries it."""
    if len(value) < _MIN_SECRET:
        return
    with _secrets_lock:
        _secrets.update({value, strip_controls(value)} - {""})


def mask_secrets(text: str) -> str:
    for secret in tuple(_secrets):
        if secret in text:
            text = text.replace(secret, _MASK)
    return text


def clean(text: str, color: bool = False) -> str:
    """What may reach a terminal of `text`: no control sequence (our colours kept if `color`), no secret."""
    if _vouched and _vouched_for(text):
        return text
    text = strip_controls_keep_color(text) if color and "\x1b" in text else strip_controls(text)
    return mask_secrets(text) if _secrets else text


class TerminalWriter(io.TextIOBase):
    """A text stream that cleans every write (`clean`) before the stream under it sees it."""

    def __init__(self, stream: TextIO, color: bool) -> None:
        super().__init__()
        self.stream = stream
        self.color = color

    def write(self, text: str) -> int:
        if not isinstance(text, str):  # click probes for a binary stream with write(b"")
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        self.stream.write(clean(text, self.color))
        return len(text)

    def flush(self) -> None:
        self.stream.flush()

    def isatty(self) -> bool:
        return self.stream.isatty()

    def fileno(self) -> int:
        return self.stream.fileno()

    def writable(self) -> bool:
        return True

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self.stream, "encoding", None) or "utf-8"

    @property
    def errors(self) -> str | None:  # type: ignore[override]
        return getattr(self.stream, "errors", None)

    @property
    def closed(self) -> bool:
        return bool(getattr(self.stream, "closed", False))

    def close(self) -> None:
        """The stream under it belongs to the process; closing the writer leaves it open."""


class Pieces(io.StringIO):
    """A sink that keeps each write as written, for a command that prints only once it has it all:
    vouched text stays the same object (a StringIO's getvalue() would be scanned again on the way out)."""

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []

    def write(self, text: str) -> int:
        self.parts.append(text)
        return len(text)

    def getvalue(self) -> str:
        return "".join(self.parts)

    def replay(self, stream: TextIO) -> None:
        for part in self.parts:
            stream.write(part)


def redraw_line(stream: TextIO, text: str) -> None:
    """Our own carriage return and erase-line, then `text` cleaned: a progress line, or "" to wipe it."""
    raw = stream.stream if isinstance(stream, TerminalWriter) else stream
    raw.write("\r\x1b[K" + clean(text))
    raw.flush()


def _colour_terminal(stream: Any) -> bool:
    try:
        return bool(stream.isatty()) and "NO_COLOR" not in os.environ
    except (AttributeError, ValueError, OSError):
        return False


@contextmanager
def guarded() -> Iterator[None]:
    """sys.stdout and sys.stderr behind a `TerminalWriter` for the block (once; nested blocks reuse it)."""
    saved = sys.stdout, sys.stderr
    if not isinstance(sys.stdout, TerminalWriter):  # a new command: the secrets of an earlier one (a
        with _secrets_lock:  # test runs many in one process) are not this one's to mask
            _secrets.clear()
    if sys.stdout is not None and not isinstance(sys.stdout, TerminalWriter):
        sys.stdout = TerminalWriter(sys.stdout, _colour_terminal(sys.stdout))
    if sys.stderr is not None and not isinstance(sys.stderr, TerminalWriter):
        sys.stderr = TerminalWriter(sys.stderr, _colour_terminal(sys.stderr))
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved
