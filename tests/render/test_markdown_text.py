"""`kubectl rbln explain`: every page, in both languages, reads in a terminal with no markdown left."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kubectl_rbln.catalog import load_catalog
from kubectl_rbln.cli.explain import TOPICS, explainable
from kubectl_rbln.render.markdown_text import link_target, terminal_page

DOCS = Path(__file__).resolve().parents[2] / "docs"
PAGES = sorted(
    [p.relative_to(DOCS).as_posix() for p in (DOCS / "findings").glob("*.md")]
    + [p.relative_to(DOCS).as_posix() for p in (DOCS / "ko" / "findings").glob("*.md")]
    + [f"{lang}{topic}.md" for topic in TOPICS if topic != "rbac" for lang in ("", "ko/")]
)
RAW = re.compile(r"```|\]\(|\*\*[^*\n]+\*\*|^#{1,6} ")


def _render(page: str) -> str:
    lang = "ko" if page.startswith("ko/") else "en"
    text = (DOCS / page).read_text(encoding="utf-8")
    return terminal_page(text, page, lang, explainable=explainable)


@pytest.mark.parametrize("page", PAGES)
def test_no_markdown_is_left_outside_code(page: str) -> None:
    for line in _render(page).splitlines():
        if line.startswith("    "):
            continue  # a code block, indented: its text is the command or output as it is
        assert not RAW.search(line), f"{page}: {line!r}"
        assert "`" not in line, f"{page}: {line!r}"


def test_every_findings_page_has_been_swept_in_both_languages() -> None:
    slugs = set(load_catalog())
    assert {
        p.removeprefix("findings/").removesuffix(".md") for p in PAGES if p.startswith("findings/")
    } == slugs
    assert {
        p.removeprefix("ko/findings/").removesuffix(".md") for p in PAGES if p.startswith("ko/findings/")
    } == slugs


def test_a_page_reads_as_text_with_its_code_indented() -> None:
    text = _render("findings/memlock-limit.md")
    lines = text.splitlines()
    assert lines[0] == "memlock-limit"
    assert "What it means" in lines and "How why detects it" in lines
    first = "ssh -t npu-node-01 'sudo systemctl show containerd -p LimitMEMLOCK; "
    assert f"    {first}sudo crictl pods --state NotReady'" in lines
    assert "한국어: kubectl rbln explain memlock-limit --lang ko" in lines


def test_the_korean_page_reads_as_text_and_points_back_to_english() -> None:
    lines = _render("ko/findings/memlock-limit.md").splitlines()
    assert lines[0] == "memlock-limit" and "의미" in lines
    assert "English: kubectl rbln explain memlock-limit --lang en" in lines


@pytest.mark.parametrize(
    ("target", "page", "lang", "where"),
    [
        (
            "selector-error.md",
            "findings/simulation-disagrees.md",
            "en",
            "kubectl rbln explain selector-error",
        ),
        ("../exit-codes.md", "findings/claim-stale.md", "en", "kubectl rbln explain exit-codes"),
        ("../commands/why.md#how-a-fix-reads", "findings/claim-stale.md", "en", "docs/commands/why.md"),
        (
            "../../findings/claim-stale.md",
            "ko/findings/memlock-limit.md",
            "ko",
            "kubectl rbln explain claim-stale --lang en",
        ),
        ("claim-stale.md", "ko/findings/memlock-limit.md", "ko", "kubectl rbln explain claim-stale"),
        (
            "../ko/findings/claim-stale.md",
            "findings/memlock-limit.md",
            "en",
            "kubectl rbln explain claim-stale --lang ko",
        ),
        ("#what-it-means", "findings/memlock-limit.md", "en", ""),
        ("https://kubernetes.io/docs/", "findings/memlock-limit.md", "en", "https://kubernetes.io/docs/"),
        ("../architecture.md", "findings/memlock-limit.md", "en", "docs/architecture.md"),
    ],
)
def test_a_link_becomes_what_opens_it_here(target: str, page: str, lang: str, where: str) -> None:
    assert link_target(target, page, lang, explainable) == where


def test_a_table_is_aligned_in_columns() -> None:
    text = "| code | meaning |\n|---|---|\n| 0 | nothing to fix |\n| 10 | `x` |\n"
    lines = terminal_page(text, "exit-codes.md", "en", explainable=explainable).splitlines()
    assert lines == ["code  meaning", "0     nothing to fix", "10    x"]
