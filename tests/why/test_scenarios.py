"""Every failure mode of the seeds, in every API shape: `why` names the right cause and only that.

Each scenario is a synthetic bundle with the slugs a correct diagnosis must
report and those that would blame the wrong thing (testing/synthetic/scenarios.py).
"""

from __future__ import annotations

import pytest

from kubectl_rbln.diagnose.features import allocator_features, choose_features
from kubectl_rbln.diagnose.why import WhyOptions, diagnose_pod
from kubectl_rbln.dra.normalize import build_snapshot
from testing.synthetic.scenarios import SCENARIOS

SHAPES = ("v1", "v1beta2", "v1beta1")


def diagnose(objects, namespace, name):
    snapshot = build_snapshot(objects)
    pod = snapshot.pod(namespace, name)
    assert pod is not None, f"scenario has no pod {namespace}/{name}"
    choice = choose_features(snapshot, None, None)
    return diagnose_pod(snapshot, pod, WhyOptions(features=allocator_features(choice)))


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("scenario", list(SCENARIOS.values()), ids=lambda s: s.name)
def test_scenario_slugs(scenario, shape):
    diagnosis = diagnose(scenario.build(shape), *scenario.pending_pod)
    slugs = {f.slug for f in diagnosis.findings}
    assert scenario.must <= slugs, f"{scenario.name}/{shape}: missing {scenario.must - slugs}; got {slugs}"
    assert not (scenario.must_not & slugs), (
        f"{scenario.name}/{shape}: wrongly blamed {scenario.must_not & slugs}"
    )
    if not scenario.must:
        assert not [f for f in diagnosis.findings if f.severity == "error"], diagnosis.findings


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_no_finding_shows_an_unfilled_placeholder(lang):
    """Every value a catalog text names is filled by the check that raised it."""
    import re

    for scenario in SCENARIOS.values():
        snapshot = build_snapshot(scenario.build("v1"))
        pod = snapshot.pod(*scenario.pending_pod)
        choice = choose_features(snapshot, None, None)
        diagnosis = diagnose_pod(snapshot, pod, WhyOptions(features=allocator_features(choice)))
        for finding in diagnosis.findings:
            words = finding.words(lang)
            for text in [words.title, words.summary, *words.remediation]:
                left = re.findall(r"(?<!\{)\{[a-z_]+\}(?!\})", text)
                assert not left, f"{scenario.name}: {finding.slug}: {left} in {text!r}"
