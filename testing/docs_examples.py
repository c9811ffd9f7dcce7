"""The `why` examples in the docs, regenerated from the scenarios they name, so they cannot drift.

A docs example is a fenced block that starts with `$ kubectl rbln why -f <scenario>.json ...`, where
<scenario> is a scenario of testing/synthetic/scenarios.py. Its text is the tool's own output for
that bundle, shaped the way the pages show it: the verdict and each finding's header whole, the
summary as one line cut at 100 columns (`…`), evidence lines and the NODES table cut the same way,
fix lines whole (they are pasted), the rest (drawing, events) left out (`...`).

    python -m testing.docs_examples --check     # exit 1 and a diff when a page drifted
    python -m testing.docs_examples --write     # rewrite the drifted blocks
"""

from __future__ import annotations

import argparse
import difflib
import re
import shlex
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from kubectl_rbln.text import cut_width
from testing import docs_pod_devices
from testing.synthetic.builder import write_bundle
from testing.synthetic.scenarios import SCENARIOS

REPO = Path(__file__).resolve().parents[1]
PAGES = ("docs/findings", "docs/ko/findings")
WIDTH = 100
COMMAND = re.compile(r"^\$ kubectl rbln why -f (?P<bundle>[\w.-]+)\.json (?P<rest>.*)$")
FINDING = re.compile(r"^[✗!i] \S+\s+\S")  # `✗ error   slug  Title` (the severity word in either language)
EVIDENCE = re.compile(r"^    [\w.-]+: ")  # evidence keys are the JSON keys, in every language
FIX = re.compile(r"^    \S+: (kubectl|sudo|#|ls|lspci) ")  # `fix:` / `해결:` and its first command


@dataclass(frozen=True)
class Example:
    page: Path
    start: int  # index of the `$ kubectl rbln ...` line
    end: int  # index of the closing fence
    scenario: str
    args: list[str]


def _cut(line: str) -> str:
    """Cut at 100 display columns (a Hangul syllable is two), as a terminal would show it."""
    return cut_width(line, WIDTH)


def examples(repo: Path = REPO) -> list[Example]:
    """Every example block whose bundle is a scenario (other bundles are hand-built and skipped)."""
    found = []
    for folder in PAGES:
        for page in sorted((repo / folder).glob("*.md")):
            lines = page.read_text(encoding="utf-8").split("\n")
            for index, line in enumerate(lines):
                match = COMMAND.match(line)
                if not match or match.group("bundle") not in SCENARIOS or index == 0:
                    continue
                if not lines[index - 1].startswith("```"):
                    continue
                end = next(i for i in range(index + 1, len(lines)) if lines[i].startswith("```"))
                found.append(
                    Example(page, index, end, match.group("bundle"), shlex.split(match.group("rest")))
                )
    return found


def _shape(output: str) -> list[str]:
    """The tool's output as the pages show it: verdict, findings, the node table; then `...`."""
    out: list[str] = []
    lines = output.rstrip("\n").split("\n")
    seen_finding = in_table = False
    i = 0
    while i < len(lines):
        line = lines[i]
        if FINDING.match(line):
            seen_finding = True
            out.append(line)
            summary = []
            i += 1
            if re.match(r"^\S \S+\s+\S+$", line) and i < len(lines):  # a long title moved under the slug
                out.append(lines[i])
                i += 1
            while i < len(lines) and lines[i].startswith("    ") and not EVIDENCE.match(lines[i]):
                summary.append(lines[i].strip())
                i += 1
            if summary:
                out.append(_cut("    " + " ".join(summary)))
            continue
        if seen_finding and line and not line.startswith(" "):
            if in_table and not out[-1]:  # a second section after the node table: drawing, events
                out.pop()
                out.append("...")
                return out
            in_table = True
        in_fix = line.startswith(" " * 9) or bool(FIX.match(line))
        out.append(line if not seen_finding or in_fix else _cut(line))  # commands stay whole: pasted
        i += 1
    while out and out[-1] == "":
        out.pop()
    return out


def render(example: Example, workdir: Path) -> list[str]:
    """The block's lines for this example, from the tool itself (in-process, the CLI's own code)."""
    from click.testing import CliRunner

    from kubectl_rbln.cli.group import cli

    bundle = workdir / f"{example.scenario}.json"
    if not bundle.exists():
        write_bundle(bundle, SCENARIOS[example.scenario].build("v1"))
    result = CliRunner().invoke(
        cli, ["why", "-f", str(bundle), "--no-color", *example.args], prog_name="kubectl rbln"
    )
    return _shape(result.output)


def drift(repo: Path = REPO) -> dict[Path, list[str]]:
    """Page -> a unified diff of each drifted block (empty: no drift)."""
    out: dict[Path, list[str]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for example in examples(repo):
            lines = example.page.read_text(encoding="utf-8").split("\n")
            current = lines[example.start + 1 : example.end]
            wanted = render(example, Path(tmp))
            if current != wanted:
                diff = difflib.unified_diff(current, wanted, str(example.page), "tool", lineterm="")
                out.setdefault(example.page, []).extend(diff)
    out.update(docs_pod_devices.drift(repo))  # issue 14: pod-devices examples, their own bundle
    return out


def write(repo: Path = REPO) -> list[Path]:
    """Rewrite every drifted block; bottom-up per page so earlier indexes stay valid."""
    changed = []
    with tempfile.TemporaryDirectory() as tmp:
        by_page: dict[Path, list[Example]] = {}
        for example in examples(repo):
            by_page.setdefault(example.page, []).append(example)
        for page, items in by_page.items():
            lines = page.read_text(encoding="utf-8").split("\n")
            before = list(lines)
            for example in sorted(items, key=lambda e: e.start, reverse=True):
                lines[example.start + 1 : example.end] = render(example, Path(tmp))
            if lines != before:
                page.write_text("\n".join(lines), encoding="utf-8")
                changed.append(page)
    changed += docs_pod_devices.write(repo)  # issue 14: pod-devices examples, their own bundle
    return changed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--check", action="store_true")
    group.add_argument("--write", action="store_true")
    args = parser.parse_args(argv)
    if args.write:
        for page in write():
            print(f"rewrote {page.relative_to(REPO)}")
        return 0
    drifted = drift()
    for lines in drifted.values():
        print("\n".join(lines))
    return 1 if drifted else 0


if __name__ == "__main__":
    sys.exit(main())
