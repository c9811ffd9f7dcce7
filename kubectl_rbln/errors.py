"""Errors a user can cause, each mapped to a documented exit code.

Every command ends in one of four exit codes (README, "Exit codes"):
0 nothing to fix, 1 findings at or above --fail-on, 2 usage or input error,
3 cluster unreachable, refused or not serving what we need.
"""

from __future__ import annotations

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_USAGE = 2
EXIT_CLUSTER = 3


class RblnError(Exception):
    """An expected failure: printed as one line on stderr, never as a traceback."""

    exit_code = EXIT_USAGE

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint


class InputError(RblnError):
    """A malformed, truncated or unreadable -f file, or a bad flag value."""

    exit_code = EXIT_USAGE


class NotFoundError(RblnError):
    """A named object (pod, template) that is not in the cluster or the bundle."""

    exit_code = EXIT_USAGE


class ClusterError(RblnError):
    """The cluster could not be reached, refused us, or does not serve DRA."""

    exit_code = EXIT_CLUSTER


class KubeconfigError(ClusterError):
    """No kubeconfig, an unknown context, or a kubeconfig we cannot parse."""
