"""What the normalizers share to intern wire text, and the fallback when a text does not fit its shape.

Content interning (issue 16): sub-trees that repeat byte for byte across objects are normalized
once per distinct text and the result is shared. A device model's capacities repeat on every node,
claims generated from one template carry one spec, and a controller's Pods carry one template.
Nothing mutates what is shared after normalization. Each table lives beside its normalizer
(normalize_slices, normalize_claims, normalize_pods); bounded against hostile input (which only
misses); `SnapshotBuilder.finish` (dra/normalize.py) empties them all.
"""

from __future__ import annotations

from typing import Any

import msgspec

_INTERNED_MAX = 1 << 12  # entries per table
# the last wire texts seen and their value: a list is sorted by namespace and name, so a controller's
# Pods (and their claims) come one after another, and comparing bytes is cheaper than hashing them
_LAST: dict[str, tuple[Any, Any]] = {}


def _plain(raw: msgspec.Raw) -> Any:
    """A sub-tree that does not fit its wire shape, decoded as `json.loads` would (None: too deep)."""
    try:
        return msgspec.json.decode(raw)
    except (msgspec.DecodeError, RecursionError):
        return None
