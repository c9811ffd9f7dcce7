"""A live read's pages go through the item templates (cluster/wire_pages.py) and read what decoding gives.

Why (issue 26): a live page's Pods, claims and Nodes whose text matches a template are not decoded,
and its slices are read from their devices text, as a `-f` file's are. Here a cluster of more than
one page (500 items) of Pods, claims and slices is served by the replay server, edited where a
template could be fooled on a live page: an item that differs in structure from its neighbours in
the middle of a page, values that differ right at a page boundary inside a run of same-shaped
items, and Pods whose containers restarted or crash-loop (their previous log is read only for those).
It is read live with KUBECTL_RBLN_TEMPLATES=0 and =1: the Snapshots are equal field by field, and
equal to the plain read of the same objects; `why` and `check` print the same bytes both ways.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from kubectl_rbln.cluster import wire_templates
from kubectl_rbln.cluster.kubeconfig import resolve_context
from kubectl_rbln.cluster.live import PAGE_SIZE, LiveClient
from kubectl_rbln.cluster.options import SourceOptions
from kubectl_rbln.cluster.source import LiveCollector, _normalizer, crashing_containers, pod_log
from kubectl_rbln.cluster.wire_pages import PageReader
from kubectl_rbln.dra.normalize import PREBUILT
from kubectl_rbln.replay.server import ReplayServer
from testing.bundle_layouts import compared_fields, plain_snapshot, write_layout
from testing.synthetic.builder import ClusterBuilder, Knobs
from testing.synthetic.scenarios import SCENARIOS

ROOT = Path(__file__).resolve().parents[3]
FIELDS = compared_fields()
OBJECTS = ("pods", "nodes", "slices", "claims")  # compared with the plain read of the bundle too
LISTS = {
    "Pod": "/api/v1/pods",
    "ResourceClaim": "/apis/resource.k8s.io/v1/resourceclaims",
    "Node": "/api/v1/nodes",
    "ResourceSlice": "/apis/resource.k8s.io/v1/resourceslices",
}


def _served_order(objects: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    """The objects of `kind` in the order a cluster-scope list pages them (by namespace, then name)."""
    of_kind = [o for o in objects if o["kind"] == kind]
    return sorted(of_kind, key=lambda o: (o["metadata"].get("namespace", ""), o["metadata"]["name"]))


def _status(pod: dict[str, Any]) -> dict[str, Any]:
    return pod["status"]["containerStatuses"][0]


def _cluster() -> list[dict[str, Any]]:
    """562 Pods and claims, 1,020 slices, 511 Nodes: every list more than one page, edited."""
    knobs = Knobs(npu_nodes=510, decode_running=560, prefill_running=0, decode_pending=2, captures=False)
    objects = ClusterBuilder(7, "v1", knobs).build()
    pods = [p for p in _served_order(objects, "Pod") if p["status"].get("phase") == "Running"]
    claims = _served_order(objects, "ResourceClaim")
    nodes = _served_order(objects, "Node")
    slices = _served_order(objects, "ResourceSlice")
    assert min(len(pods), len(claims), len(nodes), len(slices)) > PAGE_SIZE
    # mid-page: one item of another structure among items of one shape
    pods[250]["spec"]["hostNetwork"] = True
    pods[251]["metadata"]["labels"].pop(next(iter(pods[251]["metadata"]["labels"])))
    claims[250]["metadata"].setdefault("annotations", {})["note"] = "other"
    nodes[250]["metadata"]["labels"]["zone"] = "z-odd"
    devices = slices[250]["spec"]["devices"]
    devices[0].setdefault("attributes", {})["extra"] = {"string": "odd"}
    # at the page boundary: values that vary inside the run of same-shaped items
    for index in range(PAGE_SIZE - 3, PAGE_SIZE + 3):
        if index < len(pods):
            pods[index]["metadata"]["labels"]["batch"] = f"b{index}"
            _status(pods[index])["ready"] = index % 2 == 0
        claims[index]["metadata"].setdefault("annotations", {})["batch"] = f"b{index}"
        nodes[index]["status"]["allocatable"]["cpu"] = str(index)
    # restarted and crash-looping containers (their previous log is read); one log is served. Counts
    # and waiting reasons vary first, so that templates have holes there when the later ones come
    for index in range(20, 30):
        _status(pods[index])["restartCount"] = index % 2
    for index in range(30, 40):
        _status(pods[index])["state"] = {"waiting": {"reason": f"Reason{index}"}}
    _status(pods[100])["restartCount"] = 3
    _status(pods[PAGE_SIZE + 1])["state"] = {"waiting": {"reason": "CrashLoopBackOff"}}
    _status(pods[PAGE_SIZE + 2])["restartCount"] = "2"
    crashed = pods[100]
    container = _status(crashed)["name"]
    objects.append(pod_log(crashed["metadata"], container, "memlock: cannot allocate memory\n"))
    return objects


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Any:
    objects = _cluster()
    folder = tmp_path_factory.mktemp("live-templates")
    bundle = folder / "cluster.json"
    write_layout(objects, bundle, "whole")
    with ReplayServer(objects) as server:
        kubeconfig = folder / "kubeconfig"
        kubeconfig.write_text(server.kubeconfig_yaml(), encoding="utf-8")
        yield objects, bundle, kubeconfig


def _by_name(models: Any) -> Any:
    if isinstance(models, dict):  # keyed by name already
        return models
    return sorted(models, key=lambda m: (getattr(m, "namespace", ""), m.name))


def _live_snapshot(kubeconfig: Path, monkeypatch: pytest.MonkeyPatch, templates: str) -> Any:
    monkeypatch.setenv(wire_templates.ENV, templates)
    collector = LiveCollector(SourceOptions(kubeconfig=str(kubeconfig), namespace="serving"))
    return collector.collect_snapshot("live")


def test_a_live_read_is_the_same_with_templates_on_and_off(
    served: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    objects, bundle, kubeconfig = served
    on = _live_snapshot(kubeconfig, monkeypatch, "1")
    off = _live_snapshot(kubeconfig, monkeypatch, "0")
    for name in FIELDS:
        assert getattr(on, name) == getattr(off, name), name
    plain = plain_snapshot(bundle)
    for name in OBJECTS:  # the server pages them by namespace and name, the bundle holds them unsorted
        assert _by_name(getattr(on, name)) == _by_name(getattr(plain, name)), name
    # every restarted and crash-looping Pod's previous log was asked for: one served, the others refused
    crashing = [p for p in objects if p["kind"] == "Pod" and crashing_containers(p)]
    assert len(crashing) == 8
    assert len(on.logs) == 1
    refused = [p for p in on.problems if p.kind == "PodLog"]
    assert len(refused) == len(crashing) - 1, on.problems


def test_most_live_items_are_read_from_their_text(served: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Not vacuous: with templates on, nearly every Pod, claim and Node of the pages comes with its
    model made; off, none does. The crash-looping and restarted Pods are never read so."""
    objects, _, kubeconfig = served
    client = LiveClient(resolve_context(str(kubeconfig), None, None), timeout=30)
    for setting in ("1", "0"):
        monkeypatch.setenv(wire_templates.ENV, setting)
        for kind in wire_templates.KINDS:
            items = client.list(LISTS[kind], keep=lambda item: item, decoder=PageReader(kind))
            made = [item for item in items if PREBUILT in item]
            if setting == "0":
                assert not made, kind
                continue
            assert len(items) == sum(o["kind"] == kind for o in objects)
            assert len(made) >= len(items) - 32, (kind, len(made), len(items))
            if kind == "Pod":
                names = {item["metadata"]["name"] for item in made}
                pods = [p for p in _served_order(objects, "Pod") if p["status"].get("phase") == "Running"]
                crashing = {p["metadata"]["name"] for p in pods if crashing_containers(p)}
                assert len(crashing) == 8 and crashing.isdisjoint(names)


@pytest.mark.parametrize("output", [[], ["-o", "json"]])
@pytest.mark.parametrize("command", [["why", "-n", "serving"], ["check", "-n", "serving"]])
def test_why_and_check_print_the_same_with_templates_on_and_off(
    served: Any, command: list[str], output: list[str]
) -> None:
    objects, _, kubeconfig = served
    if command[0] == "why":
        pending = next(o for o in objects if o["kind"] == "Pod" and o["status"].get("phase") == "Pending")
        command = [*command, pending["metadata"]["name"]]
    outputs = []
    for setting in ("1", "0"):
        env = {
            **os.environ,
            "KUBECONFIG": str(kubeconfig),
            wire_templates.ENV: setting,
            "PYTHONPATH": str(ROOT),
            "NO_COLOR": "1",
        }
        done = subprocess.run(
            [sys.executable, "-m", "kubectl_rbln", *command, *output],
            capture_output=True,
            env=env,
            timeout=120,
            check=False,
        )
        outputs.append((done.returncode, done.stdout))
        assert done.stdout, done.stderr
    assert outputs[0] == outputs[1]
    if output:
        assert json.loads(outputs[0][1])  # a whole JSON document


# (description, kind, edit of the first item of that kind): a wrong type where the wire shapes or the
# parts' checks look, or an item of another kind in the list
ODD_ITEMS = [
    ("nothing", "Pod", lambda o: None),
    ("pod claims an object", "Pod", lambda o: o["spec"].__setitem__("resourceClaims", {"a": 1})),
    ("pod metadata a list", "Pod", lambda o: o.__setitem__("metadata", [])),
    ("pod status null", "Pod", lambda o: o.__setitem__("status", None)),
    ("claim requests an object", "ResourceClaim", lambda o: o["spec"]["devices"].__setitem__("requests", {})),
    ("slice devices a string", "ResourceSlice", lambda o: o["spec"].__setitem__("devices", "x")),
    ("slice device a number", "ResourceSlice", lambda o: o["spec"]["devices"].__setitem__(0, 3)),
    ("node taints an object", "Node", lambda o: o["spec"].__setitem__("taints", {"key": "x"})),
    ("an item of another kind", "Pod", lambda o: o.__setitem__("kind", "Secret")),
]


def _page_kept(kind: str, items: list[Any], api_version: str) -> list[Any]:
    """What a live read keeps of one page read by PageReader: the page decoded the plain way when the
    reader refuses it, each object item given the list's kind and apiVersion where it has none, then
    kept (cluster/live.py `_decode` and `_take`, cluster/source.py `_normalizer`)."""
    body = json.dumps({"kind": f"{kind}List", "apiVersion": api_version, "items": items}).encode()
    try:
        page = PageReader(kind).decode(body)
    except Exception:  # noqa: BLE001 - msgspec's errors: `_decode` reads the page with json then
        page = json.loads(body)
    kept = []
    for item in page["items"]:
        if isinstance(item, dict):
            item.setdefault("kind", kind)
            item.setdefault("apiVersion", api_version)
            kept.append(_normalizer(kind)(item))
    return kept


@pytest.mark.parametrize("api_version", ["v1", "v1beta1"])
@pytest.mark.parametrize("own_kind", [True, False], ids=["items-with-kind", "items-without-kind"])
def test_a_page_read_through_the_templates_keeps_what_plain_objects_give(
    monkeypatch: pytest.MonkeyPatch, api_version: str, own_kind: bool
) -> None:
    """Every scenario's Pods, claims, Nodes and slices as one page each, well-formed or not, with each
    item's own kind and apiVersion (the replay server's) or none (the API server's: the list's are
    theirs): what the live read keeps is what the plain objects give, templates on and off."""
    for scenario in SCENARIOS.values():
        base = scenario.build(api_version)
        for what, edited, edit in ODD_ITEMS:
            for kind in LISTS:
                of_kind = copy.deepcopy([o for o in base if o["kind"] == kind])
                if not of_kind or (what != "nothing" and edited != kind):
                    continue  # an edit changes its own kind's page only
                group = of_kind[0]["apiVersion"]
                if edited == kind:
                    edit(of_kind[0])
                expected = [_normalizer(kind)(obj) for obj in copy.deepcopy(of_kind)]
                if not own_kind:
                    for item in of_kind:
                        if item.get("kind") == kind:
                            del item["kind"], item["apiVersion"]
                for setting in ("1", "0"):
                    monkeypatch.setenv(wire_templates.ENV, setting)
                    assert _page_kept(kind, copy.deepcopy(of_kind), group) == expected, (scenario, what, kind)


def test_items_without_their_own_kind_are_read_from_their_text(monkeypatch: pytest.MonkeyPatch) -> None:
    """The API server writes no kind or apiVersion per item: the list's are filled in before an item is
    proven against a template, so such items are read from their text too (and none with templates off)."""
    knobs = Knobs(npu_nodes=8, decode_running=12, prefill_running=0, decode_pending=2, captures=False)
    objects = ClusterBuilder(7, "v1", knobs).build()
    for kind in wire_templates.KINDS:
        of_kind = [o for o in objects if o["kind"] == kind]
        items = [{k: v for k, v in o.items() if k not in ("kind", "apiVersion")} for o in of_kind]
        body = json.dumps({"kind": f"{kind}List", "apiVersion": "v1", "items": items}).encode()
        made = {}
        for setting in ("1", "0"):
            monkeypatch.setenv(wire_templates.ENV, setting)
            made[setting] = sum(PREBUILT in item for item in PageReader(kind).decode(body)["items"])
        assert made["1"] >= len(items) // 2 and not made["0"], (kind, made, len(items))
