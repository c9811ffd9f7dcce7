"""A 64-NPU, 32-NIC node with no solution: `why` answers, and says its search was capped.

Why: Kubernetes 1.34+ gives up at its filter timeout (`timed out trying to allocate devices`); a
diagnosis that searched forever, or that called a capped search "impossible", would mislead.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kubectl_rbln.diagnose.why import WhyOptions, diagnose_pod
from kubectl_rbln.dra.normalize import build_snapshot
from tests.conftest import run_rbln
from tests.robustness.bundles import pathological_bundle


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
    assert title.startswith("search-capped:") and "불가능이 증명된 것은 아님" in title


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
