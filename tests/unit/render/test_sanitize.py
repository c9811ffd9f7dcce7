"""Reports drawn on a terminal: cluster text is cleaned once; only the colours we add survive."""

from __future__ import annotations

import json
import re

from kubectl_rbln.app.why import WhyRequest, why
from kubectl_rbln.dra.normalize import build_snapshot
from kubectl_rbln.render.sanitize import clean_tree, strip_controls_keep_color
from kubectl_rbln.render.why_table import render_why
from testing.synthetic.builder import ClusterBuilder

ESC = "\x1b"
RED, RESET = f"{ESC}[31m", f"{ESC}[0m"


def test_our_colours_stay_every_other_sequence_goes():
    text = f"{RED}FAIL{RESET} pod {ESC}]0;title\x07decode-0{ESC}[2K {ESC}[1m{ESC}[32mok{ESC}[0m"
    assert strip_controls_keep_color(text) == f"{RED}FAIL{RESET} pod decode-0 {ESC}[1m{ESC}[32mok{ESC}[0m"


def test_only_the_palette_click_style_writes_for_us_survives():
    """Conceal (8) hides text, reverse and 256-colour forms are never ours, nor compound codes."""
    for foreign in ("[8m", "[7m", "[5m", "[38;5;16m", "[1;32m", "[m", "[30;40m"):
        assert strip_controls_keep_color(f"a{ESC}{foreign}b") == "ab", foreign


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


def test_why_table_cleans_node_rows_it_draws_from_an_uncleaned_report():
    """`why`'s table cleans its nodes[] rows as it draws them, not the whole report up front: a
    node, pool and device name that carries control sequences must not reach the terminal in any
    row of the table or the wide view, nor in the closest node's drawing."""
    builder = ClusterBuilder(npu_nodes=25)  # more nodes than the table's 20 rows
    namespace, pod = builder.target_pod()
    hostile = json.dumps(f"npu{ESC}]0;owned\x07{ESC}[2J\u202e-node-")[1:-1]
    objects = json.loads(json.dumps(builder.build()).replace("npu-node-", hostile))
    snapshot = build_snapshot(objects)
    report = why(snapshot, WhyRequest((pod,), namespace))
    document = report.to_document("en")
    assert any(f"{ESC}]0;owned" in row["name"] for row in document["pods"][0]["nodes"])
    for wide in (False, True):
        for color in (False, True):
            text = render_why(document, report.closest_views(snapshot), color=color, wide=wide)
            assert "npu-node-01" in text and ("npu-node-25" in text) == wide  # names, without sequences
            assert "\x07" not in text and "\u202e" not in text
            assert ESC not in re.sub(r"\x1b\[[0-9;]*m", "", text) if color else ESC not in text
