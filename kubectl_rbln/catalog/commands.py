"""What one fix command does, read from its words: where it runs, whether it changes anything, and what.

Why: a fix is pasted by an on-call engineer. Each step must say whether it only reads, writes a local
file, previews or changes the cluster or a node, and a change must say what it deletes, restarts or
writes. The catalog writes commands, not their meaning: reading the meaning from the command itself
keeps the two from drifting apart, and a test can hold every catalog command to it.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass

from kubectl_rbln.catalog import Phrase

CHECK, WRITE, PREVIEW, CHANGE = "check", "write", "preview", "change"
KINDS = (CHECK, WRITE, PREVIEW, CHANGE)
WORKSTATION, NODE = "workstation", "node"

# Programs that only exist, or only mean something, on the node: never run on the workstation.
NODE_PROGRAMS = frozenset(
    {"sudo", "ls", "lspci", "modprobe", "crictl", "systemctl", "ulimit", "tee", "mkdir"}
)
# kubectl verbs that change nothing in the cluster.
KUBECTL_READS = frozenset(
    {
        "get",
        "describe",
        "logs",
        "diff",
        "explain",
        "version",
        "api-resources",
        "api-versions",
        "auth",
        "top",
        "events",
        "exec",
        "cluster-info",
        "wait",
    }
)
# Node-side programs (after sudo) and subcommands that only read.
NODE_READS = {
    "ls": None,
    "lspci": None,
    "cat": None,
    "ulimit": None,
    "crictl": frozenset({"pods", "ps", "inspect", "inspectp", "info", "images", "version"}),
    "systemctl": frozenset({"show", "status", "cat", "is-active"}),
}
_SEPARATORS = re.compile(r"\s*(?:&&|\|\||;|\|)\s*")
_SEPARATOR_CHARS = frozenset("&|;\n")
_HEREDOC = re.compile(r"(?<!<)<<-?(?!<)\s*(['\"]?)(\w+)\1")


@dataclass(frozen=True, slots=True)
class Reading:
    """A command as a fix step sees it: its kind, where it runs, and what it changes (for a label)."""

    kind: str
    runs_on: str
    effects: tuple[Phrase, ...] = ()


def words(command: str) -> list[str]:
    """The command's words as the shell splits them (a broken quote: split on spaces, never raise)."""
    try:
        return shlex.split(command, comments=False, posix=True)
    except ValueError:
        return command.split()


def pieces(command: str) -> list[list[str]]:
    """The simple commands of a pipeline or a `&&` chain, each as its words (redirections kept)."""
    out: list[list[str]] = []
    current: list[str] = []
    for word in _tokens(command):
        if word and set(word) <= _SEPARATOR_CHARS:  # `&&`, `||`, `;`, `|`, a newline (`;\n`, ...)
            if current:
                out.append(current)
            current = []
        else:
            current.append(word)
    if current:
        out.append(current)
    return out


def _tokens(command: str) -> list[str]:
    command = command.replace("\\\n", " ")  # a continued line is one line to the shell
    # a newline ends a command as `;` does (a multi-line fix is several commands), and a heredoc's
    # body is data, not commands
    lexer = shlex.shlex(_without_heredoc_bodies(command), posix=True, punctuation_chars="&|;\n")
    lexer.whitespace = " \t\r"
    lexer.whitespace_split = True
    lexer.commenters = ""
    try:
        return list(lexer)
    except ValueError:
        return command.split()


def _without_heredoc_bodies(command: str) -> str:
    lines: list[str] = []
    end = None
    for line in command.split("\n"):
        if end is not None:
            end = None if line.strip() == end else end
            continue
        lines.append(line)
        opened = _HEREDOC.search(line)
        end = opened.group(2) if opened else None
    return "\n".join(lines)


def read_command(command: str) -> Reading:
    """The kind, place and effects of one command line (a pipeline or a chain: its strongest part)."""
    parts = pieces(command)
    runs_on = NODE if any(part and part[0] in NODE_PROGRAMS for part in parts) else WORKSTATION
    effects: list[Phrase] = []
    kind = CHECK
    for part in parts:
        part_kind, part_effects = _read_part(part)
        effects += part_effects
        kind = _stronger(kind, part_kind)
    if kind == CHECK and _redirects_to_file(command):
        kind = WRITE
        effects.append(_effect("effect-writes-file", file=_redirect_target(command)))
    return Reading(kind, runs_on, tuple(effects))


def _code(text: str) -> str:
    """A name or a command inside a sentence, as code: `deletes `resourceclaimtemplate npu-rdma``."""
    return f"`{text}`" if text else ""


def _effect(key: str, **values: str | list[str]) -> Phrase:
    """An effect's sentence, each name in it as code (a list: each item, joined by commas)."""
    return Phrase(
        key,
        {
            name: ", ".join(_code(v) for v in value) if isinstance(value, list) else _code(value)
            for name, value in values.items()
        },
    )


def _stronger(a: str, b: str) -> str:
    return a if KINDS.index(a) >= KINDS.index(b) else b


def _redirects_to_file(command: str) -> bool:
    return _redirect_target(command) not in ("", "/dev/null")


def _redirect_target(command: str) -> str:
    tokens = _tokens(command)
    for index, token in enumerate(tokens):
        if token in (">", ">>") and index + 1 < len(tokens):
            return tokens[index + 1]
        if token.startswith(">") and len(token) > 1 and not token.startswith(">&"):
            return token.lstrip(">")
        if token.endswith(">") and token[:-1].isdigit() and index + 1 < len(tokens):
            return "" if tokens[index + 1] == "/dev/null" else tokens[index + 1]
    return ""


def _read_part(part: list[str]) -> tuple[str, list[Phrase]]:
    words = [w for w in part if not w.startswith((">", "2>", "<"))]
    if not words:
        return CHECK, []
    program = words[0]
    if program == "sudo":
        return _read_node(words[1:])
    if program == "kubectl":
        return _read_kubectl(words[1:])
    if program in NODE_PROGRAMS or program in NODE_READS:
        return _read_node(words)
    if program == "xargs":
        return _read_part(_after_options(words[1:]))
    if program == "diff":
        return PREVIEW, []
    return CHECK, []  # jq, grep, diff, head, cat, printf, test: they read or format


def _after_options(words: list[str]) -> list[str]:
    for index, word in enumerate(words):
        if not word.startswith("-"):
            return words[index:]
    return []


def _read_node(words: list[str]) -> tuple[str, list[Phrase]]:
    if not words:
        return CHECK, []
    program, rest = words[0], words[1:]
    subcommand = next((w for w in rest if not w.startswith("-")), "")
    if program in NODE_READS:
        allowed = NODE_READS[program]
        if allowed is None or subcommand in allowed:
            return CHECK, []
    if program == "rdma" and "set" not in rest:
        return CHECK, []  # iproute2's rdma: `rdma system`, `rdma link show` read; `rdma ... set` changes
    if program == "modprobe":
        return CHANGE, [_effect("effect-loads-module", module=subcommand)]
    if program == "tee":
        return CHANGE, [_effect("effect-writes-file", file=subcommand)]
    if program == "mkdir":
        return CHANGE, []  # the file written into it says what changes
    if program == "crictl" and subcommand in ("rmp", "rm", "stopp", "stop"):
        return CHANGE, [_effect("effect-removes-sandboxes")]
    if program == "systemctl" and subcommand in ("restart", "reload", "try-restart"):
        units = [w for w in rest if not w.startswith("-") and w != subcommand]
        return CHANGE, [_effect("effect-restarts", what=units)]
    if program == "systemctl" and subcommand == "daemon-reload":
        return CHANGE, []
    return CHANGE, [_effect("effect-runs", what=" ".join(words))]


def _option_value(words: list[str], *names: str) -> str:
    for index, word in enumerate(words):
        for name in names:
            if word == name and index + 1 < len(words):
                return words[index + 1]
            if word.startswith(name + "="):
                return word.split("=", 1)[1]
    return ""


def _positional(words: list[str]) -> list[str]:
    """kubectl's words that are not flags or flag values (`-n x`, `-o yaml`, `--field-selector=...`)."""
    out: list[str] = []
    skip = False
    takes_value = {
        "-n",
        "--namespace",
        "-o",
        "--output",
        "-l",
        "--selector",
        "-f",
        "--filename",
        "-c",
        "--container",
        "--field-selector",
        "--tail",
        "--context",
        "--dry-run",
        "--for",
        "-p",
        "--patch",
        "--type",
        "--patch-file",
        "--timeout",
        "--image",
        "--limits",
        "--requests",
    }
    for word in words:
        if skip:
            skip = False
            continue
        if word == "--":
            break
        if word.startswith("-"):
            skip = word in takes_value
            continue
        out.append(word)
    return out


def _read_kubectl(words: list[str]) -> tuple[str, list[Phrase]]:
    positional = _positional(words)
    verb = positional[0] if positional else ""
    if verb == "rbln":
        return CHECK, []  # the plugin itself is read-only
    if any(w == "--dry-run" or w.startswith("--dry-run=") for w in words):
        return PREVIEW, []
    if verb in KUBECTL_READS:
        return CHECK, []
    target = (
        " ".join(positional[1:3])
        if len(positional) > 2 and "/" not in positional[1]
        else " ".join(positional[1:])
    )
    if verb == "rollout":
        action = positional[1] if len(positional) > 1 else ""
        if action in ("status", "history"):
            return CHECK, []
        return CHANGE, [_effect("effect-restarts", what=positional[2:])]
    if verb == "delete":
        kind, names = (
            (positional[1], positional[2:])
            if len(positional) > 2 and "/" not in positional[1]
            else ("", positional[1:])
        )
        objects = [f"{kind} {name}".strip() for name in names] or [_option_value(words, "-l")]
        return CHANGE, [_effect("effect-deletes", what=objects)]
    if verb in ("apply", "create", "replace"):
        return CHANGE, [_effect(f"effect-{verb}s", file=_option_value(words, "-f", "--filename"))]
    if verb in ("label", "annotate", "taint"):
        return CHANGE, [_effect(f"effect-{verb}s", what=" ".join(positional[1:3]))]
    if verb in ("cordon", "uncordon", "drain"):
        return CHANGE, [_effect(f"effect-{verb}s", what=" ".join(positional[1:2]))]
    if verb in ("patch", "scale", "set", "edit"):
        return CHANGE, [_effect("effect-changes", what=target)]
    return CHANGE, [_effect("effect-runs", what="kubectl " + " ".join(words))]
