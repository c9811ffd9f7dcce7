"""Issue 25's "Must show", through the command line a user types: every scenario's `why` and `check` at
COLUMNS=80, in English and in Korean.

tests/render/test_width.py draws every report with the renderers at 80 and 100 columns; this runs the
CLI itself (`kubectl rbln why -n NS POD -f BUNDLE`, `kubectl rbln check -f BUNDLE`) with COLUMNS=80,
so what the CLI adds or passes (the width it reads, the language of `--lang`) is checked too: no line
of stdout past 80 display columns (a Hangul syllable is two) but a command to paste or one unbreakable
word (test_width's rule), and nothing cut mid-word with "…".
"""

from __future__ import annotations

from pathlib import Path

import pytest
from korean_kit import NS, RCT
from test_width import _exempt

from kubectl_rbln.render.width import display_width
from testing.synthetic.bundle import write_bundle
from testing.synthetic.scenarios import SCENARIOS

pytestmark = pytest.mark.slow
WIDTH = 80


@pytest.fixture(scope="module")
def bundles(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("width-cli")
    out = {}
    for name, scenario in SCENARIOS.items():
        out[name] = folder / f"{name}.json"
        write_bundle(str(out[name]), scenario.build("v1"))
    return out


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_every_scenario_why_and_check_fit_80_columns_through_the_cli(
    lang: str, bundles: dict[str, Path], inprocess_rbln, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", str(WIDTH))
    over, cut, runs = [], [], 0
    for name, scenario in SCENARIOS.items():
        ns, pod = scenario.pending_pod
        bundle = str(bundles[name])
        for args in (["why", "-n", ns, pod], ["check", "-n", NS, "--rct", RCT]):
            code, out, err = inprocess_rbln(*args, "-f", bundle, "--no-color", "--lang", lang)
            assert code in (0, 1), f"{name} {args}: {err}"
            runs += 1
            lines = out.splitlines()
            exempt = _exempt(lines, WIDTH)
            over += [
                f"{name} {args[0]}: {display_width(line)}: {line}"
                for index, line in enumerate(lines)
                if display_width(line) > WIDTH and index not in exempt
            ]
            cut += [f"{name} {args[0]}: {line}" for line in lines if "…" in line]
    assert runs == 2 * len(SCENARIOS) and runs > 100
    assert not over, f"{len(over)} lines over {WIDTH} columns:\n" + "\n".join(over[:30])
    assert not cut, "\n".join(cut[:20])
