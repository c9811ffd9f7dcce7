"""The package stays `mypy` clean (it ships py.typed): the `[tool.mypy]` section of pyproject.toml."""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import pytest

from tests.conftest import REPO


@pytest.mark.slow
def test_mypy_is_clean():
    if importlib.util.find_spec("mypy") is None:
        pytest.skip("mypy not installed (pip install '.[test]')")
    result = subprocess.run(
        [sys.executable, "-m", "mypy"],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout + result.stderr
