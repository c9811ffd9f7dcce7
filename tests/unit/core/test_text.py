"""Untrusted text (Pod output, event messages, annotations) printed safely on a terminal."""

from __future__ import annotations

import pytest

from kubectl_rbln.text import one_line, safe_token, strip_controls

ESC = "\x1b"


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        (f"{ESC}[31mred{ESC}[0m", "red"),  # colour
        (f"ok{ESC}[2K{ESC}[1A{ESC}[1Gforged", "okforged"),  # erase line, cursor up: rewriting history
        (f"{ESC}]0;owned title\x07text", "text"),  # window title (OSC, BEL-terminated)
        (f"{ESC}]8;;https://evil.example{ESC}\\click{ESC}]8;;{ESC}\\", "click"),  # OSC 8 hyperlink
        (f"{ESC}]52;c;Y3VybCBldmlsfHNo\x07after", "after"),  # OSC 52 clipboard write
        (f"{ESC}]0;unterminated", ""),  # an unterminated string swallows the rest
        (f"{ESC}Pdevice-control{ESC}\\x", "x"),  # DCS
        (f"{ESC}(Bplain{ESC}7{ESC}c", "plain"),  # charset, save cursor, full reset
        ("\x9b31mC1 csi\x9b0m", "C1 csi"),  # 8-bit CSI
        ("\x9d0;title\x9cbody", "body"),  # 8-bit OSC ended by 8-bit ST
        ("bell\x07 back\x08space del\x7f nul\x00", "bell backspace del nul"),
        ("line1\r\nline2\ttab", "line1\nline2\ttab"),  # \r goes, \n and \t stay
        ("admin\u202e\u2066txt.exe\u2069", "admintxt.exe"),  # Trojan Source bidi overrides
        ("한국어 NPU ✓", "한국어 NPU ✓"),  # printable Unicode is kept
        ("", ""),
    ],
)
def test_strip_controls(raw, shown):
    assert strip_controls(raw) == shown


def test_no_escape_survives_nested_or_broken_sequences():
    hostile = f"{ESC}[{ESC}]0;x{ESC}[31{ESC}{ESC}[[A\x9b\x9d{ESC}"
    cleaned = strip_controls(hostile)
    assert ESC not in cleaned and "\x9b" not in cleaned and "\x9d" not in cleaned


def test_one_line_takes_the_first_non_empty_line_cleaned_and_cut():
    assert one_line(f"\n  \n{ESC}[31merror:{ESC}[0m   device   busy\nsecond") == "error: device busy"
    assert one_line("x" * 400) == "x" * 297 + "..."
    assert one_line("abcdef", limit=5) == "ab..."
    assert one_line(f"{ESC}[2J\n\n") == ""


def test_safe_token_is_printable_and_short():
    assert safe_token(f"rbln{ESC}[8m 0\n") == "rbln0"
    assert safe_token("a" * 100) == "a" * 61 + "..."
