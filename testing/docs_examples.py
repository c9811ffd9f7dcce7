"""The examples in the docs, regenerated from the runs they show, so they cannot drift.

A docs example is a fenced block whose first line is `$ kubectl rbln COMMAND -f BUNDLE.json ARGS`
(or `$ kubectl rbln why --example ARGS`), where COMMAND is registered in SHAPES and BUNDLE is a
scenario of testing/synthetic/scenarios.py, a hand-made bundle of testing/docs_bundles.py (a scenario
plus the change its page names) or a file of the repository's examples/ folder
(`examples/pending-decode.json`, the bundled example). Its text is the tool's own output for that
bundle, run in-process through the CLI, shaped the way the pages show it (SHAPES, one per command):

- why: the verdict and each finding's header whole, the summary as one line cut at 100 columns
  (`…`), evidence lines and the NODES table cut the same way, fix lines whole (they are pasted), the
  rest (drawing, events) left out (`...`); a bundle of docs_bundles.ONLY shows its one finding;
- check, attrs: their first sections (heading, table, summary), then `...`;
- topo, suggest-rct: the whole output.

A shell redirection in ARGS chooses the stream: `2>/dev/null` shows stdout only, `> FILE` stderr only
(suggest-rct's explanation), none both. To add an example, write its block in a page (Korean pages
add `--lang ko`); to add a command, register its shape in SHAPES (one line).

    python -m testing.docs_examples --check     # exit 1 and a diff when a page drifted
    python -m testing.docs_examples --write     # rewrite the drifted blocks
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from kubectl_rbln.catalog import load_sentences
from testing import docs_pod_devices
from testing.docs_blocks import cut_width, drift_of, fenced_commands, in_fix_block, rewrite
from testing.docs_bundles import BUNDLES, ONLY
from testing.modes import write_wanted
from testing.synthetic.builder import write_bundle
from testing.synthetic.scenarios import SCENARIOS

REPO = Path(__file__).resolve().parents[1]
PAGES = ("docs/findings", "docs/ko/findings", "docs/commands", "docs/ko/commands", "docs", "docs/ko")
WIDTH = 100
COMMAND = re.compile(
    r"^\$ kubectl rbln (?P<command>[\w-]+) "
    r"(?:-f (?P<bundle>[\w./-]+)\.json|(?P<example>--example))(?P<rest>.*)$"
)
FINDING = re.compile(r"^[✗!i] \S+\s+\S")  # `✗ error   slug  Title` (the severity word in either language)


def _labels() -> re.Pattern[str]:
    """A finding's labelled line (evidence, `fix:`, `docs:`), so its summary ends there: a JSON key, or
    the catalog's label for it in either language (`스케줄러 오류`, `claims unallocated`, `{name} (not
    found)`)."""
    texts = load_sentences()
    labels = {text for key, value in texts.items() if key.startswith("evidence-") for text in value.values()}
    labels |= {text.rstrip(":") for key in ("label-fix", "label-docs") for text in texts[key].values()}
    spelled = (r"\S+".join(map(re.escape, re.split(r"\{\w+\}", label))) for label in labels)
    return re.compile(r"^    (?:[\w.-]+|" + "|".join(sorted(spelled, key=len, reverse=True)) + r"):(?: |$)")


EVIDENCE = _labels()
DOCS = re.compile(r"^    \S+: docs/")  # a finding's last line: `docs:` / `문서:` and its page


@dataclass(frozen=True)
class Example:
    page: Path
    start: int  # index of the `$ kubectl rbln ...` line
    end: int  # index of the closing fence
    scenario: str  # a scenario or docs_bundles name, or a repository path (examples/pending-decode.json)
    args: list[str]
    command: str = "why"
    stream: str = "both"  # both | stdout (`2>/dev/null`) | stderr (`> FILE`)


def _cut(line: str) -> str:
    """Cut at 100 display columns (a Hangul syllable is two), as a terminal would show it."""
    return cut_width(line, WIDTH)


def _bundle(match: re.Match[str], repo: Path) -> str | None:
    """The scenario, hand-made bundle or repository file the block reads; None when it is none."""
    if match.group("example"):
        return "--example"
    bundle = match.group("bundle")
    if bundle in SCENARIOS or bundle in BUNDLES:
        return bundle
    path = f"{bundle}.json"
    return path if path.startswith("examples/") and (repo / path).is_file() else None


def _stream(words: list[str]) -> tuple[list[str], str]:
    """The arguments without a trailing shell redirection, and the stream the page shows."""
    if "2>/dev/null" in words:
        return [w for w in words if w != "2>/dev/null"], "stdout"
    if ">" in words:
        return words[: words.index(">")], "stderr"
    return words, "both"


def examples(repo: Path = REPO) -> list[Example]:
    """Every example block of a registered command whose bundle is a scenario, a hand-made bundle
    (docs_bundles.py) or a repository file."""
    found = []
    for page, start, end, match in fenced_commands(repo, PAGES, COMMAND):
        bundle = _bundle(match, repo)
        if match.group("command") not in SHAPES or bundle is None:
            continue
        args, stream = _stream(shlex.split(match.group("rest")))
        if any(arg.startswith("<") for arg in args):
            continue  # a placeholder (`<TAB>`): an illustration of typing, not a run
        found.append(Example(page, start, end, bundle, args, match.group("command"), stream))
    return found


def _shape_why(output: str) -> list[str]:
    """The tool's output as the pages show it: verdict, findings, the node table; then `...`."""
    out: list[str] = []
    lines = output.rstrip("\n").split("\n")
    seen_finding = in_table = False
    fix_indent: int | None = None
    i = 0
    while i < len(lines):
        line = lines[i]
        if FINDING.match(line):
            fix_indent = None
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
        fix_indent = in_fix_block(line, fix_indent)
        out.append(line if not seen_finding or fix_indent is not None else _cut(line))  # pasted: whole
        i += 1
    while out and out[-1] == "":
        out.pop()
    return out


def _only(lines: list[str], slug: str) -> list[str]:
    """Shaped `why` lines cut to the verdict and the one finding of `slug`, the rest `...`."""
    verdict = lines[: lines.index("")] if "" in lines else lines
    start = next(i for i, line in enumerate(lines) if FINDING.match(line) and line.split()[2] == slug)
    end = next(i for i in range(start, len(lines)) if DOCS.match(lines[i])) + 1  # its `docs:` line
    before = [*verdict, "..."] if start > len(verdict) + 1 else [*verdict, ""]
    return [*before, *lines[start:end], *(["..."] if end < len(lines) else [])]


def _whole(output: str) -> list[str]:
    """The output as it is, without its trailing blank lines."""
    return output.rstrip("\n").split("\n")


def _sections(count: int) -> Callable[[str], list[str]]:
    """The first `count` blank-line-separated sections, then `...` when more follow."""

    def shape(output: str) -> list[str]:
        sections = output.rstrip("\n").split("\n\n")
        shown = "\n\n".join(sections[:count]).split("\n")
        return shown + ["..."] if len(sections) > count else shown

    return shape


# How a page shows each command's output: one registration per command.
SHAPES: dict[str, Callable[[str], list[str]]] = {
    "why": _shape_why,
    "check": _sections(3),
    "attrs": _sections(3),
    "topo": _whole,
    "suggest-rct": _whole,
}


@contextlib.contextmanager
def _inside(folder: Path) -> Iterator[None]:
    """Run with `folder` as the working directory, so the output names the bundle as the page does."""
    before = Path.cwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(before)


def render(example: Example, workdir: Path, repo: Path = REPO) -> list[str]:
    """The block's lines for this example, from the tool itself (in-process, the CLI's own code)."""
    from click.testing import CliRunner

    from kubectl_rbln.cli.group import cli

    if example.scenario in SCENARIOS or example.scenario in BUNDLES:
        folder, path = workdir, f"{example.scenario}.json"
        if not (workdir / path).exists():
            name = example.scenario
            write_bundle(
                str(workdir / path), SCENARIOS[name].build("v1") if name in SCENARIOS else BUNDLES[name]()
            )
    else:
        folder, path = repo, example.scenario
    source = ["--example"] if path == "--example" else ["-f", path]
    with _inside(folder):
        result = CliRunner().invoke(
            cli,
            [example.command, *source, "--no-color", *example.args],
            prog_name="kubectl rbln",
            env={"COLUMNS": str(WIDTH)},  # the pages show a pipe's 100 columns, whatever runs this
        )
    output = {"both": result.output, "stdout": result.stdout, "stderr": result.stderr}[example.stream]
    lines = SHAPES[example.command](output)
    slug = ONLY.get(example.scenario)
    return _only(lines, slug) if slug and example.command == "why" else lines


def drift(repo: Path = REPO) -> dict[Path, list[str]]:
    """Page -> a unified diff of each drifted block (empty: no drift)."""
    out = drift_of(examples(repo), lambda example, workdir: render(example, workdir, repo))
    out.update(docs_pod_devices.drift(repo))  # issue 14: pod-devices examples, their own bundle
    return out


def write(repo: Path = REPO) -> list[Path]:
    """Rewrite every drifted block."""
    changed = rewrite(examples(repo), lambda example, workdir: render(example, workdir, repo))
    return changed + docs_pod_devices.write(repo)  # issue 14: pod-devices examples, their own bundle


def main(argv: list[str] | None = None) -> int:
    writing = write_wanted(argv, __doc__)
    if writing:
        for page in write():
            print(f"rewrote {page.relative_to(REPO)}")
        return 0
    drifted = drift()
    for lines in drifted.values():
        print("\n".join(lines))
    return 1 if drifted else 0


if __name__ == "__main__":
    sys.exit(main())
