"""The use cases `attrs` and `suggest-rct` call, tested directly, and their words over every scenario."""

from __future__ import annotations

import json
import re

import pytest
from attrs_bundles import BY_NAME

from kubectl_rbln.app.attrs import AttrsReport, AttrsRequest, attrs
from kubectl_rbln.app.suggest_rct import SuggestRctReport, SuggestRequest, suggest_rct
from kubectl_rbln.diagnose.findings import exit_code_for
from kubectl_rbln.dra.normalize import build_snapshot
from kubectl_rbln.render.attrs_table import render_attrs
from kubectl_rbln.render.suggest_text import render_suggest_explanation, render_suggest_yaml
from testing.synthetic.scenarios import SCENARIOS

NS, RCT = "serving", "npu-rdma"
UNFILLED = re.compile(r"(?<!\{)\{[a-z_]+\}(?!\})")
BARE_DASH = re.compile(r" -$| - ")


def snapshot_of(story: str):
    return build_snapshot(BY_NAME[story].objects())


def test_attrs_report_is_typed_and_its_document_has_the_attrs_shape() -> None:
    report = attrs(snapshot_of("pcieroot-missing"), AttrsRequest(NS, RCT))
    assert isinstance(report, AttrsReport)
    document = report.to_document("en")
    assert (document["apiVersion"], document["kind"]) == ("kubectl-rbln/v1", "AttrsReport")
    assert list(document) == [
        "apiVersion",
        "kind",
        "source",
        "rct",
        "drivers",
        "nodes",
        "required",
        "advertised",
        "formats",
        "droppedFields",
        "remediation",
        "findings",
    ]
    slugs = [f.slug for f in report.findings]
    assert "attribute-not-advertised" in slugs and exit_code_for(report.findings, "error") == 1
    assert [f["slug"] for f in document["findings"]] == slugs
    korean = report.to_document("ko")["findings"][0]
    assert korean["docs"].startswith("docs/ko/") and korean["slug"] == slugs[0]


def test_findings_carry_values_not_words() -> None:
    report = attrs(snapshot_of("nics-on-one-node"), AttrsRequest(NS, RCT))
    (missing,) = [f for f in report.findings if f.slug == "driver-slices-missing"]
    assert missing.case == "some-nodes" and missing.severity == "warning"
    assert list(missing.values["nodes"]) == ["npu-node-02"] and missing.values["node"] == "npu-node-02"
    assert exit_code_for(report.findings, "error") == 0
    absent = attrs(snapshot_of("pcieroot-missing"), AttrsRequest(NS, RCT)).findings[0]
    assert isinstance(absent.values["near_miss"], list)


def test_rct_file_wins_over_the_stored_rct() -> None:
    snapshot = snapshot_of("all-present")
    stored = snapshot.template(NS, RCT)
    report = attrs(snapshot, AttrsRequest(NS, "other", rct_file=stored))
    assert report.to_document("en")["rct"]["origin"] == "file"
    assert attrs(snapshot, AttrsRequest(NS, "absent-rct")).to_document("en")["rct"]["origin"] == "recipe"


def test_suggest_rct_chooses_and_checks_the_values() -> None:
    values = {"devices": {"npu": {"count": 8}}}
    request = SuggestRequest(NS, RCT, values=values, values_path="v.yaml")
    report = suggest_rct(snapshot_of("mellanox-nics"), request)
    assert isinstance(report, SuggestRctReport)
    assert report.result.chosen is not None and report.result.chosen.candidate.recipe == "numa-aligned"
    assert report.template is not None and report.template["kind"] == "ResourceClaimTemplate"
    assert report.exit_code == 1  # devices.npu.count 8 against the RCT's 4
    assert report.chart_sets == ["devices.npu.count=4", "devices.claimTemplateName=npu-rdma"]
    document = report.to_document("en")
    assert document["kind"] == "SuggestRctReport" and document["chosen"] == "numa-aligned"
    assert [c["key"] for c in document["valuesChecks"] if not c["ok"]] == ["devices.npu.count"]
    assert suggest_rct(snapshot_of("mellanox-nics"), SuggestRequest(NS, RCT)).exit_code == 0


def test_suggest_rct_without_a_fix_gives_typed_reasons() -> None:
    report = suggest_rct(snapshot_of("no-rdma-nic"), SuggestRequest(NS, RCT))
    assert report.template is None and report.exit_code == 1 and render_suggest_yaml(report) == ""
    kinds = [r.kind for r in report.result.no_fix]
    assert kinds == ["no-rdma-nic"]  # no RDMA NIC: no candidate to try
    document = report.to_document("en")
    assert document["noFix"][0] == {"kind": "no-rdma-nic", "nics": 10}
    json.dumps(document)  # every value is plain data


def _lines(text: str) -> list[str]:
    return text.splitlines()


def _strings(tree) -> list[str]:
    if isinstance(tree, dict):
        return [s for v in tree.values() for s in _strings(v)]
    if isinstance(tree, list):
        return [s for v in tree for s in _strings(v)]
    return [tree] if isinstance(tree, str) else []


def _assert_clean(where: str, lines: list[str]) -> None:
    heredoc_end = None
    for line in lines:
        assert not UNFILLED.search(line), f"{where}: unfilled placeholder in {line!r}"
        if heredoc_end is not None:  # a heredoc's body is a file's text (YAML list items), not a command
            heredoc_end = None if line.strip() == heredoc_end else heredoc_end
            continue
        heredoc = re.search(r"<<-?'(\w+)'", line)
        heredoc_end = heredoc.group(1) if heredoc else None
        if "kubectl " in line:  # from the command on: a bullet or a dash in prose before it is fine
            command = line[line.index("kubectl ") :]
            if heredoc or re.search(r"\|\s*kubectl\b", line):  # `-f -` reads the heredoc or the pipe
                command = command.replace("-f -", "-f STDIN")
            assert not BARE_DASH.search(command), f"{where}: bare '-' argument in {line!r}"


@pytest.mark.parametrize("scenario", list(SCENARIOS.values()), ids=lambda s: s.name)
def test_every_scenario_renders_without_holes(scenario) -> None:
    snapshot = build_snapshot(scenario.build("v1"))
    namespace = scenario.pending_pod[0]
    report = attrs(snapshot, AttrsRequest(namespace, RCT))
    suggestion = suggest_rct(snapshot, SuggestRequest(namespace, RCT))
    for lang in ("en", "ko"):
        where = f"{scenario.name}/{lang}"
        _assert_clean(f"attrs table {where}", _lines(render_attrs(report, lang=lang, wide=False)))
        _assert_clean(f"attrs wide {where}", _lines(render_attrs(report, lang=lang, wide=True)))
        _assert_clean(f"attrs json {where}", _strings(report.to_document(lang)))
        _assert_clean(f"suggest-rct {where}", _lines(render_suggest_explanation(suggestion, lang)))
        _assert_clean(f"suggest-rct yaml {where}", _lines(render_suggest_yaml(suggestion)))
        _assert_clean(f"suggest-rct json {where}", _strings(suggestion.to_document(lang)))
