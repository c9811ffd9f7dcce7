"""Digests of what `why -f` and `check -f` print for every scenario, so a change meant to be a pure
speed-up (issue 26: linear costs) can prove it printed byte for byte what the code before it printed.

Each scenario of testing/synthetic/scenarios.py (v1 shape) is written to a file and run in-process
through the CLI: `why -f BUNDLE -n NS POD` (text and `-o json`), `check -f BUNDLE -n NS`, and `why`
with the bundle split into two files (Nodes in both, so the check that inputs share a Node runs).
The file holds one sha256 per (scenario, run); a change that alters output on purpose rewrites it.

    python -m testing.scenario_outputs --check     # exit 1 and the runs that differ
    python -m testing.scenario_outputs --write     # record the current outputs
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from testing.synthetic.builder import write_bundle
from testing.synthetic.scenarios import SCENARIOS

REPO = Path(__file__).resolve().parents[1]
DIGESTS = REPO / "tests" / "data" / "scenario-outputs.json"


def _run(argv: list[str]) -> str:
    """The CLI in this process: exit code, stdout and stderr as one text."""
    from kubectl_rbln.cli.main import main  # noqa: PLC0415 - after the caller set the environment

    out, err = io.StringIO(), io.StringIO()
    code: Any = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(argv)
        except SystemExit as exc:
            code = exc.code
    return f"exit {code}\n--- stdout\n{out.getvalue()}--- stderr\n{err.getvalue()}"


def _split(bundle: Path, first: Path, second: Path) -> None:
    """The bundle as two files: the Nodes in both, every other object in one of them, alternately."""
    doc = json.loads(bundle.read_text(encoding="utf-8"))
    items = doc["items"] if isinstance(doc, dict) else doc
    nodes = [i for i in items if i.get("kind") == "Node"]
    rest = [i for i in items if i.get("kind") != "Node"]
    for path, part in ((first, rest[0::2]), (second, rest[1::2])):
        path.write_text(
            json.dumps({"apiVersion": "v1", "kind": "List", "items": nodes + part}), encoding="utf-8"
        )


def outputs() -> dict[str, str]:
    """(scenario/run) -> sha256 of what the run printed."""
    found: dict[str, str] = {}
    with tempfile.TemporaryDirectory(prefix="rbln-outputs-") as tmp:
        work = Path(tmp)
        for name, scenario in sorted(SCENARIOS.items()):
            bundle = work / f"{name}.json"
            write_bundle(bundle, scenario.build("v1"))
            namespace, pod = scenario.pending_pod
            first, second = work / f"{name}-a.json", work / f"{name}-b.json"
            _split(bundle, first, second)
            runs = {
                "why": ["why", "-f", str(bundle), "-n", namespace, pod],
                "why-json": ["why", "-f", str(bundle), "-n", namespace, pod, "-o", "json"],
                "check": ["check", "-f", str(bundle), "-n", namespace],
                "why-two-files": ["why", "-f", str(first), "-f", str(second), "-n", namespace, pod],
            }
            for run, argv in runs.items():
                text = _run(argv).replace(str(work), "<tmp>")
                found[f"{name}/{run}"] = hashlib.sha256(text.encode("utf-8")).hexdigest()
    return found


def differences(recorded: dict[str, str], current: dict[str, str]) -> list[str]:
    return [key for key in sorted(set(recorded) | set(current)) if recorded.get(key) != current.get(key)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true")
    mode.add_argument("--write", action="store_true")
    args = parser.parse_args(argv)
    current = outputs()
    if args.write:
        DIGESTS.write_text(json.dumps(current, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        print(f"wrote {len(current)} digests to {DIGESTS.relative_to(REPO)}", file=sys.stderr)
        return 0
    recorded = json.loads(DIGESTS.read_text(encoding="utf-8"))
    changed = differences(recorded, current)
    for key in changed:
        print(f"changed: {key}", file=sys.stderr)
    return 1 if changed else 0


if __name__ == "__main__":
    sys.exit(main())
