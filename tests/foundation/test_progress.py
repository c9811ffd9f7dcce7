"""Long work draws a progress line on a terminal's stderr, and nowhere else (issue 16).

The CLI runs as a subprocess on a pseudo-terminal (`pty`), as a user would see it; with stderr or
stdout on a pipe, or with `-o json`, the line never appears. RBLN_PROGRESS_DELAY=0 draws it at once
(the real delay is one second, longer than these small bundles take).
"""

from __future__ import annotations

import json
import os
import pty
import re
import select
import subprocess
import sys
from pathlib import Path

import pytest

from kubectl_rbln import progress
from testing.synthetic import ClusterBuilder
from testing.synthetic.bundle import dumps_bundle
from tests.conftest import REPO

ESC_CLEAR = "\r\x1b[K"


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("progress") / "cluster.json"
    path.write_text(dumps_bundle(ClusterBuilder(3, "v1").build()), encoding="utf-8")
    return path


def _env(**more: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("KUBECONFIG", "LANG", "LC_ALL", "TERM")}
    env.update({"NO_COLOR": "1", "LANG": "C.UTF-8", "RBLN_PROGRESS_DELAY": "0", "TERM": "xterm"}, **more)
    return env


def _on_pty(
    args: list[str], *, stdout_pipe: bool = False, env: dict[str, str] | None = None
) -> tuple[str, str]:
    """Run the CLI with stderr (and stdout, unless `stdout_pipe`) on a pty: (pty text, piped stdout)."""
    main, child = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "kubectl_rbln", *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE if stdout_pipe else child,
        stderr=child,
        env=env or _env(),
        cwd=REPO,
    )
    os.close(child)
    seen = b""
    while True:
        ready, _, _ = select.select([main], [], [], 60)
        if not ready:
            break
        try:
            chunk = os.read(main, 65536)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        seen += chunk
    piped = proc.stdout.read().decode() if proc.stdout else ""
    proc.wait(60)
    os.close(main)
    return seen.decode("utf-8", "replace"), piped


@pytest.mark.slow  # subprocesses on a pty
def test_reading_a_file_draws_progress_on_a_terminal_and_wipes_it(bundle: Path) -> None:
    screen, _ = _on_pty(["why", "-f", str(bundle), "-A"])
    assert f"{ESC_CLEAR}reading {bundle}: " in screen
    assert " objects" in screen and " of " in screen
    # the last progress line is wiped before the report is printed
    last_line = screen.rindex("reading ")
    assert ESC_CLEAR in screen[last_line:]
    assert "Pod " in screen[screen.rindex(ESC_CLEAR) :]


@pytest.mark.slow
def test_check_draws_how_many_pods_are_done(bundle: Path) -> None:
    screen, _ = _on_pty(["check", "-f", str(bundle), "-n", "serving"])
    assert "checking device Pods: " in screen


@pytest.mark.slow
def test_progress_in_korean(bundle: Path) -> None:
    screen, _ = _on_pty(["check", "-f", str(bundle), "-n", "serving", "--lang", "ko"])
    assert "디바이스 Pod 확인 중: " in screen


@pytest.mark.slow
def test_never_with_json_output(bundle: Path) -> None:
    screen, _ = _on_pty(["why", "-f", str(bundle), "-A", "-o", "json"])
    assert "reading " not in screen and ESC_CLEAR not in screen
    assert json.loads(screen.replace("\r\n", "\n"))["kind"]


@pytest.mark.slow
def test_never_when_stdout_is_a_pipe(bundle: Path) -> None:
    screen, piped = _on_pty(["why", "-f", str(bundle), "-A"], stdout_pipe=True)
    assert "reading " not in screen and ESC_CLEAR not in screen
    assert "Pod " in piped


@pytest.mark.slow
def test_never_when_stderr_is_a_pipe(bundle: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "kubectl_rbln", "why", "-f", str(bundle), "-A"],
        capture_output=True,
        text=True,
        env=_env(),
        cwd=REPO,
        timeout=60,
    )
    assert "reading " not in done.stderr and ESC_CLEAR not in done.stderr


@pytest.mark.slow
def test_an_error_mid_read_wipes_the_line_before_it_is_said(bundle: Path, tmp_path: Path) -> None:
    document = json.loads(bundle.read_text(encoding="utf-8"))
    document["items"].append(5)  # the last item is not an object: a one-line error after reading
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps(document), encoding="utf-8")
    screen, _ = _on_pty(["why", "-f", str(broken), "-A"])
    assert "reading " in screen
    # on a terminal a long error wraps at words to its width (docs/exit-codes.md): read it joined
    joined = re.sub(r"\r\n +", " ", screen)
    assert f"{ESC_CLEAR}error: {broken}: a List item is a int, not an object" in joined


class _Terminal:
    """A stream that says it is a terminal and keeps what is written."""

    def __init__(self) -> None:
        self.text = ""

    def write(self, text: str) -> None:
        self.text += text

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return True


def test_the_line_waits_for_its_delay_then_draws_and_wipes() -> None:
    terminal = _Terminal()
    line = progress.Progress(terminal, "en", delay=3600)  # type: ignore[arg-type]
    line.show("progress-checking", {"done": 1, "total": 2})
    assert terminal.text == ""  # not yet a second of work
    line.done()
    line = progress.Progress(terminal, "en", delay=0)  # type: ignore[arg-type]
    line.show("progress-checking", {"done": 1, "total": 2_000})
    assert terminal.text == f"{ESC_CLEAR}checking device Pods: 1 of 2,000"
    line.done()
    assert terminal.text.endswith(ESC_CLEAR)


def test_not_wanted_for_json_or_yaml() -> None:
    terminal = _Terminal()
    for output in ("json", "yaml"):
        assert not progress.wanted(output, stderr=terminal)  # type: ignore[arg-type]
