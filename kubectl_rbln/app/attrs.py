"""`attrs` as a use case: a Snapshot and which RCT to compare in, an AttrsReport out.

The CLI parses flags and loads the snapshot; this function chooses the RCT (a file, the stored
one, else the reference recipe) and runs the diagnosis; the report prints as a table
(render/attrs_table.py) or as the `-o json` document (`to_document`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kubectl_rbln.diagnose.attrs import AttrsDiagnosis, examine, node_of, rct_source
from kubectl_rbln.diagnose.findings import SCHEMA_VERSION, Finding
from kubectl_rbln.dra.model import ResourceClaimTemplate, Snapshot


@dataclass(frozen=True, slots=True)
class AttrsRequest:
    """Which RCT to check: `rct` in `namespace` as stored, or `rct_file` (an RCT not applied yet)."""

    namespace: str
    rct: str
    rct_file: ResourceClaimTemplate | None = None


@dataclass(frozen=True, slots=True)
class AttrsReport:
    """The outcome of `attrs`: the diagnosis, and the snapshot's source for the document."""

    snapshot_source: str
    diagnosis: AttrsDiagnosis

    @property
    def findings(self) -> list[Finding]:
        return self.diagnosis.findings

    def to_document(self, lang: str) -> dict[str, Any]:
        """The AttrsReport document of `-o json|yaml` (docs/output-schema.md), findings in `lang`."""
        d = self.diagnosis
        return {
            "apiVersion": SCHEMA_VERSION,
            "kind": "AttrsReport",
            "source": self.snapshot_source,
            "rct": d.source.to_dict(),
            "drivers": [
                {"driver": driver, "devices": len(devices), "nodes": sorted({node_of(x) for x in devices})}
                for driver, devices in sorted(d.by_driver.items())
            ],
            "nodes": d.nodes,
            "required": [r.to_dict() for r in d.required],
            "advertised": d.advertised,
            "formats": d.formats,
            "droppedFields": [{"gate": g, "field": f} for g, f in d.drops.items()],
            "remediation": d.remediation,
            "findings": [f.to_dict(lang) for f in d.findings],
        }


def attrs(snapshot: Snapshot, request: AttrsRequest) -> AttrsReport:
    """What the RCT requires of each driver against what every device publishes."""
    source = rct_source(snapshot, request.namespace, request.rct, request.rct_file)
    return AttrsReport(snapshot.source, examine(snapshot, source))
