"""A cluster written in either layout a `-f` read takes, and read the plain way, for comparisons.

Why: the line read (cluster/wire_lines.py) and the templates (cluster/wire_templates.py,
dra/slice_templates.py) must give what the plain read gives; their tests write the same objects one
item a line and as one JSON text, and compare with a Snapshot built without either."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

from kubectl_rbln.cluster.files import iter_objects
from kubectl_rbln.dra.model import Snapshot
from kubectl_rbln.dra.normalize import SnapshotBuilder
from testing.synthetic.builder import write_bundle_stream


def write_layout(objects: list[dict[str, Any]], path: Path, layout: str) -> None:
    """`objects` as a List: one item a line (`lines`, bench/gen's layout) or one JSON text."""
    if layout == "lines":
        out = io.StringIO()
        write_bundle_stream(out, objects)
        path.write_text(out.getvalue(), encoding="utf-8")
    else:
        path.write_text(json.dumps({"kind": "List", "apiVersion": "v1", "items": objects}), encoding="utf-8")


def plain_snapshot(path: Path) -> Snapshot:
    """The Snapshot of `path` read the plain way (files.py: no wire shapes, no templates)."""
    builder = SnapshotBuilder("x")
    for obj in iter_objects([str(path)]):
        builder.add(obj)
    return builder.finish()


# what two reads of one input may differ in without being read differently: the source's name and the
# indexes derived on demand (Snapshot.memo)
_NOT_READ = frozenset({"source", "derived"})


def compared_fields(*, besides: frozenset[str] = frozenset()) -> tuple[str, ...]:
    """Every field of a Snapshot two reads of one input must agree on, less `besides` (a test's own
    reason, said where it calls this); a field added to Snapshot is compared without a test edit."""
    import dataclasses  # noqa: PLC0415

    return tuple(f.name for f in dataclasses.fields(Snapshot) if f.name not in _NOT_READ | besides)
