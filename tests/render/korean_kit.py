"""Every human output of every synthetic scenario, in one language: why, check, attrs, topo,
suggest-rct (its stderr explanation, also with chart values files) and pod-devices (with made-up probes, as
tests/pod_devices does), table and wide. The Korean output test reads all of it."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from kubectl_rbln.app.attrs import AttrsRequest, attrs
from kubectl_rbln.app.check import CheckRequest, run_check
from kubectl_rbln.app.pod_devices import PodDevicesRequest, pod_devices, probe_targets
from kubectl_rbln.app.suggest_rct import SuggestRequest, suggest_rct
from kubectl_rbln.app.topo import TopoRequest, topo
from kubectl_rbln.app.why import WhyRequest, why
from kubectl_rbln.cluster.exec_probe import ProbeRun, format_probe_output
from kubectl_rbln.diagnose.pod_devices import expected_devices
from kubectl_rbln.dra.normalize import build_snapshot
from kubectl_rbln.render.attrs_table import render_attrs
from kubectl_rbln.render.check_table import render_check
from kubectl_rbln.render.pod_devices_table import render_report as render_pod_devices
from kubectl_rbln.render.suggest_text import render_suggest_explanation
from kubectl_rbln.render.topo_text import render_topology
from kubectl_rbln.render.why_table import render_why
from testing.synthetic.scenarios import SCENARIOS

NS, RCT = "serving", "npu-rdma"
# Chart values files that reach every check of `suggest-rct --values` (remedy/chart_values.py).
VALUES: list[dict[str, Any]] = [
    {},
    {"devices": {"npu": {"count": 2, "mode": "devicePlugin"}, "rdma": {"mode": "devicePlugin"}}},
    {"devices": {"claimTemplateName": "other", "rdma": {"enabled": False, "mode": "devicePlugin"}}, "tp": 2},
    {"devices": {"npu": {"count": 4}}, "dp": 2, "tp": 2},
]


def _call(render: Callable[..., str], *args: Any, lang: str, **kwargs: Any) -> str:
    if "lang" in inspect.signature(render).parameters:
        kwargs["lang"] = lang
    return render(*args, **kwargs)


def _probes(snapshot: Any, targets: Any) -> list[ProbeRun]:
    runs = []
    for index, target in enumerate(targets):
        if index % 2 == 0:
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


def outputs(lang: str, names: list[str] | None = None) -> Iterator[tuple[str, str, str]]:
    """(scenario, command/format, text) for every scenario and human output."""
    for scenario in SCENARIOS.values():
        if names is not None and scenario.name not in names:
            continue
        snapshot = build_snapshot(scenario.build("v1"))
        ns, pod = scenario.pending_pod
        for wide in (False, True):
            mode = "wide" if wide else "table"
            report = why(snapshot, WhyRequest(pods=(f"{ns}/{pod}",)))
            yield scenario.name, f"why/{mode}", _call(
                render_why, report.to_document(lang), report.closest_views(snapshot),
                lang=lang, color=False, wide=wide,
            )  # fmt: skip
            checked = run_check(snapshot, CheckRequest(NS, RCT))
            yield (
                scenario.name,
                f"check/{mode}",
                _call(render_check, checked.to_document(lang), lang=lang, color=False, wide=wide),
            )
            yield (
                scenario.name,
                f"attrs/{mode}",
                render_attrs(attrs(snapshot, AttrsRequest(NS, RCT)), lang=lang, wide=wide),
            )
            drawn = topo(snapshot, TopoRequest(namespace=ns))
            yield scenario.name, f"topo/{mode}", _call(render_topology, drawn.topology, lang=lang, wide=wide)
            request = PodDevicesRequest(namespace=None)
            probed = pod_devices(snapshot, request, _probes(snapshot, probe_targets(snapshot, request)))
            yield (
                scenario.name,
                f"pod-devices/{mode}",
                _call(render_pod_devices, probed.to_document(lang), lang=lang, color=False, wide=wide),
            )
        suggested = suggest_rct(snapshot, SuggestRequest(NS, RCT))
        yield scenario.name, "suggest-rct", render_suggest_explanation(suggested, lang)
        for index, values in enumerate(VALUES):
            request = SuggestRequest(NS, RCT, values=values, values_path=f"values-{index}.yaml")
            yield (
                scenario.name,
                f"suggest-rct/values-{index}",
                render_suggest_explanation(suggest_rct(snapshot, request), lang),
            )
    if names is None:
        yield from _pod_devices_cases(lang)


def _pod_devices_cases(lang: str) -> Iterator[tuple[str, str, str]]:
    """pod-devices over testing/pod_devices_cases.py: every finding, probe failure and the health column."""
    from kubectl_rbln.cluster.exec_probe import from_captures  # noqa: PLC0415
    from testing.pod_devices_cases import build_cases  # noqa: PLC0415

    snapshot = build_snapshot(build_cases()[0])
    request = PodDevicesRequest(namespace=NS)
    runs = [from_captures(snapshot.captures, t) for t in probe_targets(snapshot, request)]
    document = pod_devices(snapshot, request, runs).to_document(lang)
    for wide in (False, True):
        mode = "wide" if wide else "table"
        yield (
            "pod-devices-cases",
            f"pod-devices/{mode}",
            _call(render_pod_devices, document, lang=lang, color=False, wide=wide),
        )


# What only the command line prints (headings naming the input, notes and hints on stderr), on the
# repository's example bundles: the same Korean checks read it.
CLI_BUNDLES = ("examples/pending-decode.json", "examples/healthy.json")
CLI_RUNS: list[list[str]] = [
    ["why", "-n", "serving"],
    ["why", "-A"],
    ["why", "-n", "servng"],
    ["check", "-n", "serving"],
    ["check"],
    ["attrs", "-n", "serving"],
    ["attrs", "-n", "serving", "-o", "wide"],
    ["topo", "-n", "serving"],
    ["suggest-rct", "-n", "serving"],
    ["suggest-rct", "-n", "serving", "--recipe", "numa-unaligned"],
]


def cli_outputs(lang: str, repo: Path) -> Iterator[tuple[str, str, str, str]]:
    """(bundle, command line, stdout, stderr) of each CLI_RUNS run on each CLI_BUNDLES bundle."""
    from click.testing import CliRunner

    from kubectl_rbln.cli.group import cli

    for bundle in CLI_BUNDLES:
        for run in CLI_RUNS:
            args = [*run, "-f", str(repo / bundle), "--no-color", "--lang", lang]
            result = CliRunner().invoke(cli, args, prog_name="kubectl rbln")
            yield bundle, " ".join(run), result.stdout, result.stderr
