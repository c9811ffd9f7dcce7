"""What must hold of a pasted fix, read from what ran; each check names what it found, not what it wanted.

Why: an on-call engineer pastes the block and trusts it. It must parse and find its programs, never
run a placeholder, run node commands only on a node of this cluster (through ssh), follow one path
(no object changed twice; no other path's command), never re-apply a fetched object nobody edited,
never wait on the operator mid-paste, and an RCT it creates must let the Pod's devices fit.
"""

from __future__ import annotations

import hashlib
import re
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from kubectl_rbln.diagnose.features import allocator_features, choose_features
from kubectl_rbln.dra.model import Snapshot
from kubectl_rbln.dra.normalize_claims import normalize_template
from kubectl_rbln.remedy.suggest import probe_pods, verify
from testing.paste.blocks import Block, FixText
from testing.paste.changes import (
    Key,
    documents,
    kubectl_keys,
    recreated_pods,
    remote_keys,
    simple_commands,
)
from testing.paste.shell import Paste, Record

# The checks, by name, with what each one asserts (the test's message names it).
CHECKS = {
    "shell": "bash reports no error (syntax, command not found, an unclosed heredoc) and every file "
    "a change is given exists",
    "placeholder": "no placeholder runs (<...> or an unfilled {name} in a recorded argument or file)",
    "node": "node commands run only through ssh, on a node of this cluster",
    "one-path": "one path: no object changed twice, and the recommended path runs no alternative's command",
    "unedited": "no object fetched with `kubectl get` is given back to apply/create/replace unedited",
    "interactive": "nothing waits for the operator mid-paste (an editor, a login shell)",
    "fits": "an RCT the recommended path creates lets the Pod's devices fit on some node",
}
PLACEHOLDER = re.compile(r"<[^<>\s]+>|(?<!\$)\{[A-Za-z_][A-Za-z0-9_]*\}")
QUOTED_LINE = re.compile(r"^bash: (?:-c: )?line \d+: `")
HEREDOC = re.compile(r"<<-?\s*['\"]?(\w+)['\"]?")


@dataclass(frozen=True)
class Problem:
    check: str
    block: str  # "the recommended path" or "alternative '...'"
    detail: str


@dataclass
class Cluster:
    """What the checks know of the scenario: its nodes, its Pods' owners, the Pod a fix is for."""

    nodes: frozenset[str]
    owners: dict[tuple[str, str, str], list[str]]
    snapshot: Snapshot
    pod: tuple[str, str]  # (namespace, name)
    fits: dict[str, str] = field(default_factory=dict)  # RCT content -> "" (fits) or why not: cached


def check_fix(fix: FixText, pastes: list[tuple[Block, Paste]], cluster: Cluster) -> list[Problem]:
    """Every problem of one fix, its recommended path first, then each alternative."""
    out: list[Problem] = []
    each: list[tuple[str, Callable[[Paste], list[str]]]] = [
        ("shell", shell_problems),
        ("placeholder", placeholder_problems),
        ("node", lambda p: node_problems(p, cluster.nodes)),
        ("one-path", lambda p: twice_problems(p, cluster.owners)),
        ("unedited", unedited_problems),
        ("interactive", interactive_problems),
    ]
    for block, paste in pastes:
        for check, find in each:
            out += [Problem(check, block.name, detail) for detail in find(paste)]
    block, recommended = pastes[0]
    out += [Problem("one-path", block.name, d) for d in foreign_problems(recommended, fix, len(pastes) - 1)]
    out += [Problem("fits", block.name, d) for d in fit_problems(recommended, cluster)]
    return out


# ---------------------------------------------------------------- shell


def shell_problems(paste: Paste) -> list[str]:
    """bash's own complaints, a change given a missing file, a node script that does not parse."""
    out = bash_complaints(paste.stderr)
    for record in paste.records:
        for path, content in record.files.items():
            if content is None:
                out.append(f"{record.shown}: the file {path!r} does not exist")
        if record.program == "ssh" and record.remote:
            parsed = subprocess.run(
                ["bash", "-n", "-c", record.remote], capture_output=True, text=True, check=False
            )
            for line in bash_complaints(parsed.stderr):
                out.append(f"the script ssh sends to {record.host} does not parse: {line}")
    return out


def bash_complaints(stderr: str) -> list[str]:
    """bash's own lines (`bash: line N: ...`), a syntax error and the line it quotes joined as one."""
    out: list[str] = []
    for line in stderr.splitlines():
        if not line.startswith("bash: "):
            continue
        quoted = QUOTED_LINE.match(line)
        if out and quoted:
            out[-1] += " in: `" + line[quoted.end() :].strip()
        else:
            out.append(line)
    return out


# ---------------------------------------------------------------- placeholders


def placeholder_problems(paste: Paste) -> list[str]:
    out = []
    for record in paste.records:
        words = [*record.argv, *(c or "" for c in record.files.values()), record.stdin or ""]
        found = sorted({m for word in words for m in PLACEHOLDER.findall(word)})
        if found:
            out.append(f"{', '.join(found)} ran: {record.shown}")
    return out


# ---------------------------------------------------------------- node commands


def node_problems(paste: Paste, nodes: frozenset[str]) -> list[str]:
    out = []
    for record in paste.records:
        if record.action == "node-on-workstation":
            out.append(f"a node command ran on the workstation: {record.shown}")
        elif record.program == "ssh" and record.host not in nodes:
            known = ", ".join(sorted(nodes)) or "none"
            out.append(f"ssh to {record.host!r}, not a node of this cluster (nodes: {known}): {record.shown}")
    return out


# ---------------------------------------------------------------- one path


def change_keys(record: Record, owners: dict[tuple[str, str, str], list[str]]) -> list[Key]:
    """The objects a recorded change touches, and the Pods it re-creates."""
    if record.program == "ssh":
        return remote_keys(record)
    if record.program != "kubectl" or record.action != "change":
        return []
    keys = kubectl_keys(record)
    return keys + [pod for key in keys for pod in recreated_pods(key, owners)]


def twice_problems(paste: Paste, owners: dict[tuple[str, str, str], list[str]]) -> list[str]:
    seen: dict[Key, list[str]] = {}
    for record in paste.records:
        for key in dict.fromkeys(change_keys(record, owners)):
            seen.setdefault(key, []).append(record.shown)
    return [f"{key} twice: {' ; '.join(shown)}" for key, shown in seen.items() if len(shown) > 1]


def command_words(command: str) -> list[tuple[str, ...]]:
    """The simple commands of one fix command (a heredoc's body left out), each as its words."""
    lines: list[str] = []
    end = None
    for line in command.replace("\\\n", " ").split("\n"):
        if end is not None:
            end = None if line.strip() == end else end
            continue
        lines.append(line)
        opened = HEREDOC.search(line)
        end = opened.group(1) if opened else None
    return [tuple(words) for line in lines for words in simple_commands(line)]


def _path_words(path: dict[str, Any]) -> set[tuple[str, ...]]:
    return {
        w for step in path.get("steps") or [] for c in step.get("commands") or [] for w in command_words(c)
    }


def foreign_problems(paste: Paste, fix: FixText, printed_alternatives: int) -> list[str]:
    """The recommended block runs a command that only an alternative has (by the fix's JSON steps)."""
    alternatives = fix.fix.get("alternatives") or []
    out = []
    if printed_alternatives != len(alternatives):
        out.append(
            f"the printed fix has {printed_alternatives} alternative heading(s), its steps have "
            f"{len(alternatives)} alternative(s)"
        )
    own = _path_words({"steps": fix.fix.get("steps") or []})
    only: dict[tuple[str, ...], str] = {}
    for alternative in alternatives:
        for words in _path_words(alternative) - own:
            only.setdefault(words, alternative.get("label") or "")
    for record in paste.records:
        label = only.get((record.program, *record.argv))
        if label is not None:
            out.append(f"runs a command of alternative {label!r}: {record.shown}")
    return out


# ---------------------------------------------------------------- unedited


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def unedited_problems(paste: Paste) -> list[str]:
    fetched = {
        r.raw["out_sha"]: r.shown
        for r in paste.records
        if r.forwarded and r.verb == "get" and r.raw.get("out_sha") and r.raw.get("rc") == 0
    }
    out = []
    for record in paste.records:
        if record.action != "change" or record.verb not in ("apply", "create", "replace"):
            continue
        given = {**record.files, **({"-": record.stdin} if record.stdin is not None else {})}
        for path, content in given.items():
            if content is not None and _sha(content) in fetched:
                out.append(f"{record.shown}: {path!r} is what `{fetched[_sha(content)]}` printed, not edited")
    return out


# ---------------------------------------------------------------- interactive


def interactive_problems(paste: Paste) -> list[str]:
    out = []
    for record in paste.records:
        if record.program == "kubectl" and record.verb == "edit":
            out.append(f"{record.shown} opens an editor: the lines pasted after it are typed into it")
        if record.program == "ssh" and not record.remote:
            out.append(f"{record.shown} opens a shell on {record.host}: the rest of the paste runs there")
    return out


# ---------------------------------------------------------------- fits


def fit_problems(paste: Paste, cluster: Cluster) -> list[str]:
    """Each RCT the recommended path creates or applies, simulated as `why --with-rct` would, with
    the gates the path turns on first (its `suggest-rct --feature-gates`: feature-gate-disabled)."""
    out = []
    gates = ",".join(
        argv[i + 1]
        for record in paste.records
        for argv in [record.argv]
        for i, word in enumerate(argv[:-1])
        if word == "--feature-gates" and "suggest-rct" in argv
    )
    for record in paste.records:
        if record.action != "change" or record.verb not in ("apply", "create", "replace"):
            continue
        given = {**record.files, **({"-": record.stdin} if record.stdin is not None else {})}
        for path, content in given.items():
            for doc in documents(content):
                if doc.get("kind") != "ResourceClaimTemplate":
                    continue
                key = _sha(repr(sorted(doc.items(), key=str)) + gates)
                if key not in cluster.fits:
                    cluster.fits[key] = why_not_fitting(doc, cluster, gates or None)
                if cluster.fits[key]:
                    out.append(f"{record.shown}: RCT {path!r}: {cluster.fits[key]}")
    return out


def why_not_fitting(doc: dict[str, Any], cluster: Cluster, gates: str | None = None) -> str:
    """ "" when the Pods that will use this RCT get their devices on some node, else what blocks them.

    Those Pods are chosen as `suggest-rct` chooses them (remedy/suggest.py `probe_pods`): the Pending
    Pods that use it, else a new replica of a Running one, else a Pod that only uses it (an RCT made
    for Pods whose template is patched to it). The simulation is `why --with-rct`'s, with the gates the
    path turns on."""
    try:
        template = normalize_template(doc)
    except Exception as exc:  # noqa: BLE001 - any failure to read it is the finding
        return f"cannot be read as an RCT: {exc}"
    namespace = (doc.get("metadata") or {}).get("namespace") or cluster.pod[0]
    choice = choose_features(cluster.snapshot, None, gates)
    pods = probe_pods(cluster.snapshot, namespace, template.name)
    fits_on, blockers, _ = verify(
        cluster.snapshot, template, [p for p, _ in pods], allocator_features(choice)
    )
    if fits_on:
        return ""
    said = [b if isinstance(b, str) else getattr(b, "slug", type(b).__name__) for b in blockers][:3]
    return f"{', '.join(name for _, name in pods)} fit on no node with it ({', '.join(said)})"
