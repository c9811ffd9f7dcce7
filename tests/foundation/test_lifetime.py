"""`check` keeps its Snapshot and report to the end only in a process that leaves by `os._exit`
(cli/lifetime.py): a caller of `main(argv)` that runs it again and again, as these tests do, must get
each run's objects freed when the run returns, or its memory would grow with every run."""

from __future__ import annotations

import io
import weakref
from contextlib import redirect_stdout

import pytest

from kubectl_rbln.cli import lifetime
from kubectl_rbln.cli.main import main


class _Built:
    """Something a command built (weakly referable, unlike the Snapshot's slotted classes)."""


def test_keep_frees_what_it_is_given_unless_the_process_leaves_by_exit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for _ in range(2):  # a `check` run in this process first: it must not have switched to keeping
        with redirect_stdout(io.StringIO()), pytest.raises(SystemExit):
            main(["check", "-f", "examples/healthy.json", "-n", "serving"])
    built = _Built()
    freed = weakref.ref(built)
    assert lifetime.keep(built) is built
    del built
    assert freed() is None
    monkeypatch.setattr(lifetime, "_kept", [])  # the process's own state, restored after the test
    monkeypatch.setattr(lifetime, "_process", False)
    lifetime.leaving_by_exit()
    built = _Built()
    kept = weakref.ref(built)
    lifetime.keep(built)
    del built
    assert kept() is not None
