"""Every hole of every template reads, for every value the field takes anywhere, as decoding gives.

Why: a template (cluster/wire_templates.py) is proven with a few marker values per hole. A marker
shows where a value is copied; it cannot show that a normalizer never branches on one particular
value (`reason == "CrashLoopBackOff"`, `phase == "Running"`, `status == "True"`). If a normalizer did,
an item holding that value would get the representative's branch and be misread, silently. This
guard fills each hole of each template made from the generated clusters and every scenario with every
value any of them holds at that place, and the Kubernetes status vocabulary the rules read, and
requires the template's reading to equal the full decode: a new branch on a value breaks this test
(or makes the marker check refuse the template), never an answer.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Iterator
from typing import Any

from kubectl_rbln.cluster import wire_templates
from kubectl_rbln.cluster.wire_read import _branches, _template_decode
from kubectl_rbln.dra.normalize import PREBUILT
from testing.synthetic import API_VERSIONS
from testing.synthetic.builder import ClusterBuilder, Knobs
from testing.synthetic.scenarios import SCENARIOS

# Values Kubernetes writes into the fields the normalizers keep, which a rule may test: Pod phases
# (k8s.io/api/core/v1/types.go PodPhase), condition statuses and types, container waiting and
# terminated reasons (pkg/kubelet/images/types.go, pkg/kubelet/kuberuntime/kuberuntime_container.go,
# pkg/kubelet/container/sync_result.go), the scheduler's reasons (pkg/scheduler/framework).
VOCABULARY = (
    "Pending",
    "Running",
    "Succeeded",
    "Failed",
    "Unknown",
    "True",
    "False",
    "PodScheduled",
    "Ready",
    "ContainersReady",
    "Initialized",
    "PodReadyToStartContainers",
    "DisruptionTarget",
    "Unschedulable",
    "SchedulingGated",
    "SchedulerError",
    "ContainerCreating",
    "PodInitializing",
    "CrashLoopBackOff",
    "ImagePullBackOff",
    "ErrImagePull",
    "ErrImageNeverPull",
    "CreateContainerConfigError",
    "CreateContainerError",
    "RunContainerError",
    "PostStartHookError",
    "OOMKilled",
    "Error",
    "Completed",
    "ContainerCannotRun",
    "DeadlineExceeded",
    "Evicted",
    "NodeLost",
    "MemoryPressure",
    "DiskPressure",
    "PIDPressure",
    "NetworkUnavailable",
    "allocated",
    "reserved",
)
READ_BY_RULES = (
    ("status", "phase"),
    ("status", "containerStatuses", "*", "restartCount"),
    ("status", "containerStatuses", "*", "state", "waiting", "reason"),
    ("status", "conditions", "*", "status"),
)
_PLAIN = re.compile(r'[^"\\\x00-\x1f\x7f]*\Z')  # what a string hole can hold (text_cuts: no escapes)


def _sources() -> Iterator[tuple[str, list[dict[str, Any]]]]:
    knobs = Knobs(npu_nodes=12, prefill_running=6, prefill_pending=2, decode_pending=3, captures=False)
    for api_version in API_VERSIONS:
        yield (
            f"generated/{api_version}",
            ClusterBuilder(11, api_version, knobs.replace(decode_running=14)).build(),
        )
    for name, scenario in SCENARIOS.items():
        yield name, scenario.build("v1")


def _general(path: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple("*" if isinstance(step, int) else step for step in path)


def _values(obj: Any, path: tuple[Any, ...], into: dict[tuple[Any, ...], set[Any]]) -> None:
    if isinstance(obj, dict):
        for key, value in obj.items():
            _values(value, (*path, key), into)
    elif isinstance(obj, list):
        for value in obj:
            _values(value, (*path, "*"), into)
    elif not isinstance(obj, float) and obj is not None:
        into[path].add(obj)


def _fillings(form: str, own: bytes, seen: set[Any]) -> Iterator[bytes]:
    """Every value of a hole's form seen at its place (strings: and the vocabulary), unlike its own."""
    if form == "string":
        texts = {v for v in seen if type(v) is str} | set(VOCABULARY)
        fills = [t.encode("utf-8") for t in sorted(texts) if t and _PLAIN.match(t)]
    elif form == "int":
        fills = [str(v).encode() for v in sorted({v for v in seen if type(v) is int} | {0, 1, -1})]
    else:
        fills = [b"true", b"false"]
    yield from (fill for fill in fills if fill != own)


def _builder_view(wire: dict[str, Any], model: Any) -> dict[str, Any]:
    meta = wire.get("metadata") or {}
    view: dict[str, Any] = {k: wire[k] for k in ("kind", "apiVersion") if k in wire}
    view["metadata"] = {k: meta[k] for k in ("name", "namespace", "resourceVersion") if k in meta}
    view[PREBUILT] = model
    return view


def _templates_of(objects: list[dict[str, Any]]) -> Iterator[tuple[str, wire_templates.Template]]:
    """Feed a source's items as the `-f` read does (read, else decode and learn); the templates made."""
    made = wire_templates.Templates(_template_decode, _branches())
    for obj in objects:
        kind = obj.get("kind")
        if kind not in wire_templates.KINDS:
            continue
        text = json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        if made.read(kind, text) is None:
            _template_decode(kind, text)
            made.learn(kind, text)
    for kind, templates in made.kinds.items():
        for template in templates:
            yield kind, template


def _seen(sources: list[tuple[str, list[dict[str, Any]]]]) -> dict[tuple[Any, ...], set[Any]]:
    seen: dict[tuple[Any, ...], set[Any]] = defaultdict(set)
    for _, objects in sources:
        for obj in objects:
            if obj.get("kind") in wire_templates.KINDS:
                _values(obj, (), seen)
    return seen


def _check(
    kind: str, template: wire_templates.Template, seen: dict[tuple[Any, ...], set[Any]], where: str
) -> int:
    """Every hole of `template` filled with every value of its place: read as decoding reads it."""
    checked = 0
    for hole in template.holes:
        own = template.text[hole.start : hole.end]
        for fill in _fillings(hole.form, own, seen[_general(hole.path)]):
            text = template.text[: hole.start] + fill + template.text[hole.end :]
            read = template.read(text)
            if read is None:
                continue  # the cut refused it (an empty text where one is read): decoded instead
            wire, model = _template_decode(kind, text)
            assert read == _builder_view(wire, model), (where, kind, hole.path, fill)
            checked += 1
    return checked


def test_every_hole_of_the_templates_made_reads_every_value_of_its_field_as_decoding_does() -> None:
    sources = list(_sources())
    seen = _seen(sources)
    checked = templates = 0
    holes_of_kind: dict[str, set[tuple[Any, ...]]] = defaultdict(set)
    for source, objects in sources:
        for kind, template in _templates_of(objects):
            templates += 1
            holes_of_kind[kind].update(_general(hole.path) for hole in template.holes)
            checked += _check(kind, template, seen, source)
    # the guard guards something: templates of every kind, with the holes the clusters vary
    assert set(holes_of_kind) == set(wire_templates.KINDS), holes_of_kind.keys()
    assert templates >= 3 * len(wire_templates.KINDS) and checked > 1000, (templates, checked)
    pod_holes = holes_of_kind["Pod"]
    assert ("metadata", "name") in pod_holes and ("spec", "nodeName") in pod_holes, sorted(pod_holes)[:20]


def _leaves(obj: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    if isinstance(obj, dict):
        for key, value in obj.items():
            yield from _leaves(value, (*path, key))
    elif isinstance(obj, list):
        for index, value in enumerate(obj):
            yield from _leaves(value, (*path, index))
    elif isinstance(obj, (str, int)) and not isinstance(obj, float):
        yield path, obj


def _replaced(obj: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    copy = dict(obj) if isinstance(obj, dict) else list(obj)
    copy[path[0]] = _replaced(obj[path[0]], path[1:], value)
    return copy


def _other(value: Any, seen: set[Any]) -> Any:
    if type(value) is bool:
        return not value
    if type(value) is int:
        return value + 1
    others = sorted(
        t for t in {*(v for v in seen if type(v) is str), *VOCABULARY} if t != value and _PLAIN.match(t)
    )
    return others[0] if others else value + "x"


def test_every_field_of_every_kind_as_a_hole_reads_every_value_as_decoding_does() -> None:
    """The clusters vary names and times; a rule reads phases, reasons, statuses, counts. Each field of
    one item of every shape is varied in turn: a template that takes it as a hole (the marker check did
    not refuse it) must read each of its values as decoding does."""
    sources = list(_sources())
    seen = _seen(sources)
    shapes: dict[tuple[str, frozenset[tuple[Any, ...]]], dict[str, Any]] = {}
    for _, objects in sources:
        for obj in objects:
            if obj.get("kind") in wire_templates.KINDS:
                paths = frozenset(_general(path) for path, _ in _leaves(obj))
                shapes.setdefault((obj["kind"], paths), obj)
    holes = refused = checked = 0
    status_holes: set[tuple[Any, ...]] = set()
    refused_paths: set[tuple[Any, ...]] = set()
    # each field of a kind once per value it holds (a branch shows from one side only), up to 3 values
    varied: dict[tuple[str, tuple[Any, ...]], set[Any]] = defaultdict(set)
    for (kind, _), obj in shapes.items():
        for path, value in _leaves(obj):
            values = varied[kind, _general(path)]
            if path in (("kind",), ("apiVersion",)) or value in values or len(values) >= 3:
                continue
            values.add(value)
            variant = _replaced(obj, path, _other(value, seen[_general(path)]))
            made = list(_templates_of([obj, variant]))
            if not made:
                refused += 1  # the marker check saw the normalizer read it otherwise: decoded, never misread
                refused_paths.add(_general(path))
                continue
            holes += 1
            if path[0] == "status":
                status_holes.add(_general(path))
            checked += _check(kind, made[0][1], seen, f"{kind} {path}")
    assert holes > 150 and refused > 20 and checked > 5000, (holes, refused, checked)
    # the fields the rules read were varied: each read from templates, or refused (decoded every time)
    for path in READ_BY_RULES:
        assert path in status_holes or path in refused_paths, path
