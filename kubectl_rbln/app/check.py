"""`check` as a use case: a Snapshot, a namespace and the chart's RCT in, a CheckReport out.

The checklist items reuse why's own rules (diagnose/checklist.py); every device Pod also gets
its `why`. The report prints as a table (render/check_table.py) or as the `-o json` document.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kubectl_rbln.diagnose.checklist import CheckItem, checklist_items
from kubectl_rbln.diagnose.features import allocator_features, choose_features
from kubectl_rbln.diagnose.findings import Finding, exit_code_for
from kubectl_rbln.diagnose.why import WhyOptions
from kubectl_rbln.dra.model import Snapshot
from kubectl_rbln.remedy.attach import Remedies
from kubectl_rbln.schemas import api_version

STATUSES = ("pass", "warn", "fail", "skip")


@dataclass(frozen=True, slots=True)
class CheckRequest:
    namespace: str
    rct: str  # the chart's devices.claimTemplateName
    k8s_version: str | None = None
    feature_gates: str | None = None


@dataclass(frozen=True, slots=True)
class CheckReport:
    source: str
    namespace: str
    rct: str
    assumptions: dict[str, Any]
    items: list[CheckItem]

    @property
    def findings(self) -> list[Finding]:
        return [f for item in self.items for f in item.findings]

    def exit_code(self, fail_on: str) -> int:
        """1 for a device Pod stuck at a stage of its life (as `why`), else by the findings."""
        if any(item.diagnosis is not None and item.diagnosis.stuck is not None for item in self.items):
            return 1
        return exit_code_for(self.findings, fail_on)

    def to_document(self, lang: str) -> dict[str, Any]:
        """The CheckReport document of `-o json|yaml` (docs/output-schema.md), words in `lang`."""
        statuses = [item.status for item in self.items]  # once each: 10,000 items at 5,000 nodes
        return {
            "apiVersion": api_version("CheckReport"),
            "kind": "CheckReport",
            "source": self.source,
            "namespace": self.namespace,
            "rct": self.rct,
            "assumptions": self.assumptions,
            "summary": {s: statuses.count(s) for s in STATUSES},
            "items": [item.to_dict(lang) for item in self.items],
        }


def run_check(snapshot: Snapshot, request: CheckRequest) -> CheckReport:
    """The whole checklist of the product documents, cluster-wide, plus `why` per device Pod."""
    choice = choose_features(snapshot, request.k8s_version, request.feature_gates)
    options = WhyOptions(features=allocator_features(choice), assumptions=choice.describe())
    items = checklist_items(snapshot, request.namespace, request.rct, options)
    Remedies(snapshot, options.features).attach(f for item in items for f in item.findings)
    return CheckReport(snapshot.source, request.namespace, request.rct, options.assumptions, items)
