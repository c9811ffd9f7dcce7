"""What a recorded change touches: (action, kind, namespace, name) for each object it changes.

Why: "one path" means no object is changed twice, whichever spelling changes it (`rct/x` or
`resourceclaimtemplate x`, a file's objects, a node's unit through ssh), and a Pod is not re-created
twice (deleted, and restarted through its owner). Read from the recorded words here, not with the
plugin's own reader (kubectl_rbln/remedy/commands.py), so a mistake there cannot hide one here.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import yaml

from testing.paste.shell import Record

ALIASES = {
    "po": "pod",
    "deploy": "deployment",
    "ds": "daemonset",
    "sts": "statefulset",
    "rs": "replicaset",
    "no": "node",
    "ns": "namespace",
    "rct": "resourceclaimtemplate",
    "rc": "resourceclaim",
}
CLUSTER_SCOPED = frozenset(
    {
        "node",
        "namespace",
        "deviceclass",
        "devicetaintrule",
        "resourceslice",
        "rblnclusterpolicy",
        "clusterrole",
    }
)
# kubectl flags (of the change verbs) that take the next word as their value.
VALUE_FLAGS = frozenset(
    {
        "-n",
        "--namespace",
        "-l",
        "--selector",
        "-f",
        "--filename",
        "-o",
        "--output",
        "-p",
        "--patch",
        "--type",
        "--context",
        "--kubeconfig",
        "--field-selector",
        "--replicas",
        "--grace-period",
        "--timeout",
        "-c",
        "--container",
    }
)
ACTIONS = {
    "delete": "delete",
    "apply": "write",
    "create": "write",
    "replace": "write",
    "patch": "edit",
    "edit": "edit",
    "set": "edit",
    "label": "label",
    "annotate": "annotate",
    "scale": "scale",
    "taint": "taint",
    "cordon": "cordon",
    "uncordon": "uncordon",
    "drain": "drain",
}
WORKLOADS = frozenset({"deployment", "statefulset", "daemonset", "replicaset", "job"})
NODE_CHANGES = {  # node programs (after sudo) and the subcommands that change the node
    "systemctl": frozenset({"restart", "reload", "try-restart", "stop", "start", "daemon-reload", "enable"}),
    "crictl": frozenset({"rmp", "rm", "stopp", "stop"}),
}


@dataclass(frozen=True, slots=True)
class Key:
    action: str
    kind: str
    namespace: str
    name: str

    def __str__(self) -> str:
        where = f"{self.namespace}/" if self.namespace else ""
        return f"{self.action} {self.kind} {where}{self.name}"


def kind_of(word: str) -> str:
    """`resourceclaimtemplates.resource.k8s.io`, `rct`, `Deployment` -> `resourceclaimtemplate`, ..."""
    kind = word.lower().split(".", 1)[0]
    kind = ALIASES.get(kind, kind)
    if kind.endswith("sses"):
        return kind[:-2]
    if kind.endswith("s") and not kind.endswith("ss"):
        return kind[:-1]
    return kind


def positional(words: list[str]) -> list[str]:
    out: list[str] = []
    skip = False
    for word in words:
        if skip:
            skip = False
        elif word == "--":
            break
        elif word.startswith("-"):
            skip = word in VALUE_FLAGS
        else:
            out.append(word)
    return out


def option(words: list[str], *names: str) -> str:
    for index, word in enumerate(words):
        for name in names:
            if word == name and index + 1 < len(words):
                return words[index + 1]
            if word.startswith(name + "="):
                return word.split("=", 1)[1]
    return ""


def _scoped(kind: str, namespace: str) -> str:
    return "" if kind in CLUSTER_SCOPED else namespace


def targets(words: list[str], namespace: str) -> list[tuple[str, str, str]]:
    """(kind, namespace, name) of `kind name...` or `kind/name ...` (a selector: its text as the name)."""
    if not words:
        return []
    if "/" in words[0]:
        out = []
        for word in words:
            if "/" not in word:
                break
            kind, name = word.split("/", 1)
            out.append((kind_of(kind), _scoped(kind_of(kind), namespace), name))
        return out
    kind = kind_of(words[0])
    names = [w for w in words[1:] if "=" not in w and ":" not in w] or ["(all)"]
    return [(kind, _scoped(kind, namespace), name) for name in names]


def documents(text: str | None) -> list[dict[str, Any]]:
    """The objects of a manifest (a List's items too); [] when it is not YAML."""
    try:
        docs = list(yaml.safe_load_all(text or ""))
    except yaml.YAMLError:
        return []
    out: list[dict[str, Any]] = []
    for doc in docs:
        if isinstance(doc, dict) and doc.get("kind", "").endswith("List"):
            out += [i for i in doc.get("items") or [] if isinstance(i, dict)]
        elif isinstance(doc, dict):
            out.append(doc)
    return out


def kubectl_keys(record: Record) -> list[Key]:
    """The objects one recorded kubectl change touches."""
    words = list(record.argv)
    namespace = option(words, "-n", "--namespace") or "default"
    rest = positional(words)
    verb = rest[0] if rest else ""
    if verb == "rollout":
        if rest[1:2] != ["restart"]:
            return []
        return [Key("restart", k, ns, n) for k, ns, n in targets(rest[2:], namespace)]
    action = ACTIONS.get(verb, verb)
    if option(words, "-f", "--filename") or verb in ("apply", "create", "replace"):
        contents = [*record.files.values(), record.stdin] if record.files or record.stdin else []
        keys = []
        for doc in (d for text in contents for d in documents(text)):
            kind = kind_of(str(doc.get("kind", "")))
            meta = doc.get("metadata") or {}
            ns = _scoped(kind, meta.get("namespace") or namespace)
            keys.append(Key(action, kind, ns, str(meta.get("name", ""))))
        return keys or [Key(action, "file", "", path) for path in record.files]
    if verb in ("cordon", "uncordon", "drain"):
        return [Key(action, "node", "", name) for name in rest[1:2]]
    if verb == "taint":
        return [Key(action, k, ns, n) for k, ns, n in targets(rest[1:3], namespace)]
    selector = option(words, "-l", "--selector")
    if selector:
        return [Key(action, k, ns, f"-l {selector}") for k, ns, _ in targets(rest[1:2], namespace)]
    return [Key(action, k, ns, n) for k, ns, n in targets(rest[1:], namespace)]


def remote_keys(record: Record) -> list[Key]:
    """The node changes of a script sent through ssh: each unit restarted, module loaded, file written."""
    keys = []
    for words in simple_commands(record.remote):
        if words and words[0] == "sudo":
            words = words[1:]
        if not words:
            continue
        program, rest = words[0], [w for w in words[1:] if not w.startswith("-")]
        sub = rest[0] if rest else ""
        if program in NODE_CHANGES and sub in NODE_CHANGES[program]:
            for unit in rest[1:] or [""]:
                keys.append(Key(f"{program} {sub}", "node", record.host, unit))
        elif program == "modprobe":
            keys.append(Key("modprobe", "node", record.host, sub))
        elif program == "tee":
            keys.append(Key("write", "node", record.host, sub))
    return keys


def simple_commands(script: str) -> Iterator[list[str]]:
    """The simple commands of a shell line (split at `&&`, `||`, `;`, `|`), redirections dropped."""
    lexer = shlex.shlex(script.replace("\\\n", " "), posix=True, punctuation_chars=";&|<>")
    lexer.whitespace_split = True
    try:
        tokens = list(lexer)
    except ValueError:
        tokens = script.split()
    current: list[str] = []
    redirect = False
    for token in tokens:
        if token in ("&&", "||", ";", "|", "&", ";;", "\n"):
            if current:
                yield current
            current = []
        elif set(token) <= set("<>&"):
            redirect = True
            if current and current[-1].isdigit():  # `2>`: the 2 is the descriptor, not a word
                current.pop()
        elif redirect:
            redirect = False
        else:
            current.append(token)
    if current:
        yield current


def owned_pods(objects: list[dict[str, Any]]) -> dict[tuple[str, str, str], list[str]]:
    """(kind, namespace, owner) -> the Pods it re-creates, through ReplicaSets for a Deployment."""
    owner_of: dict[tuple[str, str], tuple[str, str]] = {}  # (namespace, name) of a ReplicaSet/Pod -> owner
    for obj in objects:
        kind = kind_of(str(obj.get("kind", "")))
        meta = obj.get("metadata") or {}
        for ref in meta.get("ownerReferences") or []:
            if ref.get("controller", True):
                owner_of[(kind + "/" + str(meta.get("namespace", "")), str(meta.get("name", "")))] = (
                    kind_of(str(ref.get("kind", ""))),
                    str(ref.get("name", "")),
                )
    out: dict[tuple[str, str, str], list[str]] = {}
    for (where, name), (kind, owner) in owner_of.items():
        pod_kind, namespace = where.split("/", 1)
        if pod_kind != "pod":
            continue
        out.setdefault((kind, namespace, owner), []).append(name)
        if kind == "replicaset":
            grand = owner_of.get(("replicaset/" + namespace, owner))
            if grand:
                out.setdefault((grand[0], namespace, grand[1]), []).append(name)
    return out


def recreated_pods(key: Key, owners: dict[tuple[str, str, str], list[str]]) -> list[Key]:
    """The Pods a change re-creates: a restarted or deleted workload's Pods, a deleted owned Pod."""
    if key.action == "restart" or (key.action == "delete" and key.kind in WORKLOADS):
        return [
            Key("re-create", "pod", key.namespace, p)
            for p in owners.get((key.kind, key.namespace, key.name), [])
        ]
    if key.action == "delete" and key.kind == "pod":
        owned = any(key.name in pods for (_, ns, _), pods in owners.items() if ns == key.namespace)
        return [Key("re-create", "pod", key.namespace, key.name)] if owned else []
    return []
