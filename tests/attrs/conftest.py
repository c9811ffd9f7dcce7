"""Run `kubectl rbln ...` in-process, as a user would, and see its exit code, stdout and stderr."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from kubectl_rbln.cli.main import main


@pytest.fixture
def rbln(capsys: pytest.CaptureFixture[str]) -> Callable[..., tuple[int, str, str]]:
    def run(*args: str) -> tuple[int, str, str]:
        capsys.readouterr()
        with pytest.raises(SystemExit) as exc:
            main(list(args))
        captured = capsys.readouterr()
        return int(exc.value.code or 0), captured.out, captured.err

    return run
