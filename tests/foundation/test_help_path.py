"""`kubectl rbln --help` and completion stay light: they never import the Kubernetes client, nor yaml
for the English help (no catalog file is read for it)."""

from __future__ import annotations

import subprocess
import sys

import pytest

pytestmark = pytest.mark.slow  # python subprocesses

HEAVY = ("kubernetes", "urllib3", "jq", "yaml")
PROBE = """
import sys
from kubectl_rbln.cli.main import main
try:
    main({args!r})
except SystemExit:
    pass
print("LOADED:" + ",".join(m for m in {heavy!r} if m in sys.modules), file=sys.stderr)
"""


@pytest.mark.parametrize("args", [["--help"], ["why", "--help"], ["dump", "--help"], ["version", "--help"]])
def test_help_does_not_import_the_client(args):
    result = subprocess.run(
        [sys.executable, "-c", PROBE.format(args=args, heavy=HEAVY)],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert "Usage: kubectl rbln" in result.stdout
    loaded = result.stderr.strip().rsplit("LOADED:", 1)[-1]
    assert loaded == "", f"--help imported {loaded}"


def test_help_lists_every_command():
    result = subprocess.run(
        [sys.executable, "-m", "kubectl_rbln", "--help"], capture_output=True, text=True, timeout=30
    )
    for command in (
        "why",
        "attrs",
        "pod-devices",
        "suggest-rct",
        "check",
        "dump",
        "serve",
        "version",
        "topo",
    ):
        assert f"\n  {command} " in result.stdout, command
