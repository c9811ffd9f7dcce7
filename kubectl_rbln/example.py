"""Where the bundled example cluster lives once the package is installed (`why --example`)."""

from __future__ import annotations

from pathlib import Path

EXAMPLE_NAME = "pending-decode.json"


def example_path() -> Path:
    """The packaged copy of examples/pending-decode.json (package data, identical to the repo's)."""
    return Path(__file__).parent / "examples" / EXAMPLE_NAME  # a plain file, as catalog.yaml
