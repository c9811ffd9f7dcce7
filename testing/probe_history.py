"""Every pod-devices probe script that ever shipped, read from the git history into checked-in fixtures.

`dump` records a probe under its exact argv `["sh", "-c", SCRIPT]` and `-f` and `serve` find it by that
argv, so a bundle taken by an older release reads only while the plugin still knows that release's
script byte for byte. The project has no release tags (`git tag` is empty), so every revision of a
probe version's text committed on main counts as shipped. Each fixture is the value of a
`PROBE_SCRIPT*` string literal of kubectl_rbln/cluster/exec_probe.py at the commit that introduced
it, evaluated with `ast.literal_eval` (a backslash-newline inside a non-raw literal is a line
continuation in Python, so the text is what Python made of the source, not the source as typed).

    python -m testing.probe_history --check   # exit 1 when a fixture differs from the history
    python -m testing.probe_history --write   # re-extract the fixtures (tests/data/probes/)
"""

from __future__ import annotations

import ast
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from testing.modes import write_wanted

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "data" / "probes"
PROBE_FILE = "kubectl_rbln/cluster/exec_probe.py"  # never renamed: `git log --follow` shows no rename


@dataclass(frozen=True, slots=True)
class Released:
    """One shipped revision of a probe script: its fixture, its commit, the constant that holds it now."""

    fixture: str  # file name under tests/data/probes/
    commit: str  # the commit whose exec_probe.py holds this text (the first one that does)
    literal: str  # the name of the string constant in that commit's file
    constant: str  # the name of today's constant with the same text
    header: str  # the first line the script prints


RELEASED: tuple[Released, ...] = (
    # v1 as it was sent: 7670401 up to f523785, the constant PROBE_SCRIPT, its uverbs loop one line
    Released("v1.sh", "76704013d5caa3e2c71828a3969ad5cf86518545", "PROBE_SCRIPT", "PROBE_SCRIPT_V1", "v1"),
    # v1 as 38b5281 kept it for reading (a backslash-newline v1 never sent); committed on main, so
    # bundles written from it (the old-capture Pods of testing/pod_devices_cases.py) read too
    Released(
        "v1-kept.sh",
        "38b52810fbc25dc7bf80634d22eda69f9e1ba10a",
        "PROBE_SCRIPT_V1",
        "PROBE_SCRIPT_V1_KEPT",
        "v1",
    ),
    Released("v2.sh", "38b52810fbc25dc7bf80634d22eda69f9e1ba10a", "PROBE_SCRIPT", "PROBE_SCRIPT_V2", "v2"),
    Released("v3.sh", "d68cf4457b96b21696dde74202b47bcab9ba6a19", "PROBE_SCRIPT", "PROBE_SCRIPT", "v3"),
)


def string_constant(source: str, name: str) -> str:
    """The value of the module-level string constant `name` in Python `source`, as Python evaluates it:
    a literal, or `OTHER.replace(literal, literal[, count])` of an earlier constant (ddf2d08 wrote the
    kept v1 copy so, for a few commits)."""
    known: dict[str, str] = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign):
            targets = [t.id for t in node.targets if isinstance(t, ast.Name)]
            expression: ast.expr | None = node.value
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            targets, expression = [node.target.id], node.value
        else:
            continue
        value = _evaluated(expression, known) if expression is not None else None
        for target in targets:
            if isinstance(value, str):
                known[target] = value
        if name in targets and isinstance(value, str):
            return value
    raise LookupError(f"no string constant {name} in the file")


def _evaluated(expression: ast.expr, known: dict[str, str]) -> object:
    """A literal, or a `.replace` of a known string constant with literal arguments; else None."""
    call = expression
    if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "replace":
        base = call.func.value
        if isinstance(base, ast.Name) and base.id in known and not call.keywords:
            arguments = [ast.literal_eval(a) for a in call.args]
            return known[base.id].replace(*arguments)
        return None
    try:
        return ast.literal_eval(expression)
    except ValueError:
        return None


def probe_scripts(source: str) -> dict[str, str]:
    """Every module-level `PROBE_SCRIPT*` string constant of Python `source`, by name."""
    found = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Name) and target.id.startswith("PROBE_SCRIPT"):
                    found[target.id] = string_constant(source, target.id)
    return found


def git_show(commit: str, path: str = PROBE_FILE) -> str | None:
    """`git show COMMIT:PATH`, or None when this checkout lacks that commit (a shallow clone)."""
    try:
        done = subprocess.run(
            ["git", "-C", str(REPO), "show", f"{commit}:{path}"],
            capture_output=True,
            text=True,
            check=False,
            timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None


def from_history(released: Released) -> str | None:
    """The released text as the history holds it; None without that commit."""
    source = git_show(released.commit)
    return None if source is None else string_constant(source, released.literal)


def fixture_text(released: Released) -> str:
    """The checked-in fixture, byte for byte (newline translation off)."""
    return (FIXTURES / released.fixture).read_bytes().decode("utf-8")


def main(argv: list[str] | None = None) -> int:
    writing = write_wanted(argv, __doc__)
    status = 0
    for released in RELEASED:
        text = from_history(released)
        if text is None:
            missing = f"{released.fixture}: commit {released.commit[:10]} is not in this checkout"
            print(missing, file=sys.stderr)
            status = 1
            continue
        path = FIXTURES / released.fixture
        if writing:
            FIXTURES.mkdir(parents=True, exist_ok=True)
            path.write_bytes(text.encode("utf-8"))
        elif not path.exists() or fixture_text(released) != text:
            print(f"{released.fixture}: differs from {released.commit[:10]}:{PROBE_FILE}", file=sys.stderr)
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
