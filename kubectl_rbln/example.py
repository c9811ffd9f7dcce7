"""Where the bundled example cluster lives once the package is installed (`why --example`)."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

EXAMPLE_NAME = "pending-decode.json"


def example_path() -> Path:
    """The packaged copy of examples/pending-decode.json (package data, identical to the repo's)."""
    return Path(str(files("kubectl_rbln") / "examples" / EXAMPLE_NAME))
