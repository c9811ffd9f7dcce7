"""A fix as the terminal shows it: numbered blocks, each headed by where it runs and what it changes.

Why: the operator selects a block and pastes it. Each step is its own block (a blank line apart), so
a preview is read before the change is pasted; the heading is a `# ` line, so pasting it is
harmless; alternatives come after a heading of their own, each a path that is pasted instead of the
recommended one. Commands are never wrapped or cut: they paste whole (a long change is one `&&`
chain continued with trailing backslashes).
"""

from __future__ import annotations

from typing import Any

from kubectl_rbln.catalog import alternative, sentence


def fix_text_lines(fix: dict[str, Any], lang: str) -> list[str]:
    """The `-o json` fix (Fix.to_dict) as lines: the recommended path, then the alternatives."""
    lines = _path_lines(fix.get("notes") or [], fix.get("steps") or [], lang)
    alternatives = fix.get("alternatives") or []
    if alternatives:
        lines += ["", sentence("fix-alternatives", lang)]
    for path in alternatives:
        lines += ["", alternative(path.get("label") or "", lang)]
        lines += _path_lines(path.get("notes") or [], path.get("steps") or [], lang)
    return lines


def _path_lines(notes: list[str], steps: list[dict[str, Any]], lang: str) -> list[str]:
    lines = [f"# {note}" for note in notes]
    for number, step in enumerate(steps, 1):
        if lines:
            lines.append("")
        lines.append(step_heading(step, number, lang))
        lines += [f"# {note}" for note in step.get("notes") or []]
        for command in step.get("commands") or []:
            lines += command.split("\n")
    return lines


def step_heading(step: dict[str, Any], number: int, lang: str) -> str:
    """`# 2. change, on node npu-node-01 (through ssh): restarts containerd`."""
    if step.get("runsOn") == "node":
        node = step.get("node")
        where = sentence("fix-where-node", lang, node=node) if node else sentence("fix-where-no-node", lang)
    else:
        where = sentence("fix-where-workstation", lang)
    effects = ", ".join(step.get("effects") or [])
    kind = step.get("kind", "check")
    if kind == "change" and not effects:
        kind = "change-plain"
    if kind == "write" and not effects:
        kind = "check"
    return sentence(f"fix-step-{kind}", lang, number=number, where=where, effects=effects)
