"""The docs a user reads: a page per finding slug and per command, in English and Korean.

Finding pages have a fixed shape (what it means, why it matters, how `why` detects it, how to
fix, an example); command pages name every long flag `--help` shows; every page has a Korean
twin under docs/ko/; the index shows a real `why` session and its terminal capture.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from click.testing import CliRunner

from kubectl_rbln.catalog import load_catalog
from kubectl_rbln.cli.group import COMMANDS, cli

REPO = Path(__file__).resolve().parents[2]
DOCS = REPO / "docs"
SLUGS = set(load_catalog())
FINDING_SECTIONS = {
    "docs/findings": ["What it means", "Why it matters", "How `why` detects it", "How to fix", "Example"],
    "docs/ko/findings": ["의미", "중요한 이유", "`why`가 감지하는 방법", "해결 방법", "예시"],
}
# Pages another owner writes, with their Korean twin.
NOT_YET_TRANSLATED: set[str] = set()
SVG = "{http://www.w3.org/2000/svg}"


def headings(text: str) -> list[str]:
    return re.findall(r"^## (.+)$", text, flags=re.MULTILINE)


@pytest.mark.parametrize("folder", ["docs/findings", "docs/ko/findings"])
def test_every_slug_has_a_page_and_every_page_names_a_slug(folder: str) -> None:
    pages = {p.stem: p for p in (REPO / folder).glob("*.md")}
    assert SLUGS - set(pages) == set(), f"slugs without a page in {folder}"
    assert set(pages) - SLUGS == set(), f"pages in {folder} that name no slug"
    for slug, page in pages.items():
        assert page.read_text(encoding="utf-8").startswith(f"# {slug}\n")


@pytest.mark.parametrize("folder", sorted(FINDING_SECTIONS))
def test_every_finding_page_has_the_five_sections_in_order(folder: str) -> None:
    wanted = FINDING_SECTIONS[folder]
    for page in sorted((REPO / folder).glob("*.md")):
        text = page.read_text(encoding="utf-8")
        found = headings(text)
        assert found == wanted, f"{page.relative_to(REPO)}: sections {found}, want {wanted}"
        for section in re.split(r"^## .+$", text, flags=re.MULTILINE)[1:]:
            assert section.strip(), f"{page.relative_to(REPO)} has an empty section"


@pytest.mark.parametrize("folder", sorted(FINDING_SECTIONS))
def test_every_example_is_a_real_run_that_reports_the_slug(folder: str) -> None:
    """The example shows a command and output that names the page's own slug."""
    for page in sorted((REPO / folder).glob("*.md")):
        example = page.read_text(encoding="utf-8").split(f"## {FINDING_SECTIONS[folder][-1]}", 1)[1]
        block = re.search(r"```\n(.*?)```", example, flags=re.DOTALL)
        assert block, f"{page.name}: no example output"
        lines = block.group(1).splitlines()
        assert re.match(r"\$ kubectl rbln (why|pod-devices) ", lines[0]), page.name
        assert any(re.search(rf"^ *[✗!] \S+ +{page.stem}( |$)", line) for line in lines), page.name
        docs = f"docs/{'ko/' if '/ko/' in folder else ''}findings/{page.stem}.md"
        assert re.search(rf"(docs|문서): {re.escape(docs)}", block.group(1)), page.name


def test_every_catalog_entry_has_korean_text() -> None:
    for slug, entry in load_catalog().items():
        assert entry.title.get("ko") and entry.summary.get("ko") and entry.remediation.get("ko"), slug


def test_every_page_has_a_korean_twin() -> None:
    english = {str(p.relative_to(DOCS)) for p in DOCS.rglob("*.md") if p.relative_to(DOCS).parts[0] != "ko"}
    korean = {str(p.relative_to(DOCS / "ko")) for p in (DOCS / "ko").rglob("*.md")}
    assert english - korean - NOT_YET_TRANSLATED == set(), "pages without a docs/ko/ twin"
    assert korean - english == set(), "Korean pages without an English original"


def test_every_command_has_a_page() -> None:
    for lang in ("", "ko/"):
        pages = {p.stem for p in (DOCS / lang / "commands").glob("*.md")}
        assert pages == set(COMMANDS), f"docs/{lang}commands"
        index = (DOCS / lang / "index.md").read_text(encoding="utf-8")
        for command in COMMANDS:
            assert f"(commands/{command}.md)" in index, f"docs/{lang}index.md does not link {command}"


def help_text(*words: str) -> str:
    done = CliRunner().invoke(cli, [*words, "--help"], prog_name="kubectl rbln")
    assert done.exit_code == 0, done.output
    return done.output


def long_flags(*words: str) -> set[str]:
    """The long flags `--help` shows for a command and, for a group, for each subcommand."""
    text = help_text(*words)
    flags = set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", text.split("Options:", 1)[-1]))
    command = cli.get_command(None, words[0])  # type: ignore[arg-type]
    for sub in getattr(command, "commands", {}) if len(words) == 1 else {}:
        flags |= long_flags(words[0], sub)
    return flags - {"--help"}


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_long_flag_of_help_is_on_the_command_page(command: str) -> None:
    flags = long_flags(command)
    assert flags, command
    for lang in ("", "ko/"):
        page = (DOCS / lang / "commands" / f"{command}.md").read_text(encoding="utf-8")
        missing = {flag for flag in flags if not re.search(rf"{re.escape(flag)}(?![\w-])", page)}
        assert missing == set(), f"docs/{lang}commands/{command}.md lacks {sorted(missing)}"
        assert "```" in page and f"kubectl rbln {command}" in page, "no example"
        assert "see issue" not in page.lower()


def svg_lines(path: Path) -> list[str]:
    root = ET.parse(path).getroot()
    text = root.find(f"{SVG}text")
    assert text is not None
    return ["".join(line.itertext()) for line in text.findall(f"{SVG}tspan")]


def test_index_shows_a_real_why_session_and_its_terminal_capture(rbln) -> None:
    run = rbln("why", "--example")
    verdict = run.stdout.splitlines()[0]
    assert verdict.startswith("Pod serving/") and " is Pending: " in verdict
    capture = DOCS / "img" / "why-example.svg"
    lines = svg_lines(capture)  # parses as XML
    assert verdict in lines, "the capture's verdict line differs from `kubectl rbln why --example`"
    assert "attribute-not-advertised" in " ".join(lines)
    assert 'fill="#' in capture.read_text(encoding="utf-8"), "the capture has no colour"
    korean = rbln("why", "--example", "--lang", "ko").stdout.splitlines()[0]
    for lang, line in (("", verdict), ("ko/", korean)):
        index = (DOCS / lang / "index.md").read_text(encoding="utf-8")
        assert f"]({'../' if lang else ''}img/why-example.svg)" in index
        assert line in index, f"docs/{lang}index.md does not show the real verdict"


def test_explain_prints_the_page_in_english_and_korean(rbln) -> None:
    english = rbln("explain", "constraint-unsatisfiable")
    # read in a terminal: headings as plain lines, no markdown marks, links as the command that opens them
    assert english.returncode == 0 and english.stdout.startswith("constraint-unsatisfiable\n")
    assert "\nHow why detects it\n" in english.stdout and "```" not in english.stdout
    assert "한국어: kubectl rbln explain constraint-unsatisfiable --lang ko" in english.stdout
    korean = rbln("explain", "constraint-unsatisfiable", env={"LANG": "ko_KR.UTF-8"})
    assert korean.returncode == 0 and "\n의미\n" in korean.stdout and "\n예시\n" in korean.stdout
    assert "\n의미\n" in rbln("explain", "constraint-unsatisfiable", "--lang", "ko").stdout
    unknown = rbln("explain", "memlok")
    assert unknown.returncode == 2 and "did you mean memlock-limit" in unknown.stderr and unknown.stdout == ""
