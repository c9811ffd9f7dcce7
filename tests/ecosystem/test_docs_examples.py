"""The docs' `why` examples are the tool's own output for the scenario they name: no drift.

A page that fails here is regenerated with `python -m testing.docs_examples --write`.
"""

from __future__ import annotations

import pytest

from testing.docs_examples import drift, examples

pytestmark = pytest.mark.slow


def test_pages_have_scenario_examples() -> None:
    assert len(examples()) >= 40


def test_no_example_drifted_from_the_tool() -> None:
    drifted = drift()
    details = "\n".join(line for lines in drifted.values() for line in lines[:40])
    assert not drifted, f"run `python -m testing.docs_examples --write`:\n{details}"
