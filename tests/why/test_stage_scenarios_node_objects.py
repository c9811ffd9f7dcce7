"""The node-side stage scenarios (testing/synthetic/upstream_stages_node.py) as objects only.

What `why` says about them is the stage engine's test, once they are in scenarios.py; here: each builds
in every API shape with its Pod in it, says the stage it is stuck at, and cites the public report it
comes from.
"""

from __future__ import annotations

import re

import pytest

from kubectl_rbln.diagnose.lifecycle import STAGES
from kubectl_rbln.dra.normalize import build_snapshot
from testing.synthetic.scenario_kit import SLUGS
from testing.synthetic.scenarios import SCENARIOS as EXISTING
from testing.synthetic.upstream_stages_node import SCENARIOS

SHAPES = ("v1", "v1beta2", "v1beta1")
REPORT = re.compile(r"https?://github\.com/[\w.-]+/[\w.-]+/(?:issues|pull)/\d+")


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
def test_builds_with_its_pod(scenario, shape):
    objects = scenario.build(shape)
    snapshot = build_snapshot(objects)
    assert snapshot.pod(*scenario.pending_pod) is not None, (
        f"{scenario.name}/{shape}: no {scenario.pending_pod}"
    )
    assert not snapshot.problems, snapshot.problems
    versions = {o["apiVersion"] for o in objects if o["apiVersion"].startswith("resource.k8s.io/")}
    assert versions == {f"resource.k8s.io/{shape}"}


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
def test_cites_a_public_report_and_states_its_stage(scenario):
    assert REPORT.search(scenario.description), scenario.description
    assert scenario.stage in STAGES
    assert (scenario.must | scenario.must_not) <= SLUGS
    if not scenario.recognised:
        assert scenario.must == {"cause-not-recognised"}


def test_names_are_unique_and_new():
    names = [s.name for s in SCENARIOS]
    assert len(names) == len(set(names))
    assert all(EXISTING[s.name] is s for s in SCENARIOS), "a name of another scenario"


def test_every_node_stage_has_an_unrecognised_scenario():
    covered = {s.stage for s in SCENARIOS if not s.recognised}
    assert covered >= {"admitted", "prepared", "sandbox", "running", "devices"}
