"""`bench/run --quick` keeps working: every row is measured, printed and written (timings not judged).

Why: the benchmark stays out of CI, so nothing else would notice when a command it times changes
its flags or exit codes, or when the documented pipeline stops running against `kubectl rbln serve`.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
ROWS = [
    "documented: kubectl get -o json | jq",
    "kubectl get --raw | jq",
    "kubectl rbln attrs",
    "kubectl rbln why POD",
    "why, fetch only",
    "kubectl rbln check",
    "offline: json.load(bundle)",
    "offline: kubectl-rbln why -f POD",
    "kubectl rbln --help",
    "kubectl-rbln --help",
    'python -c "import click"',
]

pytestmark = [
    pytest.mark.slow,  # bench/run as a subprocess
    pytest.mark.skipif(
        not (Path("/usr/bin/jq").exists() or shutil.which("jq")), reason="the jq binary is not installed"
    ),
]


def test_quick_bench_prints_and_writes_every_row(tmp_path: Path) -> None:
    out = tmp_path / "result.json"
    done = subprocess.run(
        [sys.executable, str(REPO / "bench" / "run"), "--quick", "--runs", "1"]
        + ["--out", str(out), "--cache", str(tmp_path / "clusters")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    for row in ROWS:
        assert row in done.stdout
    assert "100 nodes" in done.stdout
    assert "target (ratios in this run)" in done.stdout
    assert "why -f wall / json.load" in done.stdout

    result = json.loads(out.read_text(encoding="utf-8"))
    (size,) = result["sizes"]
    assert size["nodes"] == 100
    assert [r["name"] for r in size["rows"]] == ROWS
    for row in size["rows"]:
        assert row["errors"] == [], row
        assert row["wallSeconds"] is not None and row["peakMiB"] > 0
        assert row["wallRatio"] is not None and row["peakRatio"] is not None
    documented = size["rows"][0]
    assert len(documented["peakMiBPerProcess"]) == 2  # kubectl and jq, both counted
    targets = size["targets"]
    wanted = {"attrs wall", "why POD wall", "why POD peak", "check wall", "why -f wall / json.load"}
    wanted |= {
        "i26 why -f wall / json.load",
        "i26 why -f peak / json.load",
        "i26 check wall",
        "i26 check peak",
    }
    assert wanted <= set(targets)
    assert targets["why POD wall"]["target"] == 0.2 and targets["why POD wall"]["ratio"] is not None
    assert targets["i26 why POD wall"]["target"] == 0.08 and targets["i26 why POD peak"]["target"] == 0.08
