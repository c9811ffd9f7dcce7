"""Korean output reads as Korean (issue 13): every scenario's human output, rendered with lang ko.

Two checks over tests/render/korean_kit.py's outputs (why, check, attrs, topo and suggest-rct, with and
without a chart values file, of every synthetic scenario; pod-devices is rewritten elsewhere):

- width: no line passes 100 display columns (Hangul counts two), except a line that cannot be
  broken: a command (it must paste whole) or one token wider than the room;
- prose: no English word outside names, commands, Kubernetes messages (the scenario's own objects,
  or the scheduler's texts), field names and the terms the Korean product document keeps in English
  (tests/render/korean_prose.py says exactly what passes).

Plus the particle chooser and the display-width helpers the renderers use.
"""

from __future__ import annotations

import json
import re

import pytest
from korean_kit import VALUES, outputs
from korean_prose import corpus, english_words, misfit_after_names, misfit_particles

from kubectl_rbln.catalog import sentence
from kubectl_rbln.catalog.fill import COMMAND_WORDS, fill
from kubectl_rbln.render.width import display_width, wrap_width
from testing.docs_blocks import cut_width
from testing.synthetic.scenarios import SCENARIOS

WIDTH = 100
TOKEN = re.compile(r"\S+")
COMMANDS = ["why", "check", "attrs", "topo", "suggest-rct", "pod-devices"]
# Every command is read whole (pod-devices too: its NODE column and device details are -o wide only).
PENDING: set[str] = set()


def _is_command(text: str) -> bool:
    text = re.sub(r"^(해결:|fix:)\s*", "", text.strip())
    return text.split(" ", 1)[0] in COMMAND_WORDS or text.startswith(("--", "[", "resourceName:"))


BUNDLE = corpus(
    [
        {"kind": "Event", "message": "0/3 nodes are available: 2 cannot allocate all claims."},
        {"kind": "ResourceClaimTemplate", "spec": {"devices": {"requests": [{"name": "nic"}]}}},
    ]
)


@pytest.mark.parametrize(
    ("text", "english"),
    [
        ("해결: kubectl get pods -n serving", []),
        ("# taint: kubectl get nodes -o wide", []),
        ("확인: kubectl rbln why: this is not a command", ["this is not a command"]),
        ('노드 npu-node-01에 dra.net 디바이스 없음: "cannot allocate all claims"', []),
        ("Pod serving/a 상태 Pending (Unschedulable): DeviceClass가 없습니다", []),
        ("dra.net: missing on every node of the pool", ["missing on every node of the pool"]),
        ("RCT npu-rdma (read back from the cluster)", ["read back from the cluster"]),
        ("이벤트: 0/3 nodes are available: 2 cannot\n  allocate all claims.", []),  # the bundle's, wrapped
        ('스케줄러: "0/3 nodes are available: 1 node is full"', ["node is full"]),  # not the bundle's
        ("요청 nic의 셀렉터", []),  # a request name of the bundle
        ("request nic 셀렉터 #0", ["request"]),  # one English word is enough
        ("저장된 값: missing", ["missing"]),
        ('차이: ["spec", "recreated"]', ["recreated"]),  # quoted is no excuse
        ("found: 0/16 standard, 16 bdf (0000:17:02.0)", ["found", "standard", "bdf"]),
        ("속성  사용처  노드\ndra.net/rdma  selector  2/2", ["selector"]),
        ("-o wide 또는 -o json으로 확인", []),  # a flag's value
        ("pcieRoot  npu.rebellions.ai  0/16 standard, 16 bdf (0000:17:…", ["standard", "bdf"]),
        ("마지막 단어는 잘림: allocat…", []),
        ("해결: # 한도를 올리세요(CRI base runtime\n      # spec(base_runtime_spec)", []),  # a name, wrapped
        ("# RDS가 켜져 있는지(RDS\n      # Support 참고)", []),
    ],
)
def test_the_detector_finds_english_prose_and_passes_names(text: str, english: list[str]) -> None:
    assert english_words(text, BUNDLE) == english


@pytest.fixture(scope="module")
def korean() -> list[tuple[str, str, str]]:
    return list(outputs("ko"))


def test_korean_lines_fit_in_100_columns(korean: list[tuple[str, str, str]]) -> None:
    over = [
        f"{scenario} {command}: {display_width(line)}: {line}"
        for scenario, command, text in korean
        if not command.endswith("wide") and command.split("/")[0] not in PENDING
        for line in text.splitlines()
        if display_width(line) > WIDTH and not _is_command(line)  # a command pastes whole
    ]
    assert not over, "\n".join(over[:20])


BOX = ("┌", "│", "└")
END = ("통과 ", "[", "값 형식", "필요한", "dra.net:", "npu.", "할당에")


def test_korean_drawings_line_up_by_display_width(korean: list[tuple[str, str, str]]) -> None:
    """Each NUMA box of a drawing (topo, why's closest node) is a rectangle on screen: its lines are
    equally wide in display columns, Hangul cells (`비어 있음`, `사용 중`) counted as two."""
    crooked, boxes = [], 0
    for scenario, name, text in korean:
        if name.split("/")[0] in PENDING:
            continue
        block: list[str] = []
        for line in [*text.splitlines(), ""]:
            if line.startswith(BOX):
                block.append(line)
                if not line.startswith("└"):
                    continue
            if block:  # a row of boxes ends with its bottom line
                boxes += 1
                widths = {display_width(row) for row in block}
                if len(widths) > 1 or not block[-1].startswith("└"):
                    crooked.append(f"{scenario} {name}: widths {sorted(widths)}\n" + "\n".join(block))
                block = []
    assert boxes > 100
    assert not crooked, "\n".join(crooked[:3])


def test_korean_table_columns_start_at_one_display_column(korean: list[tuple[str, str, str]]) -> None:
    """A table's header names and its cells start at the same display column in every row: the
    padding counts display width, so a Korean header (`노드`, `배치`) does not shift the columns."""
    checked, shifted = 0, []
    for scenario, name, text in korean:
        if name.split("/")[0] in PENDING or name.endswith("wide"):
            continue
        lines = text.splitlines()
        for index, line in enumerate(lines):
            if not line.startswith(("노드 ", "#    확인 항목", "속성 ", "  속성 ")):
                continue
            starts = _column_starts(line)
            if len(starts) < 3:
                continue
            checked += 1
            for row in lines[index + 1 :]:
                indent = len(line) - len(line.lstrip(" "))
                if not row.strip() or len(row) - len(row.lstrip(" ")) != indent or row.startswith(END):
                    break  # the table ends: a blank line, a note under it, the next section
                for start in starts[1:]:
                    before = _display_prefix(row, start)
                    if before is None or not before.endswith(" "):
                        shifted.append(f"{scenario} {name}: column {start}: {row}")
                        break
    assert checked > 100
    assert not shifted, "\n".join(shifted[:10])


def _column_starts(header: str) -> list[int]:
    """Display columns where the header's names start (names are separated by two or more spaces)."""
    starts, column, previous = [], 0, "  "
    for char in header:
        if char != " " and previous.endswith("  ") or (not starts and char != " "):
            starts.append(column)
        previous = (previous + char)[-2:]
        column += display_width(char)
    return starts


def _display_prefix(row: str, column: int) -> str | None:
    """The text of `row` before display column `column`; None if a wide character straddles it."""
    width = 0
    for index, char in enumerate(row):
        if width == column:
            return row[:index]
        if width > column:
            return None
        width += display_width(char)
    return row if width == column else (row if width < column else None)


@pytest.fixture(scope="module")
def bundles() -> dict[str, tuple[str, frozenset[str]]]:
    """Each scenario's own texts (and the values files the kit checks): what may stay English."""
    from testing.pod_devices_cases import build_cases

    texts = {name: corpus([*scenario.build("v1"), *VALUES]) for name, scenario in SCENARIOS.items()}
    return {**texts, "pod-devices-cases": corpus(build_cases()[0])}


@pytest.mark.parametrize("command", COMMANDS)
def test_no_english_prose_in_korean_output(
    korean: list[tuple[str, str, str]], bundles: dict[str, tuple[str, frozenset[str]]], command: str
) -> None:
    if command in PENDING:
        pytest.skip("pod-devices' Korean is being finished")
    found: dict[str, str] = {}
    seen = 0
    for scenario, name, text in korean:
        if name.split("/")[0] != command:
            continue
        seen += 1
        for run in english_words(text, bundles[scenario]):
            found.setdefault(run, f"{scenario} {name}")
    assert seen >= len(SCENARIOS)
    assert not found, "\n".join(f"{where}: {run}" for run, where in list(found.items())[:30])


def test_every_particle_in_the_korean_output_fits_the_word_before_it(
    korean: list[tuple[str, str, str]],
) -> None:
    """What code builds around the catalog's words (tables, joins, evidence) types no particle that
    does not fit: the same check as the catalog's (no 레플리카으로, no NIC를), on the rendered text."""
    found = {
        hit: f"{scenario} {name}"
        for scenario, name, text in korean
        for hit in misfit_particles(text) + misfit_after_names(re.sub(r"`[^`]*`", "", text))
    }
    assert not found, "\n".join(f"{where}: {hit}" for hit, where in list(found.items())[:20])


@pytest.mark.parametrize(
    ("value", "template", "expected"),
    [
        ("dranet", "{v|이}", "dranet이"),
        ("npu.rebellions.ai", "{v|이}", "npu.rebellions.ai가"),
        ("pciSubsystem", "{v|을}", "pciSubsystem을"),
        ("numaNode", "{v|을}", "numaNode를"),
        ("NIC", "{v|은}", "NIC은"),
        ("RCT", "{v|은}", "RCT는"),
        ("npu-node-01", "{v|로}", "npu-node-01로"),  # 일: ㄹ takes 로
        ("npu-node-03", "{v|로}", "npu-node-03으로"),  # 삼
        ("npu-node-02", "{v|와}", "npu-node-02와"),
        ("ResourceClaim", "{v|이}", "ResourceClaim이"),
        ("파일", "{v|으로}", "파일로"),
        ("클레임", "{v|를}", "클레임을"),
    ],
)
def test_particle_fits_the_value(value: str, template: str, expected: str) -> None:
    assert fill(template, {"v": value}) == expected


def test_no_either_or_particles_in_korean_sentences() -> None:
    from kubectl_rbln.catalog import load_sentences

    for key, texts in load_sentences().items():
        assert not re.search(r"을\(를\)|이\(가\)|\(으\)로|은\(는\)", texts.get("ko", "")), key
    assert sentence("join-and", "ko", head="npu.rebellions.ai", last="dranet") == "npu.rebellions.ai와 dranet"


def test_display_width_helpers() -> None:
    assert display_width("노드 npu-node-01") == 4 + 1 + 11
    assert cut_width("가나다라마", 7) == "가나다…"
    assert display_width(cut_width("가나다라마바사", 10)) <= 10
    lines = wrap_width("가나다 " * 30, 20, "  ", "    ")
    assert all(display_width(line) <= 20 for line in lines)
    token = "kubectl-get-a-very-long-command-token"
    assert wrap_width(token + " x", 10) == [token, "x"]


def test_evidence_keys_read_as_korean_labels_in_the_table() -> None:
    from kubectl_rbln.render.why_table import evidence_label, render_finding

    finding = {"severity": "error", "slug": "x", "title": "t", "evidence": {"schedulerSays": "m", "zzNew": 1}}
    text = "\n".join(render_finding(finding, color=False, wide=False, lang="ko"))
    assert '스케줄러 메시지: "m"' in text and "zzNew: 1" in text  # an unknown key falls back to itself
    assert evidence_label("schedulerSays", "en") == "schedulerSays"


def test_every_evidence_key_of_every_scenario_has_a_korean_label() -> None:
    from kubectl_rbln.app.why import WhyRequest, why
    from kubectl_rbln.catalog import load_sentences
    from kubectl_rbln.dra.normalize import build_snapshot
    from testing.synthetic.scenarios import SCENARIOS

    keys: set[str] = set()
    for scenario in SCENARIOS.values():
        ns, pod = scenario.pending_pod
        document = why(build_snapshot(scenario.build("v1")), WhyRequest(pods=(f"{ns}/{pod}",))).to_document(
            "en"
        )
        for diagnosis in document["pods"]:
            for finding in diagnosis.get("findings") or []:
                keys.update(finding.get("evidence") or {})
    assert keys
    assert not sorted(k for k in keys if "ko" not in load_sentences().get(f"evidence-{k}", {}))


# One term per concept, the Korean product document's (seed 001): 게시 for publish, ResourceClaim
# (never a bare 클레임), 할당기 for the allocator. Remediation lines are another owner's and not scanned.
BANNED_TERMS = re.compile(r"광고|노출|보고합니다|클레임|allocator")


def test_korean_titles_summaries_and_sentences_use_one_term_per_concept() -> None:
    from kubectl_rbln.catalog import load_catalog, load_sentences

    texts = [(key, words.get("ko", "")) for key, words in load_sentences().items()]
    for slug, entry in load_catalog().items():
        for case in [None, *entry.cases]:
            words = entry.words(case)
            texts += [(f"{slug}/{case}/title", words.title.get("ko", ""))]
            texts += [(f"{slug}/{case}/summary", words.summary.get("ko", ""))]
    found = [f"{where}: {m.group(0)}" for where, text in texts for m in BANNED_TERMS.finditer(text)]
    assert not found, "\n".join(found)


def test_phrased_summaries_say_the_same_english_as_before() -> None:
    from kubectl_rbln.catalog import say
    from kubectl_rbln.dra.explain import SelectorExclusion

    for conjunct in (None, "a == b"):
        for values in ({}, {"dra.net/rdma": {"false": 5}}):
            exclusion = SelectorExclusion("request nic", 0, "expr", conjunct, 5, values)
            assert say(exclusion.phrase, "en") == exclusion.summary
    from kubectl_rbln.dra.explain import CandidateCounts

    for drivers in ([], ["dra.net"]):
        counts = CandidateCounts("c", "nic", "dranet", drivers, 2, 5, 5, 0, 0, 0)
        assert say(counts.phrase, "en") == counts.summary


def test_machine_documents_keep_evidence_and_reasons_english_in_korean() -> None:
    import io

    import yaml

    from kubectl_rbln.app.attrs import AttrsRequest, attrs
    from kubectl_rbln.app.why import WhyRequest, why
    from kubectl_rbln.dra.normalize import build_snapshot
    from kubectl_rbln.render.output import emit
    from testing.synthetic.scenarios import SCENARIOS

    ns_rct = ("serving", "npu-rdma")
    for name in ("nic-vendor-mismatch", "npu-pcieroot-bdf-format", "deviceclass-missing"):
        scenario = SCENARIOS[name]
        snapshot = build_snapshot(scenario.build("v1"))
        ns, pod = scenario.pending_pod
        for report in (
            why(snapshot, WhyRequest(pods=(f"{ns}/{pod}",))),
            attrs(snapshot, AttrsRequest(*ns_rct)),
        ):
            for output in ("json", "yaml"):
                out = io.StringIO()
                emit(report, output=output, jq_expr=None, lang="ko", text=lambda: "", stream=out)
                document = yaml.safe_load(out.getvalue())
                for pod_doc in document.get("pods", []):
                    for node in pod_doc["nodes"]:
                        assert not re.search("[가-힣]", node.get("reason", "")), node
                    for finding in pod_doc["findings"]:
                        assert not re.search("[가-힣]", json.dumps(finding["evidence"], ensure_ascii=False))


def test_korean_outputs_use_one_term_per_concept(korean: list[tuple[str, str, str]]) -> None:
    """The rendered outputs too, not only the catalog: what code builds (evidence, tables) says 게시,
    ResourceClaim and 할당기. Fix lines (`해결:`) are another change's and not scanned."""
    from korean_prose import fix_lines

    found = []
    for scenario, name, text in korean:
        if name.split("/")[0] in PENDING:
            continue
        lines = text.splitlines()
        fixes = fix_lines(lines)
        found += [
            f"{scenario} {name}: {line.strip()}"
            for number, line in enumerate(lines)
            if number not in fixes and BANNED_TERMS.search(line)
        ]
    assert not found, "\n".join(found[:20])


def test_no_english_prose_in_what_the_command_line_prints_in_korean() -> None:
    """Headings that name the input (`파일 examples/...`), notes and hints on stderr: the CLI's own text."""
    from pathlib import Path

    from korean_kit import cli_outputs

    repo = Path(__file__).resolve().parents[2]
    found: dict[str, str] = {}
    runs = 0
    for bundle, command, stdout, stderr in cli_outputs("ko", repo):
        runs += 1
        document = json.loads((repo / bundle).read_text(encoding="utf-8"))
        for text in (stdout, stderr):
            for run in english_words(text, corpus([document, *VALUES, command.split()])):
                found.setdefault(run, f"{bundle} {command}")
        # stderr's notes and hints are one line each (grep-able); stdout is read on a terminal
        over = [line for line in stdout.splitlines() if display_width(line) > WIDTH and not _is_command(line)]
        yaml_out = command.startswith("suggest-rct")  # stdout is the manifest, a file
        assert "wide" in command or yaml_out or not over, f"{bundle} {command}: " + "\n".join(over)
    assert runs >= 20
    assert not found, "\n".join(f"{where}: {run}" for run, where in found.items())


def test_korean_drawing_legends_keep_names_whole(korean: list[tuple[str, str, str]]) -> None:
    """`A  Pod  ResourceClaim NAME` is longer in Korean: the claim moves under the Pod, never cut (pasted
    into `kubectl get resourceclaim`)."""
    legends = [
        (scenario, line)
        for scenario, name, text in korean
        if name.split("/")[0] in ("topo", "why") and not name.endswith("wide")
        for line in text.splitlines()
        if re.match(r"^  [A-Z]{1,2}  \S+/\S+", line) or re.match(r"^     ResourceClaim \S+$", line)
    ]
    assert len(legends) > 50
    assert not [f"{scenario}: {line}" for scenario, line in legends if line.endswith("…")]
