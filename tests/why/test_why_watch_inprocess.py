"""`why --watch` in process on a bundle (fast): one line at the first look, --timeout's code, bad usage.

The changing-cluster behaviour (a line per change, the stop once Running, Ctrl-C) is end to end
against `kubectl rbln serve`: tests/e2e/test_why_watch_e2e.py.
"""

from __future__ import annotations

import json

from tests.conftest import EXAMPLES

EXAMPLE = str(EXAMPLES / "pending-decode.json")
POD = "coder-decode-mn5b9k9cc2-l6qbl"


def test_an_unchanging_bundle_prints_the_first_look_then_stops_at_the_timeout(inprocess_rbln) -> None:
    code, out, err = inprocess_rbln(
        "why", "-f", EXAMPLE, POD, "-w", "--timeout", "0.6s", "--interval", "0.2s"
    )
    assert code == 1, err  # the last diagnosis has findings
    lines = out.splitlines()
    assert len(lines) == 2, out  # nothing changed between the looks: no line for them
    assert f"Pod serving/{POD} is Pending: its claims cannot be allocated" in lines[0]
    assert "stopped watching" in lines[1]


def test_json_lines(inprocess_rbln) -> None:
    code, out, _ = inprocess_rbln("why", "-f", EXAMPLE, POD, "-w", "--timeout", "0.3s", "-o", "json")
    assert code == 1
    entry = json.loads(out)
    assert entry["phase"] == "Pending" and entry["findings"] == ["attribute-not-advertised"]


def test_watch_follows_exactly_one_pod(inprocess_rbln) -> None:
    code, _, err = inprocess_rbln("why", "-f", EXAMPLE, "-w")
    assert code == 2 and "--watch follows one Pod" in err
    code, _, err = inprocess_rbln("why", "-f", EXAMPLE, POD, "-w", "-o", "yaml")
    assert code == 2 and "one line per change" in err


def test_korean_first_line(inprocess_rbln) -> None:
    code, out, _ = inprocess_rbln("why", "-f", EXAMPLE, POD, "-w", "--timeout", "0.3s", "--lang", "ko")
    assert code == 1 and "--timeout" in out.splitlines()[-1] and "지켜보기를 멈춤" in out
