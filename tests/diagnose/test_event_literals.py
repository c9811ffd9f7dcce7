"""The literal prefilter of the event table never hides a match (issue 23).

Why: each table pattern is searched only when its required literal is in the text; a literal that
is not in fact required would silently drop a DRA message from every diagnosis.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kubectl_rbln.diagnose.events import _PATTERNS, required_literal


@pytest.mark.parametrize(
    ("pattern", "literal"),
    [
        (r"abc", "abc"),
        (r"ab?c", "a"),  # the optional "b" ends the run, and "c" alone is shorter
        (r"ab*cd", "cd"),
        (r"a{2}bc", "bc"),
        (r"x[^\]]yz", "yz"),  # an escaped "]" inside a class
        (r"[]x]yy", "yy"),  # a leading "]" inside a class
        (r"(?:a|b)cd", "cd"),  # an alternation inside a group
        (r"a|b", ""),  # at the top level: nothing is required
        (r"foo\.bar(?P<x>\d+)baz", "foo.bar"),
        (r"\d+ items", " items"),
    ],
)
def test_required_literal(pattern: str, literal: str) -> None:
    assert required_literal(pattern) == literal


@pytest.mark.parametrize("pattern", _PATTERNS, ids=[p.code for p in _PATTERNS])
def test_every_text_a_table_pattern_matches_holds_its_literal(pattern) -> None:
    """Texts generated from each pattern itself (hypothesis `from_regex`) all contain its literal."""

    @settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
    @given(st.from_regex(pattern.regex, fullmatch=True))
    def holds(text: str) -> None:
        assert pattern.literal in text

    holds()


def test_only_a_top_level_alternation_has_no_literal() -> None:
    assert [p.code for p in _PATTERNS if not p.literal] == ["extended-resource-unschedulable"]
