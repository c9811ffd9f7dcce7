"""The command line every generator of checked-in files shares: `--check` (drift fails) or `--write`."""

from __future__ import annotations

import argparse


def write_wanted(argv: list[str] | None, doc: str | None) -> bool:
    """True for `--write`, False for `--check`; one of them is required, never both."""
    parser = argparse.ArgumentParser(description=(doc or "").splitlines()[0] if doc else None)
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true", help="fail when a checked-in file has drifted")
    mode.add_argument("--write", action="store_true", help="write the files again")
    return bool(parser.parse_args(argv).write)
