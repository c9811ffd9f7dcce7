"""The one fill function and the catalog's line rules, as a user sees their effect.

Cases, `when:` and `each:` lines, localized name lists and number formats are what let a rule hand
over typed values and no words; each is checked on a small catalog parsed here.
"""

from __future__ import annotations

from typing import Any

from kubectl_rbln.catalog import (
    Names,
    fill,
    load_catalog,
    load_sentences,
    parse_catalog,
    placeholders,
    render_entry,
    sentence,
)
from kubectl_rbln.catalog.fill import _TOKEN, MORE, _text, particle

ENTRY = {
    "severity": "warning",
    "title": {"en": "Node {node} lacks it", "ko": "{node} 노드에 없습니다"},
    "summary": {"en": "Seen on {nodes}.", "ko": "보인 곳: {nodes}."},
    "remediation": {
        "en": [
            "kubectl get node {node}",
            {"when": "containerd", "text": "sudo systemctl restart containerd"},
            {"when": "!containerd", "text": "sudo systemctl restart crio"},
            {"each": "others", "text": "kubectl label node {others} x=true"},
            "{commands}",
        ],
        "ko": ["kubectl get node {node}"],
    },
    "cases": {
        "blocking": {"severity": "error", "title": {"en": "Blocked on {node}", "ko": "{node}에서 막힘"}},
    },
}


def _entry():  # type: ignore[no-untyped-def]
    return parse_catalog({"sample": ENTRY})["sample"]


def test_a_case_overrides_only_what_it_names() -> None:
    words = render_entry(_entry(), "en", {"node": "n1", "nodes": ["n1"]}, "blocking")
    assert (words.severity, words.title, words.summary) == ("error", "Blocked on n1", "Seen on n1.")


def test_when_lines_follow_the_values() -> None:
    on = render_entry(_entry(), "en", {"node": "n1", "containerd": True}).remediation
    off = render_entry(_entry(), "en", {"node": "n1", "containerd": False}).remediation
    assert "sudo systemctl restart containerd" in on and "sudo systemctl restart crio" not in on
    assert "sudo systemctl restart crio" in off and "sudo systemctl restart containerd" not in off


def test_each_repeats_a_line_per_item_and_a_list_line_expands() -> None:
    values = {"node": "n1", "others": ["n2", "n3"], "commands": ["kubectl a", "kubectl b"]}
    lines = render_entry(_entry(), "en", values).remediation
    assert lines[-4:] == [
        "kubectl label node n2 x=true",
        "kubectl label node n3 x=true",
        "kubectl a",
        "kubectl b",
    ]
    assert render_entry(_entry(), "en", {"node": "n1", "others": [], "commands": []}).remediation == [
        "kubectl get node n1",
        "sudo systemctl restart crio",
    ]


def test_names_are_shortened_in_the_readers_language() -> None:
    nodes = Names([f"n{i}" for i in range(7)])
    assert render_entry(_entry(), "en", {"node": "n0", "nodes": nodes}).summary == (
        "Seen on n0, n1, n2, n3, n4 and 2 more."
    )
    assert (
        render_entry(_entry(), "ko", {"node": "n0", "nodes": nodes}).summary
        == "보인 곳: n0, n1, n2, n3, n4 외 2개."
    )
    assert render_entry(_entry(), "ko", {"node": "n0", "nodes": Names([])}).summary == "보인 곳: 없음."


def test_fill_formats_numbers_and_keeps_braces() -> None:
    assert fill("{steps:,} steps, {{literal}}", {"steps": 200001}) == "200,001 steps, {literal}"
    assert fill("{missing} stays", {}) == "{missing} stays"


def test_verdicts_are_catalog_sentences() -> None:
    assert (
        sentence("verdict-clear", "en", pod="ns/p", state="Running") == "Pod ns/p is Running: nothing to fix"
    )
    assert (
        sentence("verdict-clear", "ko", pod="ns/p", state="Running")
        == "Pod ns/p는 Running 상태입니다: 고칠 것이 없습니다"
    )


def _templates() -> list[str]:
    """Every template the packaged catalog fills: sentences, and each finding's (and case's) words."""
    found = [text for texts in load_sentences().values() for text in texts.values()]
    for entry in load_catalog().values():
        for words in (entry, *entry.cases.values()):
            found += [*words.title.values(), *words.summary.values()]
            found += [line.text for lines in words.remediation.values() for line in lines]
    return found


def _fill_by_regex(template: str, values: dict[str, Any]) -> str:
    """How `fill` filled a template before it kept templates parsed: a `_TOKEN` scan over the text
    (`{|을}` takes the particle that fits what was written before it)."""
    out: list[str] = []
    start = 0
    for match in _TOKEN.finditer(template):
        out.append(template[start : match.start()])
        start = match.end()
        token = match.group(0)
        if token in ("{{", "}}"):
            out.append(token[0])
            continue
        if not match.group(1) and match.group(3):
            out.append(particle("".join(out), match.group(3)))
            continue
        value = values.get(match.group(1)) if match.group(1) else None
        if value is None:
            out.append(token)
            continue
        try:
            text = _text(value, match.group(2), MORE)
            out.append(text + particle(text, match.group(3)) if match.group(3) else text)
        except Exception:
            out.append(token)
    out.append(template[start:])
    return "".join(out)


class _Unprintable:
    def __str__(self) -> str:
        raise ValueError("no words")


def test_every_catalog_template_fills_as_the_token_scan_did() -> None:
    # `fill` splits each template once and reuses the pieces: the same text for every template of the
    # catalog, with values of every kind (missing, lists, numbers, Korean, one that cannot be printed)
    templates = [
        *_templates(),
        "{{a}} {a:,} {a|을} {a:>3|로} {} {1x} }}{{ {a",
        "`dump`{|로} {a}{|이} {|} {|을",
    ]
    names = {name for template in templates for name in placeholders(template)} | {"a"}
    kinds: list[Any] = ["노드", "claim", 1200, Names([f"n{i}" for i in range(8)]), ["x", "y"], _Unprintable()]
    for kind in [None, *kinds]:
        values = {} if kind is None else dict.fromkeys(names, kind)
        for template in templates:
            assert fill(template, values) == _fill_by_regex(template, values), template
