"""Every human output of every synthetic scenario: why, check, attrs, topo, suggest-rct (its stderr
explanation, also with chart values files) and pod-devices (with made-up probes, as tests/pod_devices
does), table and wide. The Korean output test reads all of it in Korean; the width test
(test_width.py) draws each report once computed in both languages at 80 and 100 columns."""

from __future__ import annotations

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


Render = Callable[[str, int], str]  # (lang, width) -> the text


def outputs(lang: str, names: list[str] | None = None) -> Iterator[tuple[str, str, str]]:
    """(scenario, command/format, text) for every scenario and human output, at 100 columns."""
    for scenario, name, render in renders(names):
        yield scenario, name, render(lang, 100)


def renders(
    names: list[str] | None = None, wide: tuple[bool, ...] = (False, True)
) -> Iterator[tuple[str, str, Render]]:
    """(scenario, command/format, render) for every scenario and human output: each report is
    computed once, and `render(lang, width)` draws it in any language at any width."""
    for scenario in SCENARIOS.values():
        if names is None or scenario.name in names:
            for name, render in _scenario_renders(scenario.name, wide):
                yield scenario.name, name, render
    if names is None:
        yield from _pod_devices_cases(wide)


def _scenario_renders(name: str, wide: tuple[bool, ...]) -> list[tuple[str, Render]]:
    scenario = SCENARIOS[name]
    snapshot = build_snapshot(scenario.build("v1"))
    ns, pod = scenario.pending_pod
    why_report = why(snapshot, WhyRequest(pods=(f"{ns}/{pod}",)))
    views = why_report.closest_views(snapshot)
    checked = run_check(snapshot, CheckRequest(NS, RCT))
    attrs_report = attrs(snapshot, AttrsRequest(NS, RCT))
    topology = topo(snapshot, TopoRequest(namespace=ns)).topology
    request = PodDevicesRequest(namespace=None)
    probed = pod_devices(snapshot, request, _probes(snapshot, probe_targets(snapshot, request)))
    out: list[tuple[str, Render]] = []
    for w in wide:
        mode = "wide" if w else "table"
        out += [
            (
                f"why/{mode}",
                _documented(
                    why_report,
                    lambda doc, lang, width, w=w: render_why(
                        doc, views, lang=lang, color=False, wide=w, width=width
                    ),
                ),
            ),
            (
                f"check/{mode}",
                _documented(
                    checked,
                    lambda doc, lang, width, w=w: render_check(
                        doc, lang=lang, color=False, wide=w, width=width
                    ),
                ),
            ),
            (
                f"attrs/{mode}",
                lambda lang, width, w=w: render_attrs(attrs_report, lang=lang, wide=w, width=width),
            ),
            (
                f"topo/{mode}",
                lambda lang, width, w=w: render_topology(topology, lang=lang, wide=w, width=width),
            ),
            (
                f"pod-devices/{mode}",
                _documented(
                    probed,
                    lambda doc, lang, width, w=w: render_pod_devices(
                        doc, lang=lang, color=False, wide=w, width=width
                    ),
                ),
            ),
        ]
    suggested = suggest_rct(snapshot, SuggestRequest(NS, RCT))
    out.append(("suggest-rct", lambda lang, width: render_suggest_explanation(suggested, lang, width)))
    for index, values in enumerate(VALUES):
        request_values = SuggestRequest(NS, RCT, values=values, values_path=f"values-{index}.yaml")
        out.append((f"suggest-rct/values-{index}", _suggest(suggest_rct(snapshot, request_values))))
    return out


def _suggest(report: Any) -> Render:
    return lambda lang, width: render_suggest_explanation(report, lang, width)


def _documented(report: Any, draw: Callable[[dict[str, Any], str, int], str]) -> Render:
    """`draw(document, lang, width)` with the report's document made once per language."""
    documents: dict[str, dict[str, Any]] = {}

    def render(lang: str, width: int) -> str:
        if lang not in documents:
            documents[lang] = report.to_document(lang)
        return draw(documents[lang], lang, width)

    return render


def _pod_devices_cases(wide: tuple[bool, ...]) -> Iterator[tuple[str, str, Render]]:
    """pod-devices over testing/pod_devices_cases.py: every finding, probe failure and the health column."""
    from kubectl_rbln.cluster.exec_probe import from_captures  # noqa: PLC0415
    from testing.pod_devices_cases import build_cases  # noqa: PLC0415

    snapshot = build_snapshot(build_cases()[0])
    request = PodDevicesRequest(namespace=NS)
    runs = [from_captures(snapshot.captures, t) for t in probe_targets(snapshot, request)]
    report = pod_devices(snapshot, request, runs)
    for mode_wide in wide:
        mode = "wide" if mode_wide else "table"
        yield "pod-devices-cases", f"pod-devices/{mode}", _documented(
            report, lambda doc, lang, width, w=mode_wide: render_pod_devices(
                doc, lang=lang, color=False, wide=w, width=width
            )
        )  # fmt: skip


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
