"""Shared test helpers: paths, and running the real CLI as a user would."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
DATA = REPO / "tests" / "data"
SAMPLES = DATA / "samples"
EXAMPLES = REPO / "examples"


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
