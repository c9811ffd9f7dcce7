"""Shared test helpers: paths, and running the real CLI as a user would."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parent.parent
DATA = REPO / "tests" / "data"
SAMPLES = DATA / "samples"
EXAMPLES = REPO / "examples"
E2E = REPO / "tests" / "e2e"
# tests/ecosystem/conftest.py: real kubectl, the krew archive build and install, a replay server.
SLOW_FIXTURES = frozenset({"kubectl_binary", "release", "krew_install", "example_server"})
# The human views lay out for COLUMNS (render/width.py): every test, and every CLI it starts, sees
# the 100 columns of a pipe whatever terminal runs pytest; a test of another width sets its own.
os.environ["COLUMNS"] = "100"


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The slow lane, so that `pytest -m "not slow"` stays quick; a bare `pytest` still runs everything.

    Marked here: everything under tests/e2e; every test that asks for the `rbln` fixture below (the
    CLI as a subprocess; a folder that overrides `rbln` with `inprocess_rbln` stays fast); and every
    test that asks for a fixture of SLOW_FIXTURES. Other slow tests carry `pytestmark =
    pytest.mark.slow` or `@pytest.mark.slow` in their file.
    """
    for item in items:
        info = getattr(item, "_fixtureinfo", None)
        rbln_defs = info.name2fixturedefs.get("rbln", ()) if info else ()
        if (
            E2E in item.path.parents
            or (rbln_defs and rbln_defs[-1].func.__code__.co_filename == __file__)
            or SLOW_FIXTURES.intersection(getattr(item, "fixturenames", ()))
        ):
            item.add_marker(pytest.mark.slow)


def run_rbln(
    *args: str, env: dict[str, str] | None = None, stdin: str | None = None, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    """`python -m kubectl_rbln ARGS` in a clean environment (no colour, English)."""
    full_env = {k: v for k, v in os.environ.items() if k not in ("KUBECONFIG", "LANG", "LC_ALL")}
    full_env.update({"NO_COLOR": "1", "LANG": "C.UTF-8"})
    full_env.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "kubectl_rbln", *args],
        capture_output=True,
        text=True,
        env=full_env,
        input=stdin,
        timeout=timeout,
        cwd=REPO,
    )


@pytest.fixture
def rbln():
    return run_rbln


@pytest.fixture
def inprocess_rbln(capsys: pytest.CaptureFixture[str]):
    """`kubectl rbln ARGS` run in this process (fast): (exit code, stdout, stderr)."""
    from kubectl_rbln.cli.main import main

    def run(*args: str) -> tuple[int, str, str]:
        capsys.readouterr()
        with pytest.raises(SystemExit) as exc:
            main(list(args))
        captured = capsys.readouterr()
        return int(exc.value.code or 0), captured.out, captured.err

    return run


@dataclass
class Served:
    """A running `serve` process; `stdout`/`stderr` hold what it wrote (when piped) once it stopped."""

    process: subprocess.Popen[str]
    stdout: str = ""
    stderr: str = ""


@contextmanager
def serving(argv: list[str], kubeconfig: Path, *, tries: int = 150, **popen: Any) -> Iterator[Served]:
    """`serve` started from `argv` (which writes `kubeconfig`), ready once that file has content;
    stopped when the block ends, its piped output (stderr unless `popen` says otherwise) collected."""
    popen.setdefault("stdout", subprocess.DEVNULL)
    popen.setdefault("stderr", subprocess.PIPE)
    served = Served(subprocess.Popen(argv, text=True, **popen))
    try:
        for _ in range(tries):
            if kubeconfig.exists() and kubeconfig.stat().st_size:
                break
            time.sleep(0.1)
        yield served
    finally:
        served.process.terminate()
        out, err = served.process.communicate(timeout=10)
        served.stdout, served.stderr = out or "", err or ""
