"""The `pod-devices` examples in the docs, regenerated from testing/pod_devices_cases.py's bundle.

An example is a fenced block that starts with `$ kubectl rbln pod-devices -f pod-devices-cases.json
...` (or `-f NAME.json`, NAME a hand-made bundle of testing/docs_bundles.py). Its text is the tool's
own output for that bundle (in-process, the CLI's own code), shaped as the pages show it: the table
whole, each finding's header whole, its summary as one line cut at 100 columns (`…`), evidence cut
the same way, fix lines whole (they are pasted). `testing.docs_examples` checks and rewrites these
blocks together with the `why` ones.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from testing.docs_blocks import cut_width, drift_of, fenced_commands, in_fix_block, rewrite
from testing.docs_bundles import BUNDLES
from testing.pod_devices_cases import build_cases
from testing.synthetic.builder import write_bundle

REPO = Path(__file__).resolve().parents[1]
PAGES = ("docs/findings", "docs/ko/findings", "docs/commands", "docs/ko/commands")
BUNDLE = "pod-devices-cases"
COMMAND = re.compile(r"^\$ kubectl rbln pod-devices -f (?P<bundle>[\w.-]+)\.json (?P<rest>.*)$")
FINDING = re.compile(r"^  [✗!i] \S+\s+\S")
WIDTH = 100


@dataclass(frozen=True)
class Example:
    page: Path
    start: int
    end: int
    args: list[str]
    bundle: str = BUNDLE  # pod-devices-cases, or a name of docs_bundles.BUNDLES


def examples(repo: Path = REPO) -> list[Example]:
    return [
        Example(page, start, end, shlex.split(match.group("rest")), match.group("bundle"))
        for page, start, end, match in fenced_commands(repo, PAGES, COMMAND)
        if match.group("bundle") == BUNDLE or match.group("bundle") in BUNDLES
    ]


def shape(output: str) -> list[str]:
    """The table and each Pod's block; a finding's summary joined into one cut line; fixes whole."""
    out: list[str] = []
    lines = output.rstrip("\n").split("\n")
    i = 0
    fix_indent: int | None = None
    while i < len(lines):
        line = lines[i]
        if FINDING.match(line):
            fix_indent = None
            out.append(line)
            i += 1
            if re.match(r"^  \S \S+\s+\S+$", line) and i < len(lines):  # a long title under the slug
                out.append(lines[i])
                i += 1
            summary = []
            while i < len(lines) and lines[i].startswith("      ") and ": " not in lines[i][:40]:
                summary.append(lines[i].strip())
                i += 1
            if summary:
                out.append(cut_width("      " + " ".join(summary), WIDTH))
            continue
        fix_indent = in_fix_block(line, fix_indent)
        out.append(line if fix_indent is not None else cut_width(line, WIDTH))
        i += 1
    return out


def render(example: Example, workdir: Path) -> list[str]:
    from click.testing import CliRunner

    from kubectl_rbln.cli.group import cli

    bundle = workdir / f"{example.bundle}.json"
    if not bundle.exists():
        write_bundle(bundle, build_cases()[0] if example.bundle == BUNDLE else BUNDLES[example.bundle]())
    result = CliRunner().invoke(
        cli,
        ["pod-devices", "-f", str(bundle), "--no-color", *example.args],
        prog_name="kubectl rbln",
        env={"COLUMNS": str(WIDTH)},  # the pages show a pipe's 100 columns, whatever runs this
    )
    return shape(result.output)


def drift(repo: Path = REPO) -> dict[Path, list[str]]:
    return drift_of(examples(repo), render)


def write(repo: Path = REPO) -> list[Path]:
    return rewrite(examples(repo), render)
