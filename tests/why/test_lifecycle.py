"""A Pod's life by stages (issue 21): the stage comes from the objects before any rule, the verdict
names it, a stage whose cause no rule knows says so with the evidence quoted as the input holds it,
and no Pod that is stuck exits 0."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from kubectl_rbln.app.why import WhyReport
from kubectl_rbln.diagnose.features import allocator_features, choose_features
from kubectl_rbln.diagnose.stage_types import STAGES
from kubectl_rbln.diagnose.why import PodDiagnosis, WhyOptions, diagnose_pod
from kubectl_rbln.dra.normalize import build_snapshot
from testing.synthetic.scenarios import SCENARIOS
from testing.synthetic.stages import expected_stage


def diagnose(name: str, shape: str = "v1", rules: Any = None) -> PodDiagnosis:
    scenario = SCENARIOS[name]
    snapshot = build_snapshot(scenario.build(shape))
    pod = snapshot.pod(*scenario.pending_pod)
    assert pod is not None
    options = WhyOptions(features=allocator_features(choose_features(snapshot, None, None)))
    return diagnose_pod(snapshot, pod, options, rules=rules)


def exit_code(diagnosis: PodDiagnosis) -> int:
    return WhyReport("test", None, {}, [diagnosis]).exit_code("error")


def input_strings(objects: list[dict[str, Any]]) -> set[str]:
    """Every string leaf of the input objects: what a quote may be, byte for byte."""
    found: set[str] = set()

    def walk(value: Any) -> None:
        if isinstance(value, str):
            found.add(value)
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(objects)
    return found


def quoted_texts(diagnosis: PodDiagnosis) -> list[str]:
    """What the diagnosis quotes: each finding's `event` and `condition` ("<reason>: <message>"), each
    `where: text` of cause-not-recognised's `quoted`, and every stage's quotes."""
    texts: list[str] = []
    for finding in diagnosis.findings:
        for key in ("event", "condition"):
            if isinstance(finding.evidence.get(key), str):
                texts.append(finding.evidence[key])
        texts += [line.split(": ", 1)[1] for line in finding.evidence.get("quoted", [])]
    for stage in diagnosis.context.life.stages if diagnosis.context.life else []:
        texts += [q.text for q in stage.quotes]
    return texts


def holds(strings: set[str], text: str) -> bool:
    """`text` is an input string, or `<reason>: <message>` of two input strings (an Event, a condition)."""
    if text in strings:
        return True
    reason, _, message = text.partition(": ")
    return reason in strings and message in strings


# what the headline says of each stage, in plain words (the catalog's `headline-*` sentences)
HEADLINE_WORDS = {
    "created": ("its owner could not create it",),
    "claims-created": ("its ResourceClaims were not created",),
    "queued": ("held out of scheduling",),
    "scheduler": ("no scheduler will allocate its claims", "no scheduler allocated its claims"),
    "allocated": ("its claims cannot be allocated", "no node can take it with the devices it asks for"),
    "bound": ("it is not bound to a node",),
    "admitted": ("refused it",),
    "prepared": ("the kubelet cannot prepare its claims",),
    "sandbox": ("its sandbox cannot be created",),
    "running": ("is crashing (", "is not running (", "it does not stop", "but not ready"),
    "devices": ("not with the devices it was given",),
}
HANGUL = re.compile(r"[\uac00-\ud7a3]")
NAMES = sorted(SCENARIOS)
STUCK = [name for name in NAMES if expected_stage(name)]


@pytest.mark.parametrize("name", NAMES)
def test_every_scenario_is_at_its_stage_and_its_headline_says_it(name: str) -> None:
    diagnosis = diagnose(name)
    stage = expected_stage(name)
    stuck = diagnosis.stuck
    assert (stuck.stage if stuck else "") == stage, f"{name}: {diagnosis.verdict('en')}"
    if stage:
        headline = diagnosis.verdict("en")
        assert any(words in headline for words in HEADLINE_WORDS[stage]), headline
        assert HANGUL.search(diagnosis.verdict("ko"))
        document = diagnosis.to_dict("en")
        assert document["stage"] == stage
        assert [s["stage"] for s in document["life"]] == list(STAGES[: STAGES.index(stage) + 1])


@pytest.mark.parametrize("name", STUCK)
def test_the_stage_is_decided_with_no_rule_at_all(name: str) -> None:
    """With the rule list empty, the Pod still gets its stage, as a cause not recognised, exit 1."""
    bare = diagnose(name, rules=())
    assert bare.stuck is not None and bare.stuck.stage == expected_stage(name)
    assert [f.slug for f in bare.findings] == ["cause-not-recognised"]
    (finding,) = bare.findings
    assert finding.severity == "error" and finding.evidence["stage"] == expected_stage(name)
    assert exit_code(bare) == 1


@pytest.mark.parametrize("name", NAMES)
def test_every_quoted_string_stands_in_the_input(name: str) -> None:
    for shape in ("v1", "v1beta1"):
        strings = input_strings(SCENARIOS[name].build(shape))
        diagnosis = diagnose(name, shape)
        for text in quoted_texts(diagnosis):
            assert holds(strings, text), f"{name}/{shape}: quoted but not in the input: {text!r}"


@pytest.mark.parametrize("name", STUCK)
def test_no_stuck_device_pod_exits_0(name: str) -> None:
    diagnosis = diagnose(name)
    assert exit_code(diagnosis) == 1, diagnosis.verdict("en")
    assert WhyReport("test", None, {}, [diagnosis]).exit_code("info") == 1


@pytest.mark.parametrize("name", [n for n in NAMES if not SCENARIOS[n].recognised])
def test_a_cause_no_rule_knows_is_said_at_its_stage_with_its_evidence(name: str) -> None:
    diagnosis = diagnose(name)
    first = diagnosis.findings[0]
    assert first.slug == "cause-not-recognised" and first.severity == "error"
    assert first.evidence["stage"] == expected_stage(name)
    assert first.evidence["quoted"], "the strongest evidence is quoted"
    verdict = diagnosis.verdict("en")
    assert "the cause was not recognised" in verdict
    quote = first.evidence["quoted"][0].split(": ", 1)[1]
    assert quote in first.words("en").summary
    json.dumps(diagnosis.to_dict("ko"))


def test_every_stage_has_a_scenario_and_an_unrecognised_one() -> None:
    """Issue 21's must-show: a scenario at every stage, and at each one a cause no rule knows."""
    at = {expected_stage(n) for n in NAMES}
    unknown = {expected_stage(n) for n in NAMES if not SCENARIOS[n].recognised}
    assert set(STAGES) <= at, sorted(set(STAGES) - at)
    assert set(STAGES) <= unknown, sorted(set(STAGES) - unknown)
