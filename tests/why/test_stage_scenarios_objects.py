"""The stage scenarios before the node (testing/synthetic/upstream_stages_before.py) as objects only.

What `why` says about them is the stage engine's test, once it is wired in; here: each builds in every
API shape with its stuck Pod in it, states a stage, and names the public report it comes from.
"""

from __future__ import annotations

import re

import pytest

from kubectl_rbln.diagnose.lifecycle import STAGES
from kubectl_rbln.dra.normalize import build_snapshot
from testing.synthetic.scenario_kit import SLUGS
from testing.synthetic.scenarios import SCENARIOS as EXISTING
from testing.synthetic.upstream_stages_before import SCENARIOS

SHAPES = ("v1", "v1beta2", "v1beta1")
BEFORE_THE_NODE = ("created", "claims-created", "queued", "scheduler", "allocated", "bound")
REPORT = re.compile(r"https?://github\.com/[\w.-]+/[\w.-]+/(?:issues|pull)/\d+")


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
def test_builds_with_its_pod(scenario, shape):
    objects = scenario.build(shape)
    snapshot = build_snapshot(objects)
    assert snapshot.pod(*scenario.pending_pod) is not None, f"{scenario.name}/{shape}: no pod"
    assert not snapshot.problems, f"{scenario.name}/{shape}: {snapshot.problems}"
    versions = {o["apiVersion"] for o in objects if o["apiVersion"].startswith("resource.k8s.io/")}
    assert versions == {f"resource.k8s.io/{shape}"}, versions


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
def test_states_a_stage_and_cites_a_report(scenario):
    assert scenario.stage in BEFORE_THE_NODE and scenario.stage in STAGES
    assert REPORT.search(scenario.description), f"{scenario.name}: no upstream report in its description"
    assert scenario.must <= SLUGS and scenario.must_not <= SLUGS
    assert scenario.recognised == (scenario.must != {"cause-not-recognised"})
    assert not scenario.must & scenario.must_not


def test_every_stage_has_an_unrecognised_cause():
    stages = {s.stage for s in SCENARIOS if not s.recognised}
    assert stages == set(BEFORE_THE_NODE)


def test_names_are_new():
    names = [s.name for s in SCENARIOS]
    assert len(names) == len(set(names))
    assert all(EXISTING[s.name] is s for s in SCENARIOS), "a name of another scenario"
