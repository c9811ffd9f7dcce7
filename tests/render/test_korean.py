"""Korean output reads as Korean (issue 13): every scenario's human output, rendered with lang ko.

Two checks over tests/render/korean_kit.py's outputs (why, check, attrs, topo, suggest-rct and
pod-devices of every synthetic scenario):

- width: no line passes 100 display columns (Hangul counts two), except a line that cannot be
  broken: a command (it must paste whole) or one token wider than the room;
- prose: no run of three or more plain English words outside names, commands, flags, field names,
  quoted Kubernetes messages and the allow-list of terms the Korean product document keeps in
  English (Pod, Pending, feature gate...). A word with `.`, `/`, `=`, `-`, `_`, a digit or inner
  capitals is a name, so a run of plain words is what a translator would have translated.

Plus the particle chooser and the display-width helpers the renderers use.
"""

from __future__ import annotations

import json
import re

import pytest
from korean_kit import outputs

from kubectl_rbln.catalog import sentence
from kubectl_rbln.catalog.fill import fill
from kubectl_rbln.render.why_table import COMMAND_WORDS
from kubectl_rbln.text import cut_width, display_width, wrap_width

WIDTH = 100
QUOTED = re.compile(r'"[^"]*"|\'[^\']*\'|`[^`]*`')
TOKEN = re.compile(r"\S+")
PLAIN = re.compile(r"^[(\[]?[A-Za-z][a-z]*[)\],.;:]?$")
# English the Korean product document and the Korean catalog keep as they are: Kubernetes states
# and objects, product and tool names, and terms used untranslated in seed 001.
ALLOWED = {
    "pod", "pods", "pending", "running", "unschedulable", "succeeded", "failed", "feature", "gate",
    "gates", "binding", "condition", "conditions", "taint", "taints", "shared", "exclusive",
    "entrypoint", "sandbox", "helm", "memlock", "unlimited", "containerd", "kubernetes", "root",
    "modelserver", "prefill", "decode", "dranet", "broadcom", "allocated", "true", "false",
    "service", "support", "operator", "driver", "runtime", "spec", "base", "state", "status",
    "reason", "timeout", "failure", "netns", "kubelet", "plugin", "recipe", "attach", "string",
    "int", "bool", "quantity", "version", "selector", "match", "distinct", "guarded", "capacity",
    "sudo", "crictl",
}  # fmt: skip
COMMANDS = ["why", "check", "attrs", "topo", "suggest-rct", "pod-devices"]
# Width: every command fits (pod-devices too: its NODE column and device details are -o wide only).
WIDTH_PENDING: set[str] = set()


def _is_command(text: str) -> bool:
    text = re.sub(r"^(해결:|fix:)\s*", "", text.strip())
    return text.split(" ", 1)[0] in COMMAND_WORDS or text.startswith(("--", "[", "resourceName:"))


def _unbreakable(line: str) -> bool:
    if _is_command(line):
        return True
    return any(display_width(t) > 40 for t in TOKEN.findall(line))  # a long name or URL


def english_runs(text: str) -> list[str]:
    """Runs of 3+ plain English words (not names, not allowed terms) in one rendered output."""
    runs: list[str] = []
    in_events = in_quote = False
    for line in text.splitlines():
        stripped = line.strip()
        if stripped in ("이벤트", "EVENTS"):  # the events' own messages are Kubernetes'
            in_events = True
            continue
        if in_events and line.startswith("  "):
            continue
        in_events = False
        if _is_command(stripped):
            continue
        if in_quote:  # a quoted message wrapped onto this line: quoted up to its closing mark
            if '"' not in stripped:
                continue
            stripped = stripped.split('"', 1)[1]
            in_quote = False
        stripped = QUOTED.sub(" | ", stripped)
        if '"' in stripped:  # opened here: closed on a later line, unless the line was cut (…)
            stripped, in_quote = stripped.split('"', 1)[0], not stripped.endswith("…")
        run: list[str] = []
        in_command = False  # an inline command (`... 확인: kubectl get nodes -o wide`) runs to `:` `,` `;`
        for token in [*TOKEN.findall(stripped), "|"]:
            if token.lstrip("(") in COMMAND_WORDS:
                in_command = True
            if in_command:
                in_command = not token.endswith((":", ",", ";", ")")) and token != "|"
                if len(run) >= 3:
                    runs.append(" ".join(run))
                run = []
                continue
            if PLAIN.match(token) and token.strip("()[],.;:").lower() not in ALLOWED:
                run.append(token)
                continue
            if len(run) >= 3:
                runs.append(" ".join(run))
            run = []
    return runs


def test_the_detector_finds_english_prose_and_passes_names() -> None:
    assert english_runs("해결: kubectl get pods -n serving") == []
    assert english_runs("# taint: kubectl get nodes -o wide") == []
    assert english_runs("확인: kubectl rbln why: this is not a command") == ["this is not a command"]
    assert english_runs('노드 npu-node-01에 dra.net 디바이스 없음: "cannot allocate all claims"') == []
    assert english_runs("Pod serving/a 상태 Pending (Unschedulable): DeviceClass가 없습니다") == []
    assert english_runs("dra.net: missing on every node of the pool") == ["missing on every node of the pool"]
    assert english_runs("RCT npu-rdma (read back from the cluster)") == ["(read back from the cluster)"]
    assert english_runs('로그에서 "RSD group creation returned no\n  device path"를 찾으세요') == []
    assert english_runs('"a" then b "c\n  d" and nothing more here') == ["and nothing more here"]


@pytest.fixture(scope="module")
def korean() -> list[tuple[str, str, str]]:
    return list(outputs("ko"))


def test_korean_lines_fit_in_100_columns(korean: list[tuple[str, str, str]]) -> None:
    over = [
        f"{scenario} {command}: {display_width(line)}: {line}"
        for scenario, command, text in korean
        if not command.endswith("wide") and command.split("/")[0] not in WIDTH_PENDING
        for line in text.splitlines()
        if display_width(line) > WIDTH and not _unbreakable(line)
    ]
    assert not over, "\n".join(over[:20])


@pytest.mark.parametrize("command", COMMANDS)
def test_no_english_prose_in_korean_output(korean: list[tuple[str, str, str]], command: str) -> None:
    found = {
        run: f"{scenario} {name}"
        for scenario, name, text in korean
        if name.split("/")[0] == command
        for run in english_runs(text)
    }
    assert not found, "\n".join(f"{where}: {run}" for run, where in list(found.items())[:30])


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
