"""docs/ko pages are wrapped by display width (a Korean syllable is two columns), the same way on every
page: each prose paragraph and list item filled to 100 columns (testing/docs_wrap.py)."""

from __future__ import annotations

from kubectl_rbln.render.width import display_width
from testing.docs_wrap import WIDTH, pages, reflow


def test_reflow_fills_a_korean_paragraph_by_display_width() -> None:
    text = "가나다라 " * 40 + "`kubectl rbln why POD`를 보세요."
    lines = reflow(text).split("\n")
    assert len(lines) > 1 and all(display_width(line) <= WIDTH for line in lines)
    assert "`kubectl rbln why POD`를" in reflow(text)  # a code span stays on one line
    block = "```\n" + "가 " * 80 + "\n```"
    assert reflow(block) == block  # code is left as it is


def test_every_docs_ko_page_is_wrapped_by_display_width() -> None:
    found = pages()
    assert len(found) > 50
    stale = [
        str(page)
        for page in found
        if reflow(page.read_text(encoding="utf-8")) != page.read_text(encoding="utf-8")
    ]
    assert not stale, "run python -m testing.docs_wrap --write:\n" + "\n".join(stale)
