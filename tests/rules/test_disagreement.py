"""simulation-disagrees: the scheduler's recorded DRA refusals against the simulation (issue 12, point 3).

Scenario-driven (testing/synthetic/upstream_disagreement.py): both sides in the evidence, the
event's time against the objects', the verdict in en and ko, `-o json`, and `why -f` end to end.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from kubectl_rbln.diagnose.features import allocator_features, choose_features
from kubectl_rbln.diagnose.why import WhyOptions, diagnose_pod
from kubectl_rbln.dra.normalize import build_snapshot
from testing.synthetic.builder import ClusterBuilder, Knobs, dumps_bundle
from testing.synthetic.scenarios import SCENARIOS
from testing.synthetic.upstream_disagreement import UPSTREAM_DISAGREEMENT, _cannot_allocate, _refused

SHAPES = ("v1", "v1beta2", "v1beta1")
REPO = Path(__file__).resolve().parents[2]


def _diagnose(objects, namespace, name):
    snapshot = build_snapshot(objects)
    pod = snapshot.pod(namespace, name)
    assert pod is not None
    choice = choose_features(snapshot, None, None)
    return diagnose_pod(snapshot, pod, WhyOptions(features=allocator_features(choice)))


def _finding(diagnosis):
    found = [f for f in diagnosis.findings if f.slug == "simulation-disagrees"]
    assert len(found) == 1, diagnosis.findings
    return found[0]


def test_the_scenarios_are_registered():
    assert {s.name for s in UPSTREAM_DISAGREEMENT} <= set(SCENARIOS)
    assert len(UPSTREAM_DISAGREEMENT) >= 2


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("scenario", UPSTREAM_DISAGREEMENT, ids=lambda s: s.name)
def test_the_finding_shows_both_sides(scenario, shape):
    diagnosis = _diagnose(scenario.build(shape), *scenario.pending_pod)
    finding = _finding(diagnosis)
    assert finding.severity == "error"
    assert {f.slug for f in diagnosis.findings} == {"simulation-disagrees"}  # claim-not-allocated hidden
    evidence = finding.evidence
    assert "cannot allocate all claims" in evidence["schedulerSays"]
    assert evidence["draRefusals"] == ["2 cannot allocate all claims"]
    assert evidence["nodesRefusedForDevices"] == 2 and evidence["nodesInScheduler"] == 3
    assert evidence["recordedIn"] == "event FailedScheduling"
    assert evidence["simulationFitsOn"] == diagnosis.context.simulation.fitting != []
    assert evidence["simulationExample"].startswith(f"{evidence['simulationFitsOn'][0]}: fits: ")


def test_device_cap_is_not_stale_and_names_the_version():
    scenario = SCENARIOS["upstream-133-device-cap"]
    finding = _finding(_diagnose(scenario.build("v1"), *scenario.pending_pod))
    assert finding.case is None
    assert finding.evidence["changedAfterEvent"] == []
    assert finding.evidence["recordedAt"] == "2026-09-14T05:56:00Z"
    assert finding.evidence["simulationFitsOn"] == ["npu-node-01", "npu-node-02"]
    assert "scheduler bugs fixed in later patch releases" in finding.words("en").summary


def test_an_event_older_than_a_change_is_called_stale():
    scenario = SCENARIOS["upstream-stale-event"]
    finding = _finding(_diagnose(scenario.build("v1"), *scenario.pending_pod))
    assert finding.case == "stale"
    assert finding.evidence["recordedAt"] == "2026-09-14T05:45:00Z"
    assert finding.evidence["newestObjectChange"] == "2026-09-14T05:47:00Z"
    assert finding.evidence["changedAfterEvent"] == ["DeviceClass dranet at 2026-09-14T05:47:00Z"]
    words = finding.words("en")
    assert "predates changes" in words.title and "may be stale" in words.summary


@pytest.mark.parametrize(
    ("lang", "expected"),
    [
        (
            "en",
            "is Pending: its claims cannot be allocated: The scheduler and the simulation disagree: "
            "the scheduler says "
            '"2 cannot allocate all claims" (2 of 3 nodes), '
            "the simulation fits the Pod on npu-node-01, npu-node-02",
        ),
        (
            "ko",
            "Pending 상태입니다: ResourceClaim을 할당할 수 없습니다 — "
            "스케줄러와 시뮬레이션의 결과가 다릅니다: "
            '스케줄러는 "2 cannot allocate all claims"(3개 노드 중 2개), '
            "시뮬레이션은 Pod가 들어갈 노드가 있다고 봅니다(npu-node-01, npu-node-02)",
        ),
    ],
)
def test_the_verdict_says_they_disagree(lang, expected):
    scenario = SCENARIOS["upstream-133-device-cap"]
    verdict = _diagnose(scenario.build("v1"), *scenario.pending_pod).verdict(lang)
    assert verdict.endswith(expected), verdict
    assert "nothing" not in verdict and "고칠 것이 없습니다" not in verdict


def test_json_document_carries_both_sides():
    scenario = SCENARIOS["upstream-stale-event"]
    document = _diagnose(scenario.build("v1"), *scenario.pending_pod).to_dict("en")
    (finding,) = document["findings"]
    assert finding["slug"] == "simulation-disagrees" and finding["severity"] == "error"
    assert finding["evidence"]["schedulerSays"].startswith("0/3 nodes are available")
    assert finding["evidence"]["simulationFitsOn"] == ["npu-node-02"]
    assert any(row["name"] == "npu-node-02" and row["fits"] for row in document["nodes"])
    assert any(e["reason"] == "FailedScheduling" for e in document["events"])
    json.dumps(document)


def _pending_fits(**knobs):
    """The reference cluster, a decode Pod Pending that fits on npu-node-02, and no event yet."""
    builder = ClusterBuilder(7, "v1", Knobs(**knobs))
    return builder.build(), builder.target_pod()


def test_no_event_no_disagreement():
    objects, pod = _pending_fits()
    diagnosis = _diagnose(objects, *pod)
    assert [f.slug for f in diagnosis.findings] == ["cause-not-recognised", "claim-not-allocated"]
    verdict = diagnosis.verdict("en")
    assert "the cause was not recognised" in verdict and "disagree" not in verdict


def test_non_device_reasons_are_no_disagreement():
    objects, pod = _pending_fits()
    message = (
        "0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available: "
        "3 No preemption victims found for incoming pod."
    )
    _refused(objects, pod, message, at=-300, count=2)
    diagnosis = _diagnose(objects, *pod)
    assert "simulation-disagrees" not in {f.slug for f in diagnosis.findings}
    assert "nothing blocks it" not in diagnosis.verdict("en")  # the scheduler refused it


def test_the_condition_alone_is_enough():
    objects, pod = _pending_fits()
    _refused(objects, pod, _cannot_allocate(2), at=-300, count=2)
    objects = [o for o in objects if o.get("kind") != "Event"]
    finding = _finding(_diagnose(objects, *pod))
    assert finding.evidence["recordedIn"] == "condition PodScheduled"


def test_a_real_cause_wins_over_the_disagreement():
    """When a rule finds an error, the disagreement is not reported (the event agrees with it)."""
    scenario = SCENARIOS["devices-exhausted"]
    slugs = {f.slug for f in _diagnose(scenario.build("v1"), *scenario.pending_pod).findings}
    assert "devices-exhausted" in slugs and "simulation-disagrees" not in slugs


def test_no_pre_existing_scenario_reports_a_disagreement():
    for scenario in SCENARIOS.values():
        if scenario in UPSTREAM_DISAGREEMENT:
            continue
        slugs = {f.slug for f in _diagnose(scenario.build("v1"), *scenario.pending_pod).findings}
        assert "simulation-disagrees" not in slugs, scenario.name


@pytest.mark.slow
@pytest.mark.parametrize("lang", ["en", "ko"])
def test_why_f_end_to_end(tmp_path, lang):
    scenario = SCENARIOS["upstream-stale-event"]
    bundle = tmp_path / "stale.json"
    bundle.write_text(dumps_bundle(scenario.build("v1")), encoding="utf-8")
    namespace, name = scenario.pending_pod
    base = [
        sys.executable,
        "-m",
        "kubectl_rbln",
        "why",
        "-f",
        str(bundle),
        "-n",
        namespace,
        name,
        "--lang",
        lang,
    ]
    env = {"LANG": "C.UTF-8", "NO_COLOR": "1", "PATH": "", "PYTHONPATH": str(REPO)}
    text = subprocess.run(base, capture_output=True, text=True, timeout=120, env=env, cwd=REPO)
    assert text.returncode == 1, text.stderr
    lines = text.stdout.splitlines()
    verdict = " ".join(line.strip() for line in lines[: lines.index("")])  # wraps at 100 columns
    assert ("disagree" if lang == "en" else "결과가 다르며") in verdict, verdict
    assert "simulation-disagrees" in text.stdout and "2026-09-14T05:45:00Z" in text.stdout  # label in lang
    doc = subprocess.run(
        [*base, "-o", "json"], capture_output=True, text=True, timeout=120, env=env, cwd=REPO
    )
    assert doc.returncode == 1, doc.stderr
    pods = json.loads(doc.stdout)["pods"]
    evidence = pods[0]["findings"][0]["evidence"]
    assert evidence["changedAfterEvent"] == ["DeviceClass dranet at 2026-09-14T05:47:00Z"]
    assert evidence["simulationFitsOn"] == ["npu-node-02"]
