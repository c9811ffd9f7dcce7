"""A 64-NPU, 32-NIC node with no solution: `why` answers, and says its search was capped.

Why: Kubernetes 1.34+ gives up at its filter timeout (`timed out trying to allocate devices`); a
diagnosis that searched forever, or that called a capped search "impossible", would mislead.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kubectl_rbln.diagnose.features import allocator_features, choose_features
from kubectl_rbln.diagnose.why import WhyOptions, diagnose_pod
from kubectl_rbln.dra.allocator import CLUSTER_MAX_STEPS, ClaimToAllocate, Features, simulate_cluster
from kubectl_rbln.dra.budget import WorkBudget
from kubectl_rbln.dra.normalize import build_snapshot
from tests.conftest import run_rbln
from tests.robustness.bundles import (
    NS,
    NUMA,
    many_pathological_nodes,
    npu_request,
    numa8_bundle,
    pathological_bundle,
)


def test_capped_search_is_a_warning_that_names_the_cap() -> None:
    snapshot = build_snapshot(pathological_bundle())
    diagnosis = diagnose_pod(snapshot, snapshot.pods[0], WhyOptions())
    (capped,) = [f for f in diagnosis.findings if "searchCapped" in f.evidence]
    assert capped.slug == "constraint-unsatisfiable"
    assert capped.severity == "warning"  # not proven impossible: not an error
    assert capped.words().title.startswith("search-capped: no solution found within")
    assert "not proven impossible" in capped.words().title
    assert capped.evidence["searchCapped"]["nodes"] == 1
    assert capped.evidence["schedulerSays"] == "1 timed out trying to allocate devices"
    (row,) = diagnosis.nodes
    assert row["fits"] is False and row["failure"]["kind"] == "search-capped"


def test_capped_search_in_korean() -> None:
    snapshot = build_snapshot(pathological_bundle())
    diagnosis = diagnose_pod(snapshot, snapshot.pods[0], WhyOptions())
    (capped,) = [f for f in diagnosis.findings if "searchCapped" in f.evidence]
    title = capped.words("ko").title
    assert title.startswith("search-capped:") and "불가능이 증명된 것은 아닙니다" in title


@pytest.mark.slow  # the CLI as a subprocess
def test_why_cli_prints_the_cap(tmp_path: Path) -> None:
    bundle = tmp_path / "big.json"
    bundle.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": pathological_bundle()}))
    done = run_rbln("why", "-f", str(bundle), "-n", "ml", "big-0")
    assert done.returncode in (0, 1), done.stderr
    assert "search-capped" in done.stdout
    report = json.loads(run_rbln("why", "-f", str(bundle), "-n", "ml", "big-0", "-o", "json").stdout)
    steps = report["pods"][0]["nodes"][0]["failure"]["summary"]
    assert steps.startswith("gave up after")


# --- issue 16: 32 devices over 8 NUMA nodes, and a cluster-wide step budget


def _diagnose(bundle):
    snapshot = build_snapshot(bundle)
    return diagnose_pod(snapshot, snapshot.pods[0], WhyOptions())


def test_32_devices_over_8_numa_nodes_each_request_on_its_own_numa_fits() -> None:
    requests = [npu_request(f"r{k}", 4) for k in range(8)]
    constraints = [{"requests": [f"r{k}"], "matchAttribute": NUMA} for k in range(8)]
    diagnosis = _diagnose(numa8_bundle(requests, constraints))
    (row,) = diagnosis.nodes
    assert row["fits"] is True
    assert not [f for f in diagnosis.findings if f.slug == "constraint-unsatisfiable"]


def test_32_devices_chained_onto_one_numa_node_is_proven_impossible_not_capped() -> None:
    # r0..r7 pairwise on one NUMA node: all 32 on one, which holds 8
    requests = [npu_request(f"r{k}", 4) for k in range(8)]
    constraints = [{"requests": [f"r{k}", f"r{(k + 1) % 8}"], "matchAttribute": NUMA} for k in range(8)]
    diagnosis = _diagnose(numa8_bundle(requests, constraints))
    (finding,) = [f for f in diagnosis.findings if f.slug == "constraint-unsatisfiable"]
    assert "searchCapped" not in finding.evidence
    (row,) = diagnosis.nodes
    assert row["fits"] is False and row["failure"]["kind"] == "no-solution"


def test_32_devices_in_one_request_on_one_numa_node_is_refused_by_counts() -> None:
    diagnosis = _diagnose(numa8_bundle([npu_request("npu", 32)], [{"matchAttribute": NUMA}]))
    (finding,) = [f for f in diagnosis.findings if f.slug == "constraint-unsatisfiable"]
    assert "searchCapped" not in finding.evidence
    groups = finding.evidence["perValue"]
    assert len(groups) == 8  # every NUMA node: 8 candidates, 32 needed
    assert all(g["candidates"] == {"npu": 8} and g["needed"] == {"npu": 32} for g in groups)
    (row,) = diagnosis.nodes
    assert row["failure"]["kind"] == "constraint"


def test_the_cluster_budget_leaves_later_nodes_unsearched_and_says_so() -> None:
    snapshot = build_snapshot(many_pathological_nodes(4))
    features = allocator_features(choose_features(snapshot, None, None))
    claim = snapshot.claims[0]
    nodes = sorted(snapshot.nodes.values(), key=lambda n: n.name)
    results = simulate_cluster(
        nodes,
        snapshot.slices,
        snapshot.device_classes,
        [ClaimToAllocate(NS, claim.name, claim.spec)],
        set(),
        features,
        max_steps=1_000,
        total_steps=2_500,
    )
    assert [r.failure.kind for r in results if r.failure] == ["search-capped"] * 4
    assert [r.steps for r in results] == [1_001, 1_001, 499, 1]


def test_why_over_many_pathological_nodes_reports_the_cluster_budget() -> None:
    nodes = CLUSTER_MAX_STEPS // 200_000 + 2  # two more nodes than the budget searches
    diagnosis = _diagnose(many_pathological_nodes(nodes))
    (capped,) = [f for f in diagnosis.findings if "searchCapped" in f.evidence]
    evidence = capped.evidence["searchCapped"]
    assert evidence["nodes"] == nodes
    assert evidence["clusterBudget"] == CLUSTER_MAX_STEPS
    assert evidence["unsearchedNodes"] >= 1


# --- issue 26: counting proofs decide before any search


def test_nine_requests_on_distinct_numa_nodes_of_eight_are_proven_not_capped() -> None:
    requests = [npu_request(f"r{k}", 1) for k in range(9)]
    snapshot = build_snapshot(numa8_bundle(requests, [{"distinctAttribute": NUMA}]))
    options = WhyOptions(features=Features.defaults(36))  # distinctAttribute: DRAConsumableCapacity
    diagnosis = diagnose_pod(snapshot, snapshot.pods[0], options)
    (finding,) = [f for f in diagnosis.findings if f.slug == "constraint-unsatisfiable"]
    assert "searchCapped" not in finding.evidence
    assert finding.severity == "error"
    proof = finding.evidence["proof"]
    assert (proof["kind"], len(proof["requests"]), proof["needed"], proof["available"]) == (
        "distinct",
        9,
        9,
        8,
    )
    (row,) = diagnosis.nodes
    assert row["failure"]["kind"] != "search-capped" and row["failure"]["proof"]["available"] == 8


def test_one_match_over_the_windows_is_proven_with_the_devices_each_value_gives() -> None:
    bundle = pathological_bundle()
    for obj in bundle:
        if obj["kind"] == "ResourceClaimTemplate" or obj["kind"] == "ResourceClaim":
            obj["spec"].get("spec", obj["spec"])["devices"]["constraints"] = [{"matchAttribute": NUMA}]
    diagnosis = _diagnose(bundle)
    (row,) = diagnosis.nodes
    assert row["failure"]["kind"] == "proven-impossible"
    assert row["failure"]["proof"]["kind"] == "match"
    assert row["failure"]["proof"]["needed"] == 32  # 15 requests of 2 NPUs and 2 NICs
    assert row["failure"]["summary"].startswith("proven impossible:")
    (finding,) = [f for f in diagnosis.findings if f.slug == "constraint-unsatisfiable"]
    assert "searchCapped" not in finding.evidence and finding.severity == "error"


def test_one_work_budget_for_the_command_covers_every_pod_and_names_what_it_did_not_reach() -> None:
    snapshot = build_snapshot(many_pathological_nodes(4))
    # the command's budget, before any Pod spends it: about one and a half nodes' search
    budget = snapshot.memo("work-budget", lambda: WorkBudget(total=300_000))
    first = diagnose_pod(snapshot, snapshot.pods[0], WhyOptions())
    (finding,) = [f for f in first.findings if f.slug == "constraint-unsatisfiable"]
    assert finding.case == "not-reached" and finding.severity == "error"
    assert finding.evidence["notReached"] == {"nodes": ["npu-64-2", "npu-64-3"], "count": 2}
    assert finding.words().title.startswith(
        "not reached: the work budget of this command ran out before 2 of 4"
    )
    assert budget.spent >= 300_000
    assert [r.reached for r in first.context.simulation.results] == [True, True, False, False]
    # a second Pod of the same command finds the budget spent: nothing simulated, still an error
    second = diagnose_pod(snapshot, snapshot.pods[0], WhyOptions())
    (again,) = [f for f in second.findings if f.slug == "constraint-unsatisfiable"]
    assert again.severity == "error" and again.evidence["notReached"]["count"] == 4
    assert again.words("ko").title.startswith("작업 한도가 소진되었습니다")


def test_selector_evaluations_are_work_of_the_budget() -> None:
    snapshot = build_snapshot(numa8_bundle([npu_request("npu", 1)], []))
    budget = snapshot.memo("work-budget", WorkBudget)
    diagnosis = diagnose_pod(snapshot, snapshot.pods[0], WhyOptions())
    (row,) = diagnosis.nodes
    assert row["fits"] is True
    result = diagnosis.context.simulation.results[0]
    assert result.work >= 64  # one selector answer per NPU at least
    assert budget.spent == result.steps + result.work
