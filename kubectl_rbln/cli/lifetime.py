"""What a command built, kept until the process ends instead of freed when the command returns.

Why: the process leaves with `os._exit` (cli/main.py `_leave`) so that nothing is freed object by
object at exit; but a command's Snapshot and report were still freed when its function returned,
before that exit: 0.5 s of CPU for `check` at 20,000 nodes (a Snapshot and 40,000 diagnoses,
docs/performance.md). Kept here, they go with the process. Only the process itself keeps them
(`main()` without arguments): a test calling `main(argv)` many times frees each run's as before.
"""

from __future__ import annotations

from typing import TypeVar

T = TypeVar("T")

_kept: list[object] = []
_process = False


def leaving_by_exit() -> None:
    """The process ends with `os._exit` after this command: what `keep` is given is never freed."""
    global _process
    _process = True


def keep(value: T) -> T:
    """`value`, held to the process's end when it leaves by exit (else left to be freed as usual)."""
    if _process:
        _kept.append(value)
    return value
