"""An edit of the claim's devices that a rule knows exactly, handed to the shared remedy as a value.

Why: some fixes change one field the rule can name (a toleration for a tainted device), which no
recipe of suggest-rct writes. The rule says the edit as a jq update of the devices object (an RCT's
`spec.spec.devices`, a claim's `spec.devices`); remedy/rct_fix.py `edit_lines` makes it the same
path as the recipe remedy (write, diff, replace, re-create), so the edit is made by the tool and
never described in a comment for the user to make.
"""

from __future__ import annotations

from dataclasses import dataclass

from kubectl_rbln.catalog import Phrase


@dataclass(frozen=True, slots=True)
class Edit:
    """`program` updates the devices object; `args` are its jq variables (`--arg` or `--argjson`,
    name, value); the edited copy is `NAME.SUFFIX.json`; `note` says what the edit does."""

    program: str
    args: tuple[tuple[str, str, str], ...]
    suffix: str
    note: Phrase


# The entries of a request that take a device class (and its tolerations, selectors): v1 `exactly`
# and `firstAvailable[]`, or the request itself in v1beta1.
REQUEST_ENTRIES = '(.exactly, .firstAvailable[]?, .) | objects | select(has("deviceClassName"))'


def add_tolerations(request: str, tolerations_json: str) -> Edit:
    """Add tolerations (a JSON array) to every entry of request `request`."""
    program = f"(.requests[] | select(.name == $r) | {REQUEST_ENTRIES} | .tolerations) += $t"
    note = Phrase("device-tainted-edit-note", {"request": request})
    return Edit(program, (("--arg", "r", request), ("--argjson", "t", tolerations_json)), "tolerating", note)
