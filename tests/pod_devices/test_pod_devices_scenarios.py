"""pod-devices over every synthetic scenario, in English and Korean: every word filled.

The scenarios record no probe, so each running device Pod gets made-up ones: one that sees
nothing (with RDS devices and a low memlock), one that sees the right counts under other names
without /dev/rsd0 (in the v2 format and in the old v1 one), one whose NICs are in the Pod but
whose RDMA devices are DOWN with uverbs devices that do not open, one without uverbs devices,
each with one device reported Unhealthy. Between them every pod-devices rule fires somewhere.
"""

from __future__ import annotations

import re

import pytest

from kubectl_rbln.app.pod_devices import PodDevicesRequest, pod_devices, probe_targets
from kubectl_rbln.cluster.exec_probe import ProbeRun, format_probe_output
from kubectl_rbln.diagnose.pod_devices import expected_devices
from kubectl_rbln.dra.normalize import build_snapshot
from kubectl_rbln.render.output import to_json
from kubectl_rbln.render.pod_devices_table import render_report
from testing.synthetic.scenarios import SCENARIOS

PLACEHOLDER = re.compile(r"(?<!\{)\{[A-Za-z_]+(:[^{}]*)?\}(?!\})")
BARE_DASH = re.compile(r"(^|\s)-(\s|$)")


def _probes(snapshot, targets, variant):
    runs = []
    for target in targets:
        pod = snapshot.pod(target.namespace, target.pod)
        expected = expected_devices(snapshot, pod, target.container)
        nics = expected.nic_devices
        if variant == "empty":
            stdout = format_probe_output(rds=["rblnfs0"], memlock="64", uid="2000")
        elif variant in ("renamed", "renamed-v1", "short-v1"):  # short: an old capture, one HCA missing
            hcas = [f"other_{i}" for i in range(expected.nic_count - (variant == "short-v1"))]
            stdout = format_probe_output(
                interfaces=[(f"net{i}", "up", "9000", n.pci) for i, n in enumerate(nics)],
                npus=[f"rbln{90 + i}" for i in range(expected.npu_count)],
                infiniband=hcas,
                uverbs=[(f"uverbs{i}", h) for i, h in enumerate(hcas)],
                netns="N",
                version=1 if variant.endswith("-v1") else 2,
            )
        else:  # "down": every NIC in the Pod with its HCA, ports DOWN; uverbs denied or absent
            stdout = format_probe_output(
                interfaces=[(n.if_name, "up", "9000", n.pci) for n in nics],
                rdma=[(f"hca{i}", "DOWN", "Ethernet", n.pci, f"uverbs{i}") for i, n in enumerate(nics)],
                uverbs=[(f"uverbs{i}", f"hca{i}", "no") for i in range(len(nics))]
                if variant == "down"
                else [],
                npus=expected.npus,
                rsd=["rsd0"],
            )
        runs.append(ProbeRun(target, stdout=stdout, exit_code=0))
    return runs


def _unhealthy(objects):
    """Every running Pod's first container reports one allocated device Unhealthy (KEP-4680 shape)."""
    for obj in objects:
        if obj.get("kind") == "Pod" and obj["status"].get("containerStatuses"):
            status = obj["status"]["containerStatuses"][0]
            status["allocatedResourcesStatus"] = [
                {
                    "name": "claim:npu-rdma",
                    "resources": [{"resourceID": "npu.rebellions.ai/n/rbln0", "health": "Unhealthy"}],
                }
            ]
    return objects


def _finding_lines(document):
    for entry in document["pods"]:
        for finding in entry["findings"]:
            yield from [finding["title"], finding["detail"], *finding["remediation"]]


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_every_scenario_renders_filled_words(lang):
    seen_slugs = set()
    for scenario in SCENARIOS.values():
        snapshot = build_snapshot(_unhealthy(scenario.build("v1")))
        request = PodDevicesRequest(namespace=None)
        targets = probe_targets(snapshot, request)
        for variant in ("empty", "renamed", "renamed-v1", "short-v1", "down", "no-uverbs"):
            report = pod_devices(snapshot, request, _probes(snapshot, targets, variant))
            document = report.to_document(lang)
            seen_slugs |= {(f.slug, f.case) for f in report.findings}
            table = render_report(document, color=False, wide=True)
            for line in [*table.splitlines(), *to_json(document).splitlines()]:
                assert not PLACEHOLDER.search(line), f"{scenario.name}/{variant}: {line!r}"
            for line in _finding_lines(document):
                assert not BARE_DASH.search(line), f"{scenario.name}/{variant}: {line!r}"
    every_rule = {
        ("npu-count-mismatch", None), ("rsd-group-missing", None),
        ("nic-count-mismatch", None), ("nic-count-mismatch", "names"), ("nic-count-mismatch", "extended"),
        ("rds-devices-missing", None),
        ("rds-label-missing", None), ("memlock-limit", None),
        ("npu-missing", None), ("npu-not-allocated", None), ("nic-not-in-pod", None),
        ("rdma-device-missing", None), ("uverbs-missing", None), ("uverbs-missing", "denied"),
        ("rdma-port-down", None), ("device-unhealthy", None),
    }  # fmt: skip
    assert every_rule <= seen_slugs
