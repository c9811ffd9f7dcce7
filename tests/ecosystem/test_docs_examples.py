"""The docs' examples are the tool's own output for the run they show: no drift.

A page that fails here is regenerated with `python -m testing.docs_examples --write`.
"""

from __future__ import annotations

import re

import pytest

from testing.docs_bundles import BUNDLES
from testing.docs_examples import REPO, SHAPES, drift, examples
from testing.docs_pod_devices import examples as pod_devices_examples
from testing.synthetic.scenarios import SCENARIOS

pytestmark = pytest.mark.slow


def test_pages_have_scenario_examples() -> None:
    found = examples()
    assert len([e for e in found if e.command == "why"]) >= 40
    for command in SHAPES:  # every registered command shows a real run, in English and in Korean
        pages = {e.page.relative_to(REPO).as_posix() for e in found if e.command == command}
        assert f"docs/commands/{command}.md" in pages, command
        assert f"docs/ko/commands/{command}.md" in pages, command
    korean = [e for e in found if e.page.relative_to(REPO).as_posix().startswith("docs/ko/")]
    assert korean and all(e.args[-2:] == ["--lang", "ko"] for e in korean)


def test_command_pages_show_no_hand_written_output() -> None:
    """In the pages of the registered commands, a block that shows a `$ kubectl rbln` run is generated."""
    generated = {(e.page, e.start) for e in examples()}
    hand_written = []
    for command in SHAPES:
        for folder in ("docs/commands", "docs/ko/commands"):
            page = REPO / folder / f"{command}.md"
            lines = page.read_text(encoding="utf-8").split("\n")
            for index, line in enumerate(lines):
                if re.match(r"^\$ kubectl rbln ", line) and (page, index) not in generated:
                    hand_written.append(f"{page.relative_to(REPO)}:{index + 1}: {line}")
    assert not hand_written, "\n".join(hand_written)


def test_no_example_drifted_from_the_tool() -> None:
    drifted = drift()
    details = "\n".join(line for lines in drifted.values() for line in lines[:40])
    assert not drifted, f"run `python -m testing.docs_examples --write`:\n{details}"


def test_finding_pages_show_no_hand_written_output() -> None:
    """Every `$ kubectl rbln` run in a finding page is generated: from a scenario, from a hand-made
    bundle of testing/docs_bundles.py (a scenario plus the change its page names), or from
    pod-devices-cases; a new hand-made bundle is registered there, so it cannot go stale."""
    generated = {(e.page, e.start) for e in examples()} | {(e.page, e.start) for e in pod_devices_examples()}
    hand_written = []
    for folder in ("docs/findings", "docs/ko/findings"):
        for page in sorted((REPO / folder).glob("*.md")):
            lines = page.read_text(encoding="utf-8").split("\n")
            for index, line in enumerate(lines):
                if re.match(r"^\$ kubectl rbln ", line) and (page, index) not in generated:
                    hand_written.append(f"{page.relative_to(REPO)}:{index + 1}: {line}")
    assert not hand_written, "\n".join(hand_written)


def test_hand_made_bundles_are_not_scenarios() -> None:
    """A bundle name means one cluster: a hand-made one never shadows a scenario of the same name."""
    assert not set(BUNDLES) & set(SCENARIOS)
    used = {e.scenario for e in examples()} | {e.bundle for e in pod_devices_examples()}
    assert set(BUNDLES) <= used, f"registered but shown by no page: {sorted(set(BUNDLES) - used)}"
