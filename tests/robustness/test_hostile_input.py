"""Hostile and broken input never escapes as a traceback (hypothesis).

Why: bundles come from customers' clusters, hand-edited dumps, version skew and truncated copies.
The normalizer must turn anything into empty values, `why` must always reach a verdict, and the
`-f` reader may only fail with its one-line InputError (exit 2).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kubectl_rbln.cluster.files import load_objects
from kubectl_rbln.diagnose.why import PodDiagnosis, WhyOptions, diagnose_pod
from kubectl_rbln.dra.normalize import build_snapshot
from kubectl_rbln.errors import InputError
from testing.synthetic.builder import ClusterBuilder

FAST = settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
KINDS = [
    "Pod",
    "Node",
    "Event",
    "ResourceSlice",
    "ResourceClaim",
    "ResourceClaimTemplate",
    "DeviceClass",
    "PodLog",
    "ExecCapture",
    "ClusterInfo",
    "Namespace",
    "Deployment",
    "ReplicaSet",
    "StatefulSet",
    "DaemonSet",
    "Job",
    "CronJob",
    "Lease",
    "ResourceQuota",
    "LimitRange",
]
API_VERSIONS = [
    "v1",
    "resource.k8s.io/v1",
    "resource.k8s.io/v1beta1",
    "kubectl-rbln/v1",
    "",
    "x/y/z",
    "apps/v1",
    "batch/v1",
    "coordination.k8s.io/v1",
]

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.sampled_from(["\x1b[31m", "\u202e", "é", "0", "-1", "1.2.3", "int", "string", "𝔘"]),
    st.just("x" * 100_000),
)
KEYS = st.one_of(
    st.text(max_size=8),
    st.sampled_from(
        [
            "metadata", "spec", "status", "name", "namespace", "devices", "attributes", "capacity",
            "requests", "exactly", "firstAvailable", "constraints", "allocation", "results", "items",
            "containers", "resourceClaims", "resourceClaimStatuses", "conditions", "driver", "pool",
            "int", "bool", "string", "version", "basic", "selectors", "cel", "expression", "count",
            "deviceClassName", "nodeName", "taints", "labels", "involvedObject", "message", "problems",
            "replicas", "readyReplicas", "template", "ownerReferences", "hard", "used", "limits", "readAt",
            "holderIdentity", "renewTime", "leaseDurationSeconds", "jobTemplate", "active",
        ]
    ),
)  # fmt: skip
json_values = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(KEYS, inner, max_size=5)),
    max_leaves=25,
)
raw_objects = st.builds(
    lambda kind, api, body: {**body, "kind": kind, "apiVersion": api},
    st.sampled_from(KINDS),
    st.sampled_from(API_VERSIONS),
    st.dictionaries(KEYS, json_values, max_size=6),
)


@pytest.mark.slow  # hypothesis, 60 examples of whole clusters
@FAST
@given(st.lists(st.one_of(raw_objects, json_values), max_size=8))
def test_normalizer_takes_anything(objects: list[Any]) -> None:
    snapshot = build_snapshot(objects)  # type: ignore[arg-type]
    for pod in snapshot.pods:
        assert isinstance(pod.name, str) and isinstance(pod.namespace, str)
    for slice_ in snapshot.slices:
        for device in slice_.devices:
            assert all(isinstance(name, str) for name in device.attributes)


@pytest.fixture(scope="module")
def scenario() -> tuple[list[dict[str, Any]], tuple[str, str]]:
    builder = ClusterBuilder(3)
    return builder.build(), builder.target_pod()


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path into a JSON tree (dict keys and list indexes)."""
    found = [prefix] if prefix else []
    if isinstance(value, dict):
        for key, child in value.items():
            found += _paths(child, (*prefix, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            found += _paths(child, (*prefix, index))
    return found


def _mutate(objects: list[dict[str, Any]], picks: list[tuple[int, int, Any, bool]]) -> list[dict[str, Any]]:
    """Drop or replace the subtrees that `picks` point at: (object, path, new value, drop?)."""
    out = copy.deepcopy(objects)
    for object_index, path_index, value, drop in picks:
        obj = out[object_index % len(out)]
        paths = _paths(obj)
        if not paths:
            continue
        *parents, last = paths[path_index % len(paths)]
        holder: Any = obj
        for step in parents:
            holder = holder[step]
        if drop and isinstance(holder, dict):
            del holder[last]
        else:
            holder[last] = value
    return out


@pytest.mark.slow  # hypothesis, 40 runs of `why` on mutated bundles
@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    st.lists(
        st.tuples(st.integers(0, 10_000), st.integers(0, 10_000), json_values, st.booleans()),
        min_size=1,
        max_size=6,
    )
)
def test_why_reaches_a_verdict_on_mutated_bundles(
    scenario: tuple[list[dict[str, Any]], tuple[str, str]], picks: list[tuple[int, int, Any, bool]]
) -> None:
    objects, (namespace, name) = scenario
    snapshot = build_snapshot(_mutate(objects, picks))
    pods = [p for p in snapshot.pods if (p.namespace, p.name) == (namespace, name)] or snapshot.pods[:1]
    for pod in pods:
        diagnosis = diagnose_pod(snapshot, pod, WhyOptions())
        assert isinstance(diagnosis, PodDiagnosis)
        assert diagnosis.verdict("en").startswith(f"Pod {pod.key} is ")
        json.dumps(diagnosis.to_dict(), default=str)  # -o json can always print it


json_text = st.builds(json.dumps, json_values)
broken_text = st.one_of(
    st.text(max_size=200),
    json_text.map(lambda t: t[: max(len(t) // 2, 1)]),  # truncated JSON
    st.sampled_from(
        [
            "{",
            "[1, 2",
            '{"kind": "List", "items": [1]}',
            '{"kind": "List", "items": "x"}',
            '{"apiVersion": "v1"}',
            "a: [1, 2\n",
            "- a\n- b: [\n",
            "kind: Pod\n  bad: indent\n",
            "a: &x [1]\nb: *y\n",
            "!!python/object:os.system ls\n",
            "\t\tkind: Pod",
            "---\n---\n...",
            "\ufeff{}",
            "\x00\x01\x02",
            "[" * 5000 + "]" * 5000,
            "- " * 3000 + "x",
        ]
    ),
)


@FAST
@given(broken_text, st.sampled_from(["in.json", "in.yaml", "in.txt"]))
def test_file_reader_fails_only_with_input_error(
    tmp_path_factory: pytest.TempPathFactory, text: str, name: str
) -> None:
    path: Path = tmp_path_factory.mktemp("fuzz") / name
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    try:
        objects = load_objects([str(path)])
    except InputError as exc:
        assert "\n" not in exc.message.strip() and str(path) in exc.message
        return
    assert all(isinstance(o, dict) and o.get("kind") for o in objects)


def test_file_reader_refuses_a_yaml_bomb(tmp_path: Path) -> None:
    lines = ['a0: &a0 ["x", "x", "x", "x", "x", "x", "x", "x", "x", "x"]']
    lines += [f"a{i}: &a{i} [*a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}]" for i in range(1, 12)]
    path = tmp_path / "bomb.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match="aliases"):
        load_objects([str(path)])
