"""remedy/suggest.py: the strongest recipe the cluster satisfies, proven by why's own simulation."""

from __future__ import annotations

from rules_kit import ALL_PENDING, cluster, scenario

from kubectl_rbln.app.why import WhyRequest, why
from kubectl_rbln.diagnose.features import allocator_features, choose_features
from kubectl_rbln.dra.normalize_claims import normalize_template
from kubectl_rbln.remedy.suggest import suggest


def _suggest(c, **more):
    snapshot = c.snapshot()
    features = allocator_features(choose_features(snapshot, None, None))
    return snapshot, suggest(snapshot, c.namespace, "npu-rdma", features=features, **more)


def _errors_with(snapshot, c, template):
    report = why(snapshot, WhyRequest((f"{c.namespace}/{c.pod}",), with_rct=normalize_template(template)))
    diagnosis = report.diagnoses[0]
    return [f.slug for f in diagnosis.findings if f.severity == "error"], diagnosis.context.simulation.fitting


def test_one_nic_per_numa_gets_numa_unaligned_proven_by_resimulation():
    c = scenario("one-nic-per-numa")
    snapshot, result = _suggest(c)
    tried = [a.candidate.recipe for a in result.attempts]
    assert tried[0] == "numa-aligned" and not result.attempts[0].fits
    assert result.chosen is not None and result.chosen.candidate.recipe == "numa-unaligned"
    devices = result.template["spec"]["spec"]["devices"]
    assert "constraints" not in devices  # unaligned: no matchAttribute, no distinctAttribute
    assert [r["exactly"]["count"] for r in devices["requests"]] == [4, 2]  # the RCT's counts are kept
    # proof: the suggested RCT fits where the current one does not
    errors, fitting = _errors_with(snapshot, c, result.template)
    assert errors == [] and fitting == c.npu_nodes
    assert "constraint-unsatisfiable" in c.slugs()


def test_healthy_capacity_keeps_numa_aligned():
    c = cluster(**ALL_PENDING)
    snapshot, result = _suggest(c)
    assert result.chosen.candidate.recipe == "numa-aligned"
    assert result.chosen.candidate.adaptations == ()
    assert _errors_with(snapshot, c, result.template)[0] == []


def test_dranet_numa_keeps_alignment_on_dra_net_numanode():
    c = scenario("nic-no-numanode")
    snapshot, result = _suggest(c)
    assert result.chosen.candidate.recipe == "numa-aligned"
    constraints = result.template["spec"]["spec"]["devices"]["constraints"]
    assert {"requests": ["npu", "nic"], "matchAttribute": "dra.net/numaNode"} in constraints
    assert _errors_with(snapshot, c, result.template)[0] == []


def test_exhausted_cluster_has_no_fix_and_says_capacity():
    c = scenario("devices-exhausted")
    _, result = _suggest(c)
    assert result.chosen is None and result.template is None
    assert "capacity" in [r.kind for r in result.no_fix]
