"""`-o json` is laid out by msgspec from json.dumps' compact text: the same bytes as `indent`,
with DEL, C1 and the bidi controls escaped (json escapes C0 itself).

Every command's document of every synthetic scenario (en, ko), every scenario's bundle in every API
version, and values a document could carry only by accident, are written both ways and compared byte
for byte. `dump` writes one item a line (compact), which the line read of `why -f` must accept."""

from __future__ import annotations

import json
from collections.abc import Iterator
from fractions import Fraction
from typing import Any

import pytest

from kubectl_rbln.app.attrs import AttrsRequest, attrs
from kubectl_rbln.app.check import CheckRequest, run_check
from kubectl_rbln.app.pod_devices import PodDevicesRequest, pod_devices
from kubectl_rbln.app.suggest_rct import SuggestRequest, suggest_rct
from kubectl_rbln.app.topo import TopoRequest, topo
from kubectl_rbln.app.why import WhyRequest, why
from kubectl_rbln.catalog import machine_document
from kubectl_rbln.cli.dump import as_list, bundle_lines
from kubectl_rbln.cluster.wire_lines import layout_of, lines
from kubectl_rbln.dra.model import Version
from kubectl_rbln.dra.normalize import build_snapshot
from kubectl_rbln.render.json_text import fast_indented_json, indented_json
from kubectl_rbln.render.output import to_json
from testing.synthetic import API_VERSIONS
from testing.synthetic.scenarios import SCENARIOS

NS, RCT = "serving", "npu-rdma"


# What json leaves raw and a terminal would obey: each written as \\uXXXX, one character at a time.
_ESCAPED = {
    c: f"\\u{c:04x}" for c in [0x7F, *range(0x80, 0xA0), *range(0x202A, 0x202F), *range(0x2066, 0x206A)]
}


def reference(document: Any) -> str:
    """What `-o json` printed before (the pure-Python encoder `indent` selects), controls escaped."""
    return json.dumps(document, indent=2, ensure_ascii=False, default=str).translate(_ESCAPED)


def documents(lang: str) -> Iterator[tuple[str, Any]]:
    for scenario in SCENARIOS.values():
        snapshot = build_snapshot(scenario.build("v1"))
        ns, pod = scenario.pending_pod
        reports = {
            "why": why(snapshot, WhyRequest(pods=(f"{ns}/{pod}",))),
            "why-A": why(snapshot, WhyRequest()),
            "check": run_check(snapshot, CheckRequest(NS, RCT)),
            "attrs": attrs(snapshot, AttrsRequest(NS, RCT)),
            "topo": topo(snapshot, TopoRequest(namespace=ns)),
            "suggest-rct": suggest_rct(snapshot, SuggestRequest(NS, RCT)),
            "pod-devices": pod_devices(snapshot, PodDevicesRequest(namespace=None), []),
        }
        for command, report in reports.items():
            with machine_document():
                yield f"{scenario.name}/{command}", report.to_document(lang)


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_every_command_and_scenario_writes_the_same_bytes(lang: str) -> None:
    count = 0
    for name, document in documents(lang):
        assert fast_indented_json(document, 2, str) == reference(document), name  # the fast way itself
        count += 1
    assert count == 7 * len(SCENARIOS)


def test_dump_writes_every_bundle_one_item_a_line_that_the_line_read_accepts() -> None:
    for scenario in SCENARIOS.values():
        for api_version in API_VERSIONS:
            items = scenario.build(api_version)
            text = "".join(bundle_lines(items))
            assert json.loads(text) == as_list(items), f"{scenario.name}/{api_version}"
            data = text.encode("utf-8")
            layout = layout_of(data)
            assert layout is not None, f"{scenario.name}/{api_version}: why -f would read it whole"
            cut = [json.loads(data[start:end]) for start, end in lines(data, layout)]
            assert cut == items, f"{scenario.name}/{api_version}"


def test_dump_of_no_objects_is_an_empty_list_the_line_read_accepts() -> None:
    text = "".join(bundle_lines([]))
    assert json.loads(text) == as_list([])
    data = text.encode("utf-8")
    layout = layout_of(data)
    assert layout is not None and list(lines(data, layout)) == []


def test_dump_lines_carry_hostile_values_escaped_and_whole() -> None:
    items = [value for value in HOSTILE if isinstance(value, dict) and "default" not in value]
    items = [value for value in items if all(isinstance(key, str) for key in value)]
    text = "".join(bundle_lines(items))
    assert not any(chr(code) in text for code in _ESCAPED), "a control a terminal would obey is raw"
    # the head, one line an item, `]}`: a newline inside a value stays escaped
    assert text.count("\n") == len(items) + 2
    assert json.loads(text)["items"] == json.loads(json.dumps(items))


class Opaque:
    def __str__(self) -> str:
        return "opaque \x1b[1m 한"


HOSTILE: list[Any] = [
    {"control": "".join(map(chr, range(0x20))) + '\x7f \u2028\u2029 "quoted" back\\slash /'},
    {
        "c1": "".join(map(chr, range(0x7F, 0xA1))),
        "bidi \u202e key": "\u202a\u202b\u202c\u202d\u202e\u2066\u2069 x",
    },
    {"ascii with del": "a\x7fb", "clean": "plain"},
    {"astral": "😀 𝔘 \U0010ffff", "ko": "파드가 대기 중입니다"},
    {"ints": [0, -1, 2**63, -(2**63) - 1, 10**40, True, False, None]},
    {"floats": [1.0, -0.0, 1e-05, 1e16, 1.5e300, 5e-324, 0.1, 123456789012345680.0]},
    {"nonfinite": [float("inf"), float("-inf"), float("nan")]},
    {"surrogate": "\ud800 alone"},
    {"default": [Fraction(1, 3), Version("1.2.3"), {1, 2}, b"raw", (1, "tuple"), Opaque()]},
    {3: "int key", 2.5: "float key", True: "bool key", -0.0: "zero key", None: "null key", "": "empty key"},
    {"empty": [[], {}, [[]], [{}], {"a": {}}, ""]},
    [],
    {},
    "bare",
    7,
    {"deep": [[[[[[{"x": [1, [2, [3]]]}]]]]]]},
]


@pytest.mark.parametrize("document", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_values_write_the_same_bytes(document: Any) -> None:
    assert to_json(document) == reference(document)
    slow = "nonfinite" in document or "surrogate" in document if isinstance(document, dict) else False
    assert (fast_indented_json(document, 2, str) is None) == slow


def test_what_json_cannot_encode_fails_as_before() -> None:
    for bad in ({(1, 2): "tuple key"}, {"x": [1, {frozenset(): 1}]}):
        try:
            expected: Any = reference(bad)
        except (TypeError, ValueError) as exc:
            expected = type(exc), str(exc)
        try:
            got: Any = to_json(bad)
        except (TypeError, ValueError) as exc:
            got = type(exc), str(exc)
        assert got == expected
    with pytest.raises(TypeError, match="not JSON serializable"):  # dump has no default=str
        indented_json({"x": Fraction(1, 3)}, 1)
    loop: list[Any] = []
    loop.append(loop)
    with pytest.raises(ValueError, match="Circular reference"):
        to_json(loop)


def test_escaped_controls_read_back_as_the_same_values() -> None:
    """\\uXXXX is the same string to every JSON reader: nothing is lost for scripts, nothing raw is left."""
    document = HOSTILE[1]
    text = to_json(document)
    assert json.loads(text) == document
    assert not any(chr(c) in text for c in _ESCAPED)
