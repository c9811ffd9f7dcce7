"""A fix as data: one recommended path of numbered steps, then labelled alternatives, each step placed.

Why: an on-call engineer pastes what we print. A path is a list of steps; a step is a block of
commands of one kind (check, write a local file, preview, change) that run in one place (the
workstation, or one node, reached through ssh). The text view and `-o json` both come from this
structure, so a runbook reads the same steps the terminal shows, and a test can hold every fix to
"one path, nothing to fill in, every node command on its node".

The catalog still writes a fix as lines (commands, `# ` notes, alternative headings); `build_fix`
reads them into steps: consecutive commands of one kind and place form a step, notes open the step
they precede, and node-side commands are run on each node the finding names.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from kubectl_rbln.catalog import Phrase, alternative_prefix, say, sentence
from kubectl_rbln.catalog.commands import CHANGE, CHECK, KINDS, NODE, WORKSTATION, read_command
from kubectl_rbln.catalog.fill import pasteable

NODE_ACCESS = "ssh"


@dataclass(frozen=True, slots=True)
class Step:
    """One block to paste: commands of one kind that run in one place, and what they change."""

    kind: str  # check | write | preview | change
    runs_on: str  # workstation | node
    commands: tuple[str, ...]
    node: str | None = None
    notes: tuple[str, ...] = ()  # explanations in the reader's language, printed as `# ` lines
    effects: tuple[str, ...] = ()  # what a change does, in the reader's language
    script: tuple[str, ...] = ()  # a node step: the commands run on the node, before ssh wraps them

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "runsOn": self.runs_on}
        if self.node is not None:
            out |= {"node": self.node, "via": NODE_ACCESS, "script": list(self.script)}
        out |= {"commands": list(self.commands), "notes": list(self.notes), "effects": list(self.effects)}
        return out


@dataclass(frozen=True, slots=True)
class FixPath:
    """The recommended path (no label) or one alternative (its label says when it applies)."""

    steps: tuple[Step, ...]
    label: str | None = None
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"label": self.label} if self.label is not None else {}
        return out | {"notes": list(self.notes), "steps": [s.to_dict() for s in self.steps]}


@dataclass(frozen=True, slots=True)
class Fix:
    recommended: FixPath
    alternatives: tuple[FixPath, ...] = field(default_factory=tuple)

    def to_dict(self) -> dict[str, Any]:
        return {
            "steps": [s.to_dict() for s in self.recommended.steps],
            "notes": list(self.recommended.notes),
            "alternatives": [a.to_dict() for a in self.alternatives],
        }

    @property
    def empty(self) -> bool:
        return not self.recommended.steps and not self.recommended.notes and not self.alternatives


def is_note(line: str) -> bool:
    """An explanation, not a command: a `# ` line, or prose the catalog wrote without one."""
    stripped = line.strip()
    return not stripped or stripped.startswith("#") or _is_prose(stripped)


def _is_prose(line: str) -> bool:
    return pasteable(line).startswith("# ") and not line.startswith("#")


def note_text(line: str) -> str:
    return line.strip().removeprefix("#").strip()


def build_fix(lines: Sequence[str], lang: str, nodes: Sequence[str] = ()) -> Fix:
    """Read a catalog fix (its rendered lines) into a recommended path and labelled alternatives."""
    prefix = alternative_prefix(lang)
    groups: list[tuple[str | None, list[str]]] = [(None, [])]
    for line in lines:
        if line.startswith(prefix):
            groups.append((line[len(prefix) :].rstrip().removesuffix(":").strip(), []))
        else:
            groups[-1][1].append(line)
    paths = [_path(body, label, lang, nodes) for label, body in groups]
    alternatives = tuple(p for p in paths[1:] if p.steps or p.notes)
    return Fix(paths[0], alternatives)


def _path(lines: list[str], label: str | None, lang: str, nodes: Sequence[str]) -> FixPath:
    runs: list[tuple[list[str], list[str]]] = []  # (notes before, commands of one kind and place)
    notes: list[str] = []
    last_key: tuple[str, str] | None = None
    for line in lines:
        if is_note(line):
            if note_text(line):
                notes.append(note_text(line))
            continue
        reading = read_command(line)
        key = (reading.kind, reading.runs_on)
        if runs and key == last_key and not notes:
            runs[-1][1].append(line)
        else:
            runs.append((notes, [line]))
            notes = []
        last_key = key
    steps: list[Step] = []
    lead: tuple[str, ...] = ()
    if runs and not runs[0][1]:
        lead = tuple(runs.pop(0)[0])
    for before, commands in runs:
        steps += _steps(before, commands, lang, nodes)
    if notes and steps:  # notes after the last command belong to it
        last = steps[-1]
        steps[-1] = Step(
            last.kind,
            last.runs_on,
            last.commands,
            last.node,
            last.notes + tuple(notes),
            last.effects,
            last.script,
        )
    elif notes:
        lead += tuple(notes)
    return FixPath(tuple(steps), label, lead)


def _steps(notes: list[str], commands: list[str], lang: str, nodes: Sequence[str]) -> list[Step]:
    readings = [read_command(c) for c in commands]
    kind = max((r.kind for r in readings), key=KINDS.index)
    effects = _unique(say(e, lang) for r in readings for e in r.effects if _said(e))
    runs_on = readings[0].runs_on
    if runs_on == WORKSTATION:
        return [Step(kind, WORKSTATION, tuple(_chained(commands, kind)), None, tuple(notes), effects)]
    script = tuple(commands)
    alone = (sentence("fix-note-ssh-alone", lang),)  # ssh -t reads the rest of a paste as its input
    return [
        Step(kind, NODE, (ssh_command(node, script, kind),), node, (*notes, *alone), effects, script)
        for node in nodes
    ] or [Step(kind, NODE, (), None, tuple(notes), effects, script)]  # no node known: nothing to run


def _said(effect: Phrase) -> bool:
    return all(str(v).strip() for v in effect.values.values())


def _unique(items: Any) -> tuple[str, ...]:
    return tuple(dict.fromkeys(items))


def _chained(commands: list[str], kind: str) -> list[str]:
    """A change is one `&&` chain: a failed step stops the rest (a delete never runs without its create)."""
    if kind != CHANGE or len(commands) < 2:
        return commands
    return [" && \\\n  ".join(commands)]


def ssh_command(node: str, script: Sequence[str], kind: str) -> str:
    """`ssh -t NODE 'script'`: checks all run (`;`), a change stops at its first failure (`&&`)."""
    joined = ("; " if kind == CHECK else " && ").join(script)
    return f"ssh -t {shlex.quote(node)} {shlex.quote(joined)}"
