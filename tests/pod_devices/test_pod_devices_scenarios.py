"""pod-devices over every synthetic scenario, in English and Korean: every word filled.

The scenarios record no probe, so each running device Pod gets two made-up ones: one that
sees nothing (with RDS devices and a low memlock), one that sees the right counts under other
names without /dev/rsd0. Between them every pod-devices rule fires somewhere.
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
        if variant == "empty":
            stdout = format_probe_output(rds=["rblnfs0"], memlock="64", uid="2000")
        else:
            pod = snapshot.pod(target.namespace, target.pod)
            expected = expected_devices(snapshot, pod, target.container)
            hcas = [f"other_{i}" for i in range(expected.nic_count)]
            stdout = format_probe_output(
                npus=[f"rbln{90 + i}" for i in range(expected.npu_count)],
                infiniband=hcas,
                uverbs=[(f"uverbs{i}", h) for i, h in enumerate(hcas)],
                netns="N",
            )
        runs.append(ProbeRun(target, stdout=stdout, exit_code=0))
    return runs


def _finding_lines(document):
    for entry in document["pods"]:
        for finding in entry["findings"]:
            yield from [finding["title"], finding["detail"], *finding["remediation"]]


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_every_scenario_renders_filled_words(lang):
    seen_slugs = set()
    for scenario in SCENARIOS.values():
        snapshot = build_snapshot(scenario.build("v1"))
        request = PodDevicesRequest(namespace=None)
        targets = probe_targets(snapshot, request)
        for variant in ("empty", "renamed"):
            report = pod_devices(snapshot, request, _probes(snapshot, targets, variant))
            document = report.to_document(lang)
            seen_slugs |= {(f.slug, f.case) for f in report.findings}
            table = render_report(document, color=False, wide=True)
            for line in [*table.splitlines(), *to_json(document).splitlines()]:
                assert not PLACEHOLDER.search(line), f"{scenario.name}/{variant}: {line!r}"
            for line in _finding_lines(document):
                assert not BARE_DASH.search(line), f"{scenario.name}/{variant}: {line!r}"
    every_rule = {
        ("npu-count-mismatch", None), ("npu-count-mismatch", "names"), ("rsd-group-missing", None),
        ("nic-count-mismatch", None), ("nic-count-mismatch", "names"), ("rds-devices-missing", None),
        ("rds-label-missing", None), ("memlock-limit", None),
    }  # fmt: skip
    assert every_rule <= seen_slugs
