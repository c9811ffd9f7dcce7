"""`attrs` as a use case: a Snapshot and which RCT to compare in, an AttrsReport out.

The CLI parses flags and loads the snapshot; this function chooses the RCT (a file, the stored
one, else the reference recipe) and runs the diagnosis; the report prints as a table
(render/attrs_table.py) or as the `-o json` document (`to_document`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kubectl_rbln.catalog import said_in
from kubectl_rbln.diagnose.attrs import AttrsDiagnosis, examine, rct_source
from kubectl_rbln.diagnose.features import allocator_features, choose_features
from kubectl_rbln.diagnose.findings import Finding
from kubectl_rbln.diagnose.rules.layers import malformed_findings
from kubectl_rbln.dra.model import ResourceClaimTemplate, Snapshot
from kubectl_rbln.errors import NotFoundError
from kubectl_rbln.remedy.attach import Remedies
from kubectl_rbln.schemas import api_version


@dataclass(frozen=True, slots=True)
class AttrsRequest:
    """Which RCT to check: `rct` in `namespace` as stored, or `rct_file` (an RCT not applied yet).

    `rct_named`: the user named `rct` (`--rct`), so a missing one is an error; otherwise (the chart's
    default name) a missing RCT is compared with the reference recipe, the check before installing.
    """

    namespace: str
    rct: str
    rct_file: ResourceClaimTemplate | None = None
    rct_named: bool = False


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
        findings = [f.to_dict(lang) for f in d.findings]
        return {
            "apiVersion": api_version("AttrsReport"),
            "kind": "AttrsReport",
            "source": self.snapshot_source,
            "rct": d.source.to_dict(),
            "drivers": [
                {"driver": driver, "devices": devices.count, "nodes": sorted(devices.nodes)}
                for driver, devices in sorted(d.by_driver.items())
            ],
            "nodes": d.nodes,
            "required": [r.to_dict() for r in d.required],
            "advertised": d.advertised,
            "formats": [{key: said_in(value, lang) for key, value in row.items()} for row in d.formats],
            "droppedFields": [{"gate": g, "field": said_in(f, lang)} for g, f in d.drops.items()],
            "remediation": unique_fixes(findings),
            "findings": findings,
        }


def attrs(snapshot: Snapshot, request: AttrsRequest) -> AttrsReport:
    """What the RCT requires of each driver against what every device publishes."""
    named_and_missing = request.rct_named and snapshot.template(request.namespace, request.rct) is None
    if request.rct_file is None and named_and_missing:
        raise NotFoundError(missing_rct_message(snapshot, request.namespace, request.rct))
    source = rct_source(snapshot, request.namespace, request.rct, request.rct_file)
    diagnosis = examine(snapshot, source)
    if source.origin == "cluster":  # a stored RCT with an impossible count: compared, and an error
        rct = ("ResourceClaimTemplate", source.namespace, source.name)
        diagnosis.findings[:0] = malformed_findings(snapshot, *rct)
    if request.rct_file is None:  # a file not applied yet has no owners to re-create: its findings say so
        features = allocator_features(choose_features(snapshot, None, None))
        Remedies(snapshot, features).attach(diagnosis.findings)
    return AttrsReport(snapshot.source, diagnosis)


@dataclass(frozen=True, slots=True)
class AttrsReportList:
    """`attrs -A`: one AttrsReport per ResourceClaimTemplate, ordered by namespace and name."""

    snapshot_source: str
    reports: list[AttrsReport]

    @property
    def findings(self) -> list[Finding]:
        return [f for report in self.reports for f in report.findings]

    def to_document(self, lang: str) -> dict[str, Any]:
        """The AttrsReportList of `-o json|yaml`: each item is the AttrsReport `attrs -n NS --rct NAME`
        prints."""
        return {
            "apiVersion": api_version("AttrsReportList"),
            "kind": "AttrsReportList",
            "source": self.snapshot_source,
            "items": [report.to_document(lang) for report in self.reports],
        }


def attrs_every_namespace(snapshot: Snapshot, request: AttrsRequest) -> AttrsReportList:
    """`attrs -A`: every ResourceClaimTemplate stored in every namespace (with `--rct NAME` named, those
    of that name: none is an error). When no RCT is stored at all, the one report `attrs` gives without
    -A: the reference recipe, the check before installing."""
    named = request.rct if request.rct_named else None
    templates = sorted(
        (t for t in snapshot.templates if named is None or t.name == named),
        key=lambda t: (t.namespace, t.name),
    )
    if named is not None and not templates:
        raise NotFoundError(f'resourceclaimtemplate "{named}" not found in any namespace')
    if not templates:
        return AttrsReportList(snapshot.source, [attrs(snapshot, request)])
    reports = [attrs(snapshot, AttrsRequest(t.namespace, t.name, rct_named=True)) for t in templates]
    return AttrsReportList(snapshot.source, reports)


def unique_fixes(findings: list[dict[str, Any]]) -> list[str]:
    """Every finding's fix once (two keys of one RCT share the remedy), a blank line between them."""
    out: list[str] = []
    seen: set[tuple[str, ...]] = set()
    for finding in findings:
        lines = tuple(finding.get("remediation") or [])
        if lines and lines not in seen:
            seen.add(lines)
            out += ([""] if out else []) + list(lines)
    return out


def missing_rct_message(snapshot: Snapshot, namespace: str, name: str) -> str:
    """One line: the named RCT is not there, and which RCTs the namespace does have."""
    present = sorted(t.name for t in snapshot.templates if t.namespace == namespace)
    head = f'resourceclaimtemplate "{name}" not found in namespace "{namespace}"; '
    if present:
        return head + "the namespace has: " + ", ".join(present)
    return head + (
        "the namespace has no ResourceClaimTemplate (omit --rct to compare with the reference recipe)"
    )
