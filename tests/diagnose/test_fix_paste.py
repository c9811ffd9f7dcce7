"""Paste-safe fixes (issue 13, bullet 4): a fix block pasted into a shell runs only commands.

Explanations are `# ...` comment lines, commands stand alone on their lines, and a file a fix
writes is a heredoc (`sudo tee FILE <<'EOF'` ... `EOF`), so no line of a drop-in (`[Service]`)
is ever run as a command.
"""

from __future__ import annotations

import re

import pytest

from kubectl_rbln.catalog import load_catalog
from kubectl_rbln.render.why_table import COMMAND_WORDS

MAIN = (
    "memlock-limit",
    "attribute-not-advertised",
    "constraint-unsatisfiable",
    "selector-matches-nothing",
    "device-class-missing",
    "claim-template-missing",
)
HEREDOC = re.compile(r"<<-?'(\w+)'")


def shell_lines(lines: list[str]) -> list[str]:
    """The lines a shell would run as commands: comments and heredoc bodies left out."""
    out = []
    end = None
    for block in lines:
        for line in block.split("\n"):
            text = line.strip()
            if end is not None:
                end = None if text == end else end
                continue
            if text and not text.startswith("#"):
                out.append(text)
            heredoc = HEREDOC.search(text)
            if heredoc:
                end = heredoc.group(1)
    return out


def test_shell_lines_skip_heredoc_bodies() -> None:
    drop_in = "sudo tee /etc/x.conf <<'EOF'\n[Service]\nLimitMEMLOCK=infinity\nEOF"
    fix = ["# a drop-in", drop_in, "sudo systemctl restart x"]
    assert shell_lines(fix) == ["sudo tee /etc/x.conf <<'EOF'", "sudo systemctl restart x"]


@pytest.mark.parametrize("lang", ["en", "ko"])
@pytest.mark.parametrize("slug", MAIN)
def test_main_fixes_are_commands_or_comments(slug: str, lang: str) -> None:
    for case, words in load_catalog()[slug].all_words():
        lines = [line.text for line in words.remediation[lang]]
        for text in shell_lines(lines):
            first = text.split(" ", 1)[0]
            assert first in COMMAND_WORDS, f"{slug}/{case}/{lang}: not a command: {text!r}"


def test_memlock_drop_ins_are_heredocs() -> None:
    for lang in ("en", "ko"):
        lines = [line.text for line in load_catalog()["memlock-limit"].remediation[lang]]
        text = "\n".join(lines)
        assert "sudo tee /etc/systemd/system/containerd.service.d/20-memlock.conf <<'EOF'\n[Service]" in text
        assert "sudo tee /etc/crio/crio.conf.d/20-memlock.conf <<'EOF'\n[crio.runtime]" in text
        assert "[Service]" not in shell_lines(lines)
