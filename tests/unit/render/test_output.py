"""-o json|yaml and --jq: what a user pipes into other tools."""

from __future__ import annotations

import io
import json

import pytest
import yaml

from kubectl_rbln.dra.model import Version
from kubectl_rbln.errors import InputError
from kubectl_rbln.render.output import apply_jq, emit, emit_document, to_json, to_yaml

SHARED = {"driver": "npu.rebellions.ai", "pool": "node-1"}
DOC = {
    "pod": "serving/decode-0",
    "verdict": "한국어 ✓",
    "devices": [SHARED, SHARED],  # the same dict twice, as reports reuse values
    "count": 2,
}


class Report:
    def __init__(self) -> None:
        self.langs: list[str] = []

    def to_document(self, lang: str) -> dict:
        self.langs.append(lang)
        return DOC


def run(output: str, jq: str | None = None) -> str:
    out = io.StringIO()
    emit(Report(), output=output, jq_expr=jq, lang="en", text=lambda: "TABLE\n", stream=out)
    return out.getvalue()


def test_json_is_indented_utf8_and_round_trips():
    text = run("json")
    assert json.loads(text) == DOC
    assert "한국어 ✓" in text and "\\u" not in text
    assert text.startswith('{\n  "pod"') and text.endswith("}\n")


def test_yaml_has_no_anchors_and_keeps_key_order():
    text = run("yaml")
    assert "&id" not in text and "*id" not in text
    assert yaml.safe_load(text) == DOC
    assert [line.split(":")[0] for line in text.splitlines() if not line.startswith((" ", "-"))] == list(DOC)
    assert "한국어 ✓" in text


def test_table_and_wide_draw_the_text_without_building_the_document():
    report = Report()
    out = io.StringIO()
    emit(report, output="wide", jq_expr=None, lang="ko", text=lambda: "WIDE\n", stream=out)
    assert out.getvalue() == "WIDE\n" and report.langs == []
    assert run("table") == "TABLE\n"


def test_jq_prints_one_json_document_per_line_like_jq():
    assert run("table", ".devices[].driver") == '"npu.rebellions.ai"\n"npu.rebellions.ai"\n'
    assert run("json", ".devices[0]") == json.dumps(SHARED, ensure_ascii=False) + "\n"
    assert run("json", ".count, .verdict") == '2\n"한국어 ✓"\n'


def test_jq_with_yaml_prints_yaml_documents():
    text = run("yaml", ".devices[0]")
    assert yaml.safe_load(text) == SHARED


def test_jq_errors_are_one_line_input_errors():
    with pytest.raises(InputError) as info:
        apply_jq(".[", DOC)
    assert info.value.message.startswith("--jq: ")
    assert "\n" not in info.value.message and not info.value.message.endswith(":")
    with pytest.raises(InputError, match=r"^--jq: string \(\"serving/decode-0\"\) has no keys$"):
        apply_jq(".pod | keys", DOC)  # a runtime error: keys of a string


def test_helpers_match_emit_document():
    out = io.StringIO()
    emit_document(DOC, "json", None, stream=out)
    assert out.getvalue() == to_json(DOC) + "\n"
    out = io.StringIO()
    emit_document(DOC, "yaml", None, stream=out)
    assert out.getvalue() == to_yaml(DOC)
    assert to_json({"v": Version("1.2.3")}) == '{\n  "v": "1.2.3"\n}'  # typed values print as text
