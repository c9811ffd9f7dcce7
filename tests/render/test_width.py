"""Layout by the terminal's width (issue 25): every human output fits 80 and 100 columns, cut nowhere.

Every scenario's why, check, attrs, topo, pod-devices and suggest-rct text (tests/render/korean_kit.py
computes each report once), in English and Korean, drawn at 80 and at 100 columns:

- no line passes the width in display columns (a Hangul syllable is two), except a command to
  paste (a fix block's command lines, a `kubectl ...` line, the lines a trailing `\\` continues)
  and a line holding one word or inline command wider than the room (an ID, a URL: never broken);
- nothing is cut: no `…` anywhere, and the words drawn at 80 columns are exactly the words drawn at
  100 (wrapping moves words between lines, it never drops, cuts or adds one);
- a wrapped note of a fix block never leaves one word alone on its last line (`# run`).

Plus the width rule itself (COLUMNS, the terminal, 100 for a pipe, never under 80), as the CLI applies it.
"""

from __future__ import annotations

import io
import re
import time
from collections import Counter

import pytest
from korean_kit import renders

from kubectl_rbln.catalog.fill import COMMAND_WORDS
from kubectl_rbln.render.columns import plain_table
from kubectl_rbln.render.width import _units, fit_items, output_width, wrap_width
from kubectl_rbln.render.width import display_width as dw
from testing.docs_blocks import in_fix_block

WIDTHS = (80, 100)
LANGS = ("en", "ko")
SUMMARY = re.compile(r"\sand\s+\d+\s+more|\s외\s+\d+개|\d+\s+more\s+words|단어\s+\d+개\s+더")


def _exempt(lines: list[str], width: int) -> set[int]:
    """Indexes of the lines allowed past the width: commands to paste, and lines that hold one word
    (an ID, a URL) or one inline command that is wider than the room by itself."""
    found: set[int] = set()
    fix_indent: int | None = None
    for index, line in enumerate(lines):
        fix_indent = in_fix_block(line, fix_indent)
        text = line.strip()
        indent = dw(line) - dw(line.lstrip())
        continued = index > 0 and lines[index - 1].endswith("\\")
        in_fix = fix_indent is not None and not text.startswith("#")
        command = text.split(" ", 1)[0] in COMMAND_WORDS or line.endswith("\\")
        unbreakable = [u for u in _units(text.split()) if indent + dw(u) > width - 2]
        if in_fix or continued or command or " " not in text or unbreakable:
            found.add(index)
    return found


def _widows(lines: list[str], width: int) -> list[str]:
    """A fix note's last line holding one short word that the line before could not take: a wrap
    that left it alone (`# run`)."""
    out = []
    for index in range(1, len(lines)):
        before, line = lines[index - 1].strip(), lines[index].strip()
        after = lines[index + 1].strip() if index + 1 < len(lines) else ""
        words = line.split()
        note = before.startswith("# ") and len(words) == 2 and words[0] == "#" and not after.startswith("#")
        wrapped = dw(lines[index - 1]) + 1 + dw(words[1] if note else "") > width  # it was wrapped there
        if note and dw(words[1]) < 16 and len(before.split()) > 2 and wrapped:
            out.append(f"{lines[index - 1]}\n{lines[index]}")
    return out


@pytest.fixture(scope="module")
def drawn() -> dict[tuple[str, str, str, int], str]:
    """(scenario, command, lang, width) -> text, every report computed once and drawn four times."""
    started = time.perf_counter()
    out = {}
    for scenario, name, render in renders(wide=(False,)):
        for lang in LANGS:
            for width in WIDTHS:
                out[scenario, name, lang, width] = render(lang, width)
    took = time.perf_counter() - started
    assert took < 60, f"drawing every scenario at both widths took {took:.0f}s"
    return out


def test_every_output_fits_its_width(drawn: dict[tuple[str, str, str, int], str]) -> None:
    over = []
    for (scenario, name, lang, width), text in drawn.items():
        lines = text.splitlines()
        commands = _exempt(lines, width)
        over += [
            f"{scenario} {name} {lang} @{width}: {dw(line)}: {line}"
            for index, line in enumerate(lines)
            if dw(line) > width and index not in commands
        ]
    assert len(drawn) > 600
    assert not over, f"{len(over)} lines over the width:\n" + "\n".join(over[:30])


def test_nothing_is_cut(drawn: dict[tuple[str, str, str, int], str]) -> None:
    cut = [f"{key}: {line}" for key, text in drawn.items() for line in text.splitlines() if "…" in line]
    assert not cut, "\n".join(cut[:20])


def test_wrapping_keeps_every_word(drawn: dict[tuple[str, str, str, int], str]) -> None:
    """At 80 columns the same words as at 100: boxes stack, cells and sentences wrap, nothing goes."""
    differ = []
    for (scenario, name, lang, width), narrow in drawn.items():
        if width != 80:
            continue
        broad = drawn[scenario, name, lang, 100]
        if SUMMARY.search(narrow) or SUMMARY.search(broad):  # a list summarised to what fits
            continue
        lost = Counter(_words(broad)) - Counter(_words(narrow))
        added = Counter(_words(narrow)) - Counter(_words(broad))
        if lost or added:
            differ.append(f"{scenario} {name} {lang}: lost {dict(lost)}, added {dict(added)}")
    assert not differ, "\n".join(differ[:20])


def _words(text: str) -> list[str]:
    """The words of a text without what layout adds: box borders (a stacked box has more) and the
    `#` that starts each line of a wrapped note."""
    return [w for w in text.split() if w.strip("┌┐└┘│─") and w != "#"]


def test_no_note_leaves_a_word_alone(drawn: dict[tuple[str, str, str, int], str]) -> None:
    alone = [f"{key}:\n{pair}" for key, text in drawn.items() for pair in _widows(text.splitlines(), key[3])]
    assert not alone, "\n".join(alone[:10])


def test_narrow_topology_stacks_its_boxes(drawn: dict[tuple[str, str, str, int], str]) -> None:
    """NUMA boxes side by side at 100 columns go one above the other when 80 columns cannot hold them."""
    stacked = []
    for (scenario, name, lang, width), text in drawn.items():
        if width == 100 and any(line.count("┌") > 1 and dw(line) > 80 for line in text.splitlines()):
            narrow = drawn[scenario, name, lang, 80]
            assert narrow.count("┌") == text.count("┌"), f"{scenario} {name} {lang}: a box went missing"
            assert narrow.count("\n┌") > text.count("\n┌"), f"{scenario} {name} {lang}: not stacked"
            stacked.append(name)
    assert {"why/table", "topo/table"} <= set(stacked)


# ----------------------------------------------------------------------------- the helpers


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True

    def fileno(self) -> int:
        raise OSError("no terminal here")


@pytest.mark.parametrize(
    ("environ", "stream", "width"),
    [
        ({"COLUMNS": "132"}, None, 132),
        ({"COLUMNS": "200"}, None, 200),
        ({"COLUMNS": "60"}, None, 80),  # narrower than 80 lays out at 80
        ({"COLUMNS": "wide"}, None, 100),  # not a number: as if unset
        ({"COLUMNS": "0"}, None, 100),
        ({}, io.StringIO(), 100),  # a pipe or a file
        ({}, _Tty(), 100),  # a terminal whose size cannot be read
    ],
)
def test_output_width_rule(environ: dict[str, str], stream: io.StringIO | None, width: int) -> None:
    assert output_width(stream, environ) == width


def test_a_table_wraps_its_widest_cells_instead_of_cutting() -> None:
    rows = [
        ["npu-node-01", "no", "matchAttribute numaNode — 0: 4/4 npu, 0/2 nic; 1: 4/4 npu, 0/2 nic; 4 lack it"]
    ]
    lines = plain_table(rows, headers=["NODE", "FITS", "WHY"], width=60)
    assert max(dw(line) for line in lines) <= 60
    assert " ".join(lines).split() == ["NODE", "FITS", "WHY"] + " ".join(rows[0]).split()
    assert lines[2].startswith(" " * len("npu-node-01  no    "))  # the reason goes on under its column


def test_korean_cells_wrap_by_display_width() -> None:
    lines = plain_table([["노드", "디바이스가 부족합니다 " * 4]], headers=["이름", "이유"], width=40)
    assert max(dw(line) for line in lines) <= 40
    assert len(lines) > 2


def test_a_long_list_is_summarised_with_a_count() -> None:
    names = [f"npu-node-{i:02}" for i in range(30)]
    shown = fit_items(names, 60, lambda s, n: f"{s} and {n} more")
    assert dw(shown) <= 60
    kept, _, count = shown.rpartition(" and ")
    assert len(kept.split(", ")) + int(count.split()[0]) == 30
    assert fit_items(names[:2], 60, lambda s, n: "unused") == "npu-node-00, npu-node-01"


def test_a_wrapped_note_keeps_two_words_on_its_last_line() -> None:
    text = "paste this block by itself: ssh reads whatever is pasted after it and then run"
    assert wrap_width(text, 39, "# ", "# ")[-1] == "# run"  # what plain wrapping does
    lines = wrap_width(text, 39, "# ", "# ", widow=False)
    assert lines[-1] == "# then run"
    assert max(dw(line) for line in lines) <= 39


def test_the_cli_lays_out_for_columns(inprocess_rbln, monkeypatch: pytest.MonkeyPatch) -> None:
    """COLUMNS=80: prose wraps to 80; COLUMNS=200: the same report uses the room (issue 25's two runs)."""
    monkeypatch.setenv("COLUMNS", "80")
    _, narrow, _ = inprocess_rbln("why", "--example", "--no-color")
    lines = narrow.splitlines()
    commands = _exempt(lines, 80)
    assert [line for i, line in enumerate(lines) if dw(line) > 80 and i not in commands] == []
    monkeypatch.setenv("COLUMNS", "200")
    _, broad, _ = inprocess_rbln("why", "--example", "--no-color")
    assert len(broad.splitlines()) < len(lines)
    assert max(dw(line) for line in broad.splitlines() if "kubectl" not in line) > 100
    assert Counter(_words(broad)) == Counter(_words(narrow))
