"""The bundle as an indexed, read-only object store: list, get, logs and exec captures.

Built once when the server starts and never mutated, so request threads read it
without locks. Each object is JSON-encoded once up front: a list reply is then
a join of ready bytes, which keeps an 18 MB bundle fast to serve.

Versions are not converted. An object is listed under every served version of
its group exactly as stored, keeping its own `apiVersion`: a bundle mixing
v1 and v1beta1 ResourceSlices shows all of them to `kubectl get resourceslices`
(which asks the preferred version), and each item still says how to read it.
"""

from __future__ import annotations

import base64
import binascii
import builtins
import hashlib
import hmac
import json
import os
import shlex
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from kubectl_rbln.replay.faults import EXPIRED_MESSAGE  # etcd3/errors.go continueExpired
from kubectl_rbln.replay.resources import (
    PRIVATE_API_VERSION,
    Group,
    Resource,
    build_groups,
    is_servable,
    metadata,
    object_name,
    object_namespace,
    split_api_version,
)
from kubectl_rbln.selectors import (
    FieldRequirement,
    LabelRequirement,
    match_fields,
    match_labels,
)

DEFAULT_SERVER_VERSION = "v1.34.0"
_SHELLS = ("sh", "bash", "/bin/sh", "/bin/bash", "/usr/bin/sh", "/usr/bin/bash")


class ContinueError(ValueError):
    """A continue token this server did not issue (or issued for another bundle): 400."""


class ContinueExpired(ContinueError):
    """A token of the bundle before a reload: 410 Expired, as the API server answers a token whose
    resourceVersion was compacted away (the client starts the list again)."""


_TOKEN_KEY = os.urandom(32)  # seals continue tokens; one per server process


@dataclass(frozen=True)
class Stored:
    """One object, its sort key and its encoded JSON."""

    namespace: str
    name: str
    obj: dict[str, Any]
    raw: bytes


@dataclass(frozen=True)
class ListPage:
    items: list[Stored]
    continue_token: str
    remaining: int | None  # remainingItemCount; None: not known (a selector filtered the list)


@dataclass(frozen=True)
class ExecCapture:
    namespace: str
    pod: str
    container: str
    command: tuple[str, ...]
    stdout: str
    stderr: str
    exit_code: int
    delay_seconds: float = 0.0  # test-only: hold the reply back this long (a hanging command)
    error_reason: str = ""  # `dump` recorded that this exec got no exit code: forbidden | timeout | ...
    error: str = ""


def _delay(value: Any) -> float:
    """An ExecCapture's optional `delaySeconds`: a non-negative number, else 0."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return 0.0
    return max(0.0, float(value))


def encode(obj: Any) -> bytes:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def shell_text(command: tuple[str, ...]) -> str:
    """What a command runs, as shell text: `sh -c X` is X, argv is its quoted join."""
    if len(command) == 3 and command[0] in _SHELLS and command[1] == "-c":
        return " ".join(command[2].split())
    return " ".join(shlex.join(command).split())


class ObjectStore:
    """Immutable index of a bundle, keyed by (group, plural)."""

    def __init__(self, objects: list[dict[str, Any]]) -> None:
        servable = [o for o in objects if isinstance(o, dict) and is_servable(o)]
        private = [o for o in objects if isinstance(o, dict) and o.get("apiVersion") == PRIVATE_API_VERSION]
        servable.extend(_synthesized_namespaces(servable))
        self.groups: dict[str, Group] = build_groups(servable)
        self.resource_version = _max_resource_version(servable)
        self._by_resource: dict[tuple[str, str], list[Stored]] = {}
        self._index: dict[tuple[str, str], dict[tuple[str, str], Stored]] = {}
        self._keys: dict[tuple[str, str], list[tuple[str, str]]] = {}  # sorted (namespace, name) per resource
        self._load(servable)
        self.logs: dict[tuple[str, str, str, bool], str] = {}
        self.captures: list[ExecCapture] = []
        self.server_version = DEFAULT_SERVER_VERSION
        self.server_version_known = False  # True: the bundle's ClusterInfo named it
        self.read_at: datetime | None = None  # the bundle's ClusterInfo readAt: the Date the server answers
        self._load_private(private)

    # ------------------------------------------------------------ loading

    def _load(self, objects: list[dict[str, Any]]) -> None:
        for obj in objects:
            group, _ = split_api_version(obj["apiVersion"])
            resource = self.resource_for_kind(group, obj["kind"])
            if resource is None:
                continue
            namespace = object_namespace(obj) if resource.namespaced else ""
            stored = Stored(namespace, object_name(obj), obj, encode(obj))
            # a later copy of the same object (another file, another version) wins
            self._index.setdefault((group, resource.plural), {})[(namespace, stored.name)] = stored
        for key, entries in self._index.items():
            ordered = sorted(entries)
            self._keys[key] = ordered
            self._by_resource[key] = [entries[k] for k in ordered]

    def _load_private(self, objects: list[dict[str, Any]]) -> None:
        for obj in objects:
            kind = obj.get("kind")
            namespace, name = object_namespace(obj), object_name(obj)
            container = obj.get("container")
            container = container if isinstance(container, str) else ""
            if kind == "PodLog":
                log = obj.get("log")
                key = (namespace, name, container, bool(obj.get("previous")))
                self.logs[key] = log if isinstance(log, str) else ""
            elif kind == "ExecCapture":
                command = obj.get("command")
                if not isinstance(command, list):
                    continue
                code = obj.get("exitCode", 0)
                raw_error = obj.get("error")
                error: dict[str, Any] = raw_error if isinstance(raw_error, dict) else {}
                self.captures.append(
                    ExecCapture(
                        namespace,
                        name,
                        container,
                        tuple(str(part) for part in command),
                        str(obj.get("stdout") or ""),
                        str(obj.get("stderr") or ""),
                        code if isinstance(code, int) and not isinstance(code, bool) else 1,
                        _delay(obj.get("delaySeconds")),
                        str(error.get("reason") or ""),
                        str(error.get("message") or ""),
                    )
                )
            elif kind == "ClusterInfo":
                if isinstance(obj.get("serverVersion"), str):
                    self.server_version = obj["serverVersion"]
                    self.server_version_known = True
                read_at = _utc(obj.get("readAt"))
                if read_at is not None and (self.read_at is None or read_at > self.read_at):
                    self.read_at = read_at

    # ------------------------------------------------------------ watch support (replay/watch.py)

    def indexed(self) -> dict[tuple[str, str], dict[tuple[str, str], Stored]]:
        """Every served object by (group, plural), then (namespace, name): what a watch diffs."""
        return self._index

    def adopt(self, entries: dict[tuple[tuple[str, str], tuple[str, str]], Stored], revision: str) -> None:
        """Before this store is served: put these entries in (an object as a watch announced it, with
        its new resourceVersion) and say `revision` is the resourceVersion of the whole store."""
        touched = set()
        for (resource_key, key), stored in entries.items():
            self._index.setdefault(resource_key, {})[key] = stored
            touched.add(resource_key)
        for resource_key in touched:
            found = self._index[resource_key]
            self._by_resource[resource_key] = [found[k] for k in sorted(found)]
        self.resource_version = revision

    # ------------------------------------------------------------ lookups

    def resource_for_kind(self, group: str, kind: str) -> Resource | None:
        grp = self.groups.get(group)
        if grp is None:
            return None
        return next((r for r in grp.resources.values() if r.kind == kind), None)

    def resource(self, group: str, version: str, plural: str) -> Resource | None:
        grp = self.groups.get(group)
        if grp is None or version not in grp.versions:
            return None
        return grp.resources.get(plural)

    def get(self, resource: Resource, namespace: str, name: str) -> Stored | None:
        return self._index.get((resource.group, resource.plural), {}).get((namespace, name))

    def list(
        self,
        resource: Resource,
        namespace: str | None,
        labels: list[LabelRequirement],
        fields: list[FieldRequirement],
        limit: int,
        continue_token: str,
    ) -> ListPage:
        """Items in (namespace, name) order, filtered, then one page of at most `limit` (0: all).

        Why O(page): the items are sorted once, a namespace is a contiguous range of them and a
        continue token names the last key returned, so a page starts by bisection instead of a
        rescan of every earlier item (paging 50,000 nodes' slices was O(n^2) before)."""
        key = (resource.group, resource.plural)
        items = self._by_resource.get(key, [])
        keys = self._keys.get(key, [])
        lo, hi = 0, len(items)
        if namespace is not None:  # (ns, name) < (ns + NUL, "") for every name; every later ns is >=
            lo, hi = bisect_left(keys, (namespace, "")), bisect_left(keys, (namespace + "\0", ""))
        scope = self._scope(resource, namespace)
        if continue_token:
            lo = max(lo, bisect_right(keys, self._decode_continue(continue_token, scope), lo, hi))
        if not labels and not fields:
            end = hi if limit <= 0 else min(hi, lo + limit)
            page = items[lo:end]
            if end >= hi:
                return ListPage(page, "", 0)
            last = page[-1]
            return ListPage(page, self._encode_continue(scope, last.namespace, last.name), hi - end)
        matched: list[Stored] = []
        more = False
        for index in range(lo, hi):
            stored = items[index]
            if labels and not match_labels(labels, stored.obj):
                continue
            if fields and not match_fields(fields, stored.obj):
                continue
            if 0 < limit <= len(matched):
                more = True  # one more match exists: the page is full and a token is due
                break
            matched.append(stored)
        if not more:
            return ListPage(matched, "", 0)
        last = matched[-1]
        # a filtered list's count is unknown without matching the rest: no remainingItemCount, as the
        # API server omits it for any selector (k8s.io/apiserver pkg/storage/continue.go
        # PrepareContinueToken: "Only set remainingItemCount if the predicate is empty")
        return ListPage(matched, self._encode_continue(scope, last.namespace, last.name), None)

    def pod_containers(self, pod: dict[str, Any]) -> builtins.list[str]:
        """Names of the pod's containers, init containers and ephemeral containers."""
        spec = pod.get("spec")
        spec = spec if isinstance(spec, dict) else {}
        names: list[str] = []
        for key in ("containers", "initContainers", "ephemeralContainers"):
            for container in spec.get(key) or []:
                if isinstance(container, dict) and isinstance(container.get("name"), str):
                    names.append(container["name"])
        return names

    def find_capture(
        self, namespace: str, pod: str, container: str, command: tuple[str, ...]
    ) -> ExecCapture | None:
        """The recorded run of `command`: an exact argv match first, then the same shell text."""
        candidates = [
            c
            for c in self.captures
            if c.namespace == namespace and c.pod == pod and (not c.container or c.container == container)
        ]
        exact = next((c for c in candidates if c.command == command), None)
        if exact is not None:
            return exact
        wanted = shell_text(command)
        return next((c for c in candidates if shell_text(c.command) == wanted), None)

    def log_containers(self, namespace: str, pod: str) -> builtins.list[str]:
        return sorted({k[2] for k in self.logs if k[0] == namespace and k[1] == pod})

    # ------------------------------------------------------------ continue tokens

    @staticmethod
    def _scope(resource: Resource, namespace: str | None) -> str:
        """The list a token belongs to: a token is good only for the list that issued it."""
        return f"{resource.group}/{resource.plural}/{namespace if namespace is not None else ''}"

    def _seal(self, scope: str, namespace: str, name: str) -> str:
        message = encode([self.resource_version, scope, namespace, name])
        return hmac.new(_TOKEN_KEY, message, hashlib.sha256).hexdigest()[:32]

    def _encode_continue(self, scope: str, namespace: str, name: str) -> str:
        """Opaque to clients: the last key returned, this bundle's resourceVersion and a seal over
        both (keyed per server process), so a token that was edited or made up is refused."""
        payload = encode(
            {
                "v": 1,
                "rv": self.resource_version,
                "start": [namespace, name],
                "mac": self._seal(scope, namespace, name),
            }
        )
        return base64.urlsafe_b64encode(payload).decode("ascii").rstrip("=")

    def _decode_continue(self, token: str, scope: str) -> tuple[str, str]:
        try:
            padded = token + "=" * (-len(token) % 4)
            data = json.loads(base64.urlsafe_b64decode(padded.encode("ascii")))
            start = data["start"]
            if not (isinstance(start, list) and len(start) == 2 and all(isinstance(s, str) for s in start)):
                raise ContinueError("continue key is malformed")
            if data.get("rv") != self.resource_version:
                if _older(data.get("rv"), self.resource_version):
                    raise ContinueExpired(EXPIRED_MESSAGE)  # the bundle was reloaded since (serve --reload)
                raise ContinueError("continue key is for another resource version")
            if not hmac.compare_digest(str(data.get("mac", "")), self._seal(scope, start[0], start[1])):
                raise ContinueError("continue key is not valid: not issued by this server for this list")
            return start[0], start[1]
        except ContinueError:
            raise
        except (binascii.Error, ValueError, KeyError, TypeError, UnicodeError) as exc:
            raise ContinueError(f"continue key is not valid: {exc}") from None


def _older(token_rv: Any, current: str) -> bool:
    """True when a token's resourceVersion is below the store's: a list made before a reload."""
    return (
        isinstance(token_rv, str)
        and token_rv.isdigit()
        and current.isdigit()
        and int(token_rv) < int(current)
    )


def _synthesized_namespaces(objects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A Namespace object for `default` and each namespace objects use but the bundle lacks."""
    given = {object_name(o) for o in objects if o.get("kind") == "Namespace" and o.get("apiVersion") == "v1"}
    used = {object_namespace(o) for o in objects} | {"default"}
    return [
        {
            "apiVersion": "v1",
            "kind": "Namespace",
            "metadata": {"name": ns, "labels": {"kubernetes.io/metadata.name": ns}},
            "spec": {"finalizers": ["kubernetes"]},
            "status": {"phase": "Active"},
        }
        for ns in sorted(used - given - {""})
    ]


def _utc(value: Any) -> datetime | None:
    """An RFC 3339 time (ClusterInfo readAt) as an aware UTC datetime, else None."""
    if not isinstance(value, str):
        return None
    try:
        when = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return (when if when.tzinfo is not None else when.replace(tzinfo=timezone.utc)).astimezone(timezone.utc)


def _max_resource_version(objects: list[dict[str, Any]]) -> str:
    """The highest numeric resourceVersion in the bundle: what a list made after it would carry."""
    best = 1
    for obj in objects:
        value = metadata(obj).get("resourceVersion")
        if isinstance(value, str) and value.isdigit():
            best = max(best, int(value))
    return str(best)
