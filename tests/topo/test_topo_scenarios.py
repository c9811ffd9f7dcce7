"""topo over every synthetic scenario, in English and Korean: every word filled, in every format."""

from __future__ import annotations

import re

import pytest

from kubectl_rbln.app.topo import TopoRequest, topo
from kubectl_rbln.dra.normalize import build_snapshot
from kubectl_rbln.render.output import to_json
from kubectl_rbln.render.topo_svg import render_svg
from kubectl_rbln.render.topo_text import render_topology
from testing.synthetic.scenarios import SCENARIOS

PLACEHOLDER = re.compile(r"(?<!\{)\{[A-Za-z_]+(:[^{}]*)?\}(?!\})")
BARE_DASH = re.compile(r"(^|\s)-(\s|$)")


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_every_scenario_draws_filled_words(lang):
    for scenario in SCENARIOS.values():
        snapshot = build_snapshot(scenario.build("v1"))
        report = topo(snapshot, TopoRequest(namespace=scenario.pending_pod[0]))
        outputs = {
            "table": render_topology(report.topology),
            "wide": render_topology(report.topology, wide=True),
            "json": to_json(report.to_document(lang)),
            "svg": render_svg(report.topology),
        }
        for name, text in outputs.items():
            for line in text.splitlines():
                assert not PLACEHOLDER.search(line), f"{scenario.name}/{name}: {line!r}"
                assert not BARE_DASH.search(line), f"{scenario.name}/{name}: {line!r}"
