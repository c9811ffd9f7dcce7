"""The project stays `ruff` clean: CI runs the linter through the README's test command."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from tests.conftest import REPO

pytestmark = pytest.mark.slow  # ruff as a subprocess


def test_ruff_is_clean():
    if (
        shutil.which("ruff") is None
        and subprocess.run([sys.executable, "-m", "ruff", "--version"], capture_output=True).returncode != 0
    ):
        pytest.skip("ruff not installed (pip install '.[test]')")
    result = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "kubectl_rbln", "tests", "bench"],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
