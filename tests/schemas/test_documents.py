"""Every document the plugin prints conforms to its shipped schema (kubectl_rbln/schemas/), on every
scenario: each synthetic scenario (testing/synthetic/scenarios.py) and each docs bundle
(testing/docs_bundles.py) through every command's use case in English and Korean, the pod-devices
cases with their probe captures, a fleet of clusters with a dead one, every bundle `dump` writes, and
the CLI's own documents (`version`, `suggest-rct -o json|yaml`, `why --watch -o json` lines).

The schemas are strict on our own objects (`additionalProperties: false`), so a field renamed in the
output and not in the schema (or the other way round) fails here, naming the path."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from typing import Any

import pytest
import yaml

from kubectl_rbln.app.attrs import AttrsRequest, attrs, attrs_every_namespace
from kubectl_rbln.app.check import CheckRequest, run_check
from kubectl_rbln.app.fleet import FleetRequest, check_fleet
from kubectl_rbln.app.pod_devices import PodDevicesRequest, pod_devices, probe_targets
from kubectl_rbln.app.suggest_rct import SuggestRequest, suggest_rct
from kubectl_rbln.app.topo import TopoRequest, topo
from kubectl_rbln.app.why import WhyRequest, why
from kubectl_rbln.catalog import machine_document
from kubectl_rbln.cli.dump import as_list
from kubectl_rbln.cluster.exec_probe import capture_item, from_captures
from kubectl_rbln.cluster.options import SourceOptions
from kubectl_rbln.cluster.source import load_snapshot
from kubectl_rbln.dra.model import Snapshot
from kubectl_rbln.dra.normalize import build_snapshot
from kubectl_rbln.errors import ClusterError
from testing.docs_bundles import BUNDLES
from testing.pod_devices_cases import NS as CASES_NS
from testing.pod_devices_cases import build_cases
from testing.schema_check import check, iter_json_lines
from testing.synthetic import API_VERSIONS
from testing.synthetic.scenarios import SCENARIOS
from tests.conftest import DATA, EXAMPLES

RCT = "npu-rdma"
LANGS = ("en", "ko")
COMMANDS = ("why", "why-A", "check", "attrs", "topo", "suggest-rct", "pod-devices")


def _objects() -> Iterator[tuple[str, list[dict[str, Any]], str, str]]:
    """(name, objects, namespace, pending Pod) of every scenario the tests know."""
    for scenario in SCENARIOS.values():
        ns, pod = scenario.pending_pod
        yield f"scenario/{scenario.name}", scenario.build("v1"), ns, pod
    for name, build in BUNDLES.items():
        objects = build()
        pods = [o for o in objects if o.get("kind") == "Pod"]
        pending = next((p for p in pods if p.get("status", {}).get("phase") == "Pending"), pods[0])
        meta = pending["metadata"]
        yield f"docs/{name}", objects, meta.get("namespace", "default"), meta["name"]


SOURCES = list(_objects())


def _reports(snapshot: Snapshot, ns: str, pod: str) -> dict[str, Any]:
    return {
        "why": why(snapshot, WhyRequest(pods=(f"{ns}/{pod}",))),
        "why-A": why(snapshot, WhyRequest()),
        "check": run_check(snapshot, CheckRequest(ns, RCT)),
        "attrs": attrs(snapshot, AttrsRequest(ns, RCT)),
        "topo": topo(snapshot, TopoRequest(namespace=ns)),
        "suggest-rct": suggest_rct(snapshot, SuggestRequest(ns, RCT)),
        "pod-devices": pod_devices(snapshot, PodDevicesRequest(namespace=None), []),
    }


@pytest.mark.parametrize("source", SOURCES, ids=[s[0] for s in SOURCES])
def test_every_command_of_every_scenario_conforms(source: tuple[str, list[dict[str, Any]], str, str]) -> None:
    name, objects, ns, pod = source
    snapshot = build_snapshot(copy.deepcopy(objects))
    kinds = set()
    for command, report in _reports(snapshot, ns, pod).items():
        for lang in LANGS:
            with machine_document():
                document = report.to_document(lang)
            assert check(document) == [], f"{name} {command} --lang {lang}"
            kinds.add(document["kind"])
    assert kinds == {
        "WhyReport",
        "CheckReport",
        "AttrsReport",
        "TopoReport",
        "SuggestRctReport",
        "PodDevicesReport",
    }


@pytest.mark.parametrize("source", SOURCES, ids=[s[0] for s in SOURCES])
def test_every_all_namespaces_document_conforms(source: tuple[str, list[dict[str, Any]], str, str]) -> None:
    """`check -A`, `attrs -A` and `topo -A` on every scenario: the additions (namespaces[], items'
    namespace, fits[], AttrsReportList) stay inside the schemas."""
    name, objects, ns, _ = source
    snapshot = build_snapshot(copy.deepcopy(objects))
    reports = {
        "check-A": run_check(snapshot, CheckRequest("", RCT, all_namespaces=True)),
        "attrs-A": attrs_every_namespace(snapshot, AttrsRequest(ns, RCT)),
        "topo-A": topo(snapshot, TopoRequest(namespace=ns, all_namespaces=True)),
    }
    for command, report in reports.items():
        for lang in LANGS:
            with machine_document():
                document = report.to_document(lang)
            assert check(document) == [], f"{name} {command} --lang {lang}"


@pytest.mark.parametrize("lang", LANGS)
def test_pod_devices_with_its_probe_captures_conforms(lang: str) -> None:
    """The cases bundle: every verdict pod-devices gives, each Pod probed (testing/pod_devices_cases)."""
    snapshot = build_snapshot(build_cases()[0])
    request = PodDevicesRequest(namespace=CASES_NS)
    runs = [from_captures(snapshot.captures, t) for t in probe_targets(snapshot, request)]
    with machine_document():
        document = pod_devices(snapshot, request, runs).to_document(lang)
    assert len(document["pods"]) > 10 and any(p["seen"] for p in document["pods"])
    assert check(document) == []


def test_a_fleet_with_a_dead_cluster_conforms() -> None:
    bundles = {"prod-a": EXAMPLES / "pending-decode.json", "lab-b": DATA / "replay-basic.json"}

    def load(context: str) -> tuple[Snapshot, str]:
        if context not in bundles:
            raise ClusterError(f"cannot reach the cluster of context {context}: connection refused")
        return load_snapshot(SourceOptions(filenames=(str(bundles[context]),)), None)[0], "serving"

    report = check_fleet(FleetRequest(("prod-a", "dead", "lab-b"), RCT), load)
    for lang in LANGS:
        with machine_document():
            document = report.to_document(lang)
        assert [("error" in c) for c in document["clusters"]] == [False, True, False]
        assert check(document) == []


def test_every_bundle_dump_writes_conforms() -> None:
    """A bundle as `dump` writes it (cli/dump.py `as_list`), in every resource.k8s.io version, with the
    plugin's own items (ClusterInfo, PodLog, ExecCapture); and the checked-in bundles."""
    own: set[str] = set()
    for scenario in SCENARIOS.values():
        for api_version in API_VERSIONS:
            bundle = as_list(scenario.build(api_version))
            assert check(bundle) == [], f"{scenario.name} {api_version}"
            own |= {o["kind"] for o in bundle["items"] if o["apiVersion"] == "kubectl-rbln/v1"}
    snapshot = build_snapshot(build_cases()[0])  # its captures are made by hand: re-recorded as dump does
    targets = probe_targets(snapshot, PodDevicesRequest(namespace=CASES_NS))
    captures = [capture_item(from_captures(snapshot.captures, t)) for t in targets]
    assert len({"error" in c for c in captures}) == 2  # with an exit code, and without one
    assert check(as_list(captures)) == []
    own |= {c["kind"] for c in captures}
    for path in [DATA / "replay-basic.json", *sorted(EXAMPLES.glob("*.json"))]:
        bundle = json.loads(path.read_text(encoding="utf-8"))
        assert check(bundle) == [], path.name
    assert own == {"ClusterInfo", "PodLog", "ExecCapture"}


# -- the CLI's own documents, as printed --

EXAMPLE = str(EXAMPLES / "pending-decode.json")
POD = "coder-decode-mn5b9k9cc2-l6qbl"


@pytest.mark.parametrize("fmt", ["json", "yaml"])
def test_what_each_command_prints_conforms(inprocess_rbln, fmt: str) -> None:
    load = json.loads if fmt == "json" else yaml.safe_load
    runs = {
        "WhyReport": ("why", "-f", EXAMPLE, "-n", "serving"),
        "CheckReport": ("check", "-f", EXAMPLE, "-n", "serving"),
        "AttrsReport": ("attrs", "-f", EXAMPLE, "-n", "serving"),
        "TopoReport": ("topo", "-f", EXAMPLE, "-n", "serving"),
        "SuggestRctReport": ("suggest-rct", "-f", EXAMPLE, "-n", "serving"),
        "PodDevicesReport": ("pod-devices", "-f", EXAMPLE, "-n", "serving"),
        "VersionReport": ("version", "-f", EXAMPLE),
    }
    for kind, args in runs.items():
        code, out, err = inprocess_rbln(*args, "-o", fmt)
        assert code in (0, 1), (kind, err)
        document = load(out)
        assert document["kind"] == kind
        assert check(document) == [], kind


def test_suggest_rct_keeps_its_default_and_prints_the_report_on_request(inprocess_rbln) -> None:
    code, rct_yaml, reasoning = inprocess_rbln("suggest-rct", "-f", EXAMPLE, "-n", "serving")
    template = yaml.safe_load(rct_yaml)
    assert template["kind"] == "ResourceClaimTemplate" and "verified" in reasoning.lower()
    code_json, out, err = inprocess_rbln("suggest-rct", "-f", EXAMPLE, "-n", "serving", "-o", "json")
    document = json.loads(out)
    assert (code_json, document["template"]) == (code, template)  # the same RCT, embedded
    assert err == ""  # the reasoning is the document's, not stderr's
    _, chosen, _ = inprocess_rbln("suggest-rct", "-f", EXAMPLE, "-n", "serving", "--jq", ".chosen")
    assert json.loads(chosen) == document["chosen"]
    _, recipe, _ = inprocess_rbln("suggest-rct", "--print-recipe", "--recipe", "npu-only", "-o", "json")
    assert json.loads(recipe)["kind"] == "ResourceClaimTemplate"


def test_why_watch_lines_conform(inprocess_rbln) -> None:
    code, out, _ = inprocess_rbln("why", "-f", EXAMPLE, POD, "-w", "--timeout", "0.3s", "-o", "json")
    lines = list(iter_json_lines(out))
    assert code == 1 and lines and all(line["kind"] == "WhyWatchEvent" for line in lines)
    assert [problem for line in lines for problem in check(line)] == []
    gone = {"apiVersion": lines[0]["apiVersion"], "kind": "WhyWatchEvent", "time": "10:00:00"}
    assert check({**gone, "changed": ["pod"], "found": False}) == []
    assert check({**gone, "changed": ["pod"], "found": False, "verdict": "x"}) != []


# -- strict enough to catch a renamed field --


def _why_document() -> dict[str, Any]:
    scenario = SCENARIOS["nic-no-numanode"]
    snapshot = build_snapshot(scenario.build("v1"))
    with machine_document():
        return why(snapshot, WhyRequest(pods=("/".join(scenario.pending_pod),))).to_document("en")


def test_a_renamed_field_anywhere_in_a_document_fails() -> None:
    document = _why_document()
    finding = document["pods"][0]["findings"][0]
    step = finding["fix"]["steps"][0]
    assert check(document) == []
    for where, old, new in [
        (document, "source", "sourceName"),
        (document["pods"][0], "closestNode", "closest_node"),
        (finding, "slug", "id"),
        (step, "runsOn", "runs_on"),
        (document["assumptions"]["gates"], "DRADeviceTaints", "device_taints"),
        (document["assumptions"], "kubernetesMinor", "minor"),
    ]:
        renamed = copy.deepcopy(document)
        target = _same_place(renamed, document, where)
        target[new] = target.pop(old)
        assert any(new in p or old in p for p in check(renamed)), (old, new)


def test_a_retyped_field_fails() -> None:
    document = _why_document()
    retyped = copy.deepcopy(document)
    retyped["pods"][0]["nodes"][0]["fits"] = "yes"
    assert check(retyped)
    retyped = copy.deepcopy(document)
    retyped["assumptions"]["gates"]["DRAPrioritizedList"] = "true"
    assert check(retyped)


def _same_place(copied: Any, original: Any, target: Any) -> Any:
    """The object of `copied` at the place `target` has in `original`."""
    if original is target:
        return copied
    items = original.items() if isinstance(original, dict) else enumerate(original)
    for key, value in items:
        if isinstance(value, (dict, list)):
            found = _same_place(copied[key], value, target)
            if found is not None:
                return found
    return None
