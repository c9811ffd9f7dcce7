"""Every scenario prints, byte for byte, what was recorded before the last speed-up (issue 26).

Why: the linear-cost changes (a set built in place, pages by bisection) must not change one byte of
a diagnosis. A change that alters output on purpose records the new outputs:
`python -m testing.scenario_outputs --write` (and says so in its commit).
"""

from __future__ import annotations

import json

from testing.scenario_outputs import DIGESTS, differences, outputs


def test_why_and_check_print_what_was_recorded() -> None:
    recorded = json.loads(DIGESTS.read_text(encoding="utf-8"))
    current = outputs()
    assert len(current) == len(recorded) >= 4 * 60  # every scenario, four runs each
    changed = differences(recorded, current)
    assert not changed, (
        f"{len(changed)} run(s) print something else: {changed[:8]}; if meant, "
        "`python -m testing.scenario_outputs --write`"
    )
