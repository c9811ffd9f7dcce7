"""A mistyped command is one line on stderr with a suggestion, exit 2 (issue 13)."""

from __future__ import annotations

USAGE_EXIT = 2


def test_mistyped_command_suggests_the_closest(inprocess_rbln) -> None:
    code, out, err = inprocess_rbln("wyh")
    assert code == USAGE_EXIT
    assert out == ""
    assert err == 'error: unknown command "wyh" for "kubectl rbln"; did you mean "why"?\n'


def test_mistyped_command_with_arguments(inprocess_rbln) -> None:
    code, _, err = inprocess_rbln("atrs", "-n", "serving")
    assert code == USAGE_EXIT
    assert err.splitlines() == ['error: unknown command "atrs" for "kubectl rbln"; did you mean "attrs"?']


def test_unknown_command_without_a_close_name_lists_the_commands(inprocess_rbln) -> None:
    code, _, err = inprocess_rbln("frobnicate")
    assert code == USAGE_EXIT
    assert len(err.splitlines()) == 1
    assert err.startswith('error: unknown command "frobnicate" for "kubectl rbln"; commands: why, attrs,')


def test_known_commands_still_resolve(inprocess_rbln) -> None:
    code, out, _ = inprocess_rbln("version", "--help")
    assert code == 0
    assert "Usage: kubectl rbln version" in out
