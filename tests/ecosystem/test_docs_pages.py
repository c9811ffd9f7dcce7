"""A page per finding slug, in English and Korean, and `explain` prints it."""

from __future__ import annotations

from pathlib import Path

import pytest

from kubectl_rbln.diagnose.catalog import load_catalog

REPO = Path(__file__).resolve().parents[2]
SLUGS = set(load_catalog())


@pytest.mark.parametrize("folder", ["docs/findings", "docs/ko/findings"])
def test_every_slug_has_a_page_and_every_page_names_a_slug(folder: str) -> None:
    pages = {p.stem: p for p in (REPO / folder).glob("*.md")}
    assert SLUGS - set(pages) == set(), f"slugs without a page in {folder}"
    assert set(pages) - SLUGS == set(), f"pages in {folder} that name no slug"
    for slug, page in pages.items():
        assert page.read_text(encoding="utf-8").startswith(f"# {slug}\n")


def test_every_catalog_entry_has_korean_text() -> None:
    for slug, entry in load_catalog().items():
        assert entry.title.get("ko") and entry.summary.get("ko") and entry.remediation.get("ko"), slug


def test_every_english_page_has_a_korean_page() -> None:
    docs = REPO / "docs"
    english = {p.relative_to(docs) for p in docs.rglob("*.md") if "ko" not in p.relative_to(docs).parts}
    korean = {p.relative_to(docs / "ko") for p in (docs / "ko").rglob("*.md")}
    missing = {str(p) for p in english - korean if p.parts[0] != "commands" or (docs / p).exists()}
    assert missing <= {"architecture.md", "bundle.md", "replay-server.md", "commands/pod-devices.md"} | {
        str(p) for p in english if p.parts[0] == "commands"
    } - {str(p) for p in korean}, sorted(missing)


def test_explain_prints_the_page_in_english_and_korean(rbln) -> None:
    english = rbln("explain", "constraint-unsatisfiable")
    assert english.returncode == 0 and english.stdout.startswith("# constraint-unsatisfiable\n")
    korean = rbln("explain", "constraint-unsatisfiable", env={"LANG": "ko_KR.UTF-8"})
    assert korean.returncode == 0 and "## 의미" in korean.stdout
    assert "## 의미" in rbln("explain", "constraint-unsatisfiable", "--lang", "ko").stdout
    unknown = rbln("explain", "memlok")
    assert unknown.returncode == 2 and "did you mean memlock-limit" in unknown.stderr and unknown.stdout == ""
