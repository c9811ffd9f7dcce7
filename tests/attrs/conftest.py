"""Run `kubectl rbln ...` in-process, as a user would, and see its exit code, stdout and stderr."""

from __future__ import annotations

import pytest


@pytest.fixture
def rbln(inprocess_rbln):
    return inprocess_rbln
