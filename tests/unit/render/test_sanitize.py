"""Reports drawn on a terminal: cluster text is cleaned once; only the colours we add survive."""

from __future__ import annotations

from kubectl_rbln.render.sanitize import clean_tree, strip_controls_keep_color

ESC = "\x1b"
RED, RESET = f"{ESC}[31m", f"{ESC}[0m"


def test_our_colours_stay_every_other_sequence_goes():
    text = f"{RED}FAIL{RESET} pod {ESC}]0;title\x07decode-0{ESC}[2K {ESC}[1;32mok{ESC}[m"
    assert strip_controls_keep_color(text) == f"{RED}FAIL{RESET} pod decode-0 {ESC}[1;32mok{ESC}[m"


def test_colour_codes_cannot_smuggle_other_sequences():
    # an SGR-looking prefix followed by a cursor move: the move is not an SGR and goes
    text = f"{ESC}[31;1A{ESC}[31m"
    assert strip_controls_keep_color(text) == f"{ESC}[31m"
    assert strip_controls_keep_color(f"a{ESC}]8;;http://x{ESC}\\b") == "ab"


def test_clean_tree_cleans_every_string_keys_included_and_keeps_types():
    report = {
        f"pod{ESC}[2K": {"message": f"{RED}boom{RESET}", "count": 3, "ok": True, "none": None},
        "events": ["a\x07b", ("t\u202eu",)],
    }
    cleaned = clean_tree(report)
    assert cleaned == {
        "pod": {"message": "boom", "count": 3, "ok": True, "none": None},
        "events": ["ab", ["tu"]],
    }
    assert report[f"pod{ESC}[2K"]["message"] == f"{RED}boom{RESET}"  # a copy: the report is unchanged
