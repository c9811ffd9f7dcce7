"""`suggest-rct` as a use case: a Snapshot and what to replace in, a proven suggestion out.

The CLI parses flags, loads the snapshot, the Pod and the values file; this function chooses the
simulated features, runs the candidates strongest first (remedy/suggest.py) and cross-checks the
chart values; render/suggest_text.py draws the YAML (stdout) and the reasoning (stderr).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kubectl_rbln.catalog import Phrase, said_in, say
from kubectl_rbln.catalog.fix import Fix, build_fix
from kubectl_rbln.diagnose.features import allocator_features, choose_features
from kubectl_rbln.diagnose.why import PodDiagnosis
from kubectl_rbln.dra.model import Pod, Snapshot
from kubectl_rbln.errors import EXIT_FINDINGS, EXIT_OK
from kubectl_rbln.recipes import chart_values
from kubectl_rbln.remedy.attach import proof_label
from kubectl_rbln.remedy.chart_values import ValuesCheck, check_values
from kubectl_rbln.remedy.rct_fix import Proof, claim_fix_lines, rct_fix_lines
from kubectl_rbln.remedy.suggest import (
    WITHOUT_SUBSYSTEM,
    Attempt,
    Candidate,
    IntentChange,
    SuggestResult,
    suggest,
)
from kubectl_rbln.schemas import api_version


@dataclass(frozen=True, slots=True)
class SuggestRequest:
    """The RCT to replace, the Pod to verify with, the recipe to restrict to and the values to check."""

    namespace: str
    rct: str
    pod: Pod | None = None
    recipe: str | None = None
    k8s_version: str | None = None
    feature_gates: str | None = None
    values: dict[str, Any] | None = None  # a chart values file, already read
    values_path: str | None = None
    claim: bool = False  # `rct` is a ResourceClaim the Pods name directly: suggest a claim (--claim)


@dataclass(frozen=True, slots=True)
class SuggestRctReport:
    """The suggestion (or why there is none), the simulated features and the chart values' checks."""

    result: SuggestResult
    assumptions: dict[str, Any]
    values_checks: list[ValuesCheck] | None = None
    values_path: str | None = None
    reasons: dict[str, Phrase] = field(default_factory=dict)  # `assumptions`' why, in any language
    fix_lines: list[str] = field(default_factory=list)  # the shared remedy (remedy/rct_fix.py), Said notes

    def fix(self, lang: str) -> Fix:
        """How to put the suggestion in place: the remedy why, check and attrs print for this RCT."""
        return build_fix([said_in(line, lang) for line in self.fix_lines], lang)

    @property
    def template(self) -> dict[str, Any] | None:
        return self.result.template

    @property
    def chart_sets(self) -> list[str]:
        """The `--set` values that go with the chosen recipe (empty without a suggestion)."""
        chosen = self.result.chosen
        if chosen is None:
            return []
        current = self.result.current
        values = chart_values(chosen.candidate.recipe, current.name, current.npu_count)
        sets = [f"devices.npu.count={current.npu_count}", f"devices.claimTemplateName={current.name}"]
        if "rdma" in values["devices"]:
            sets.append("devices.rdma.enabled=false")
        return sets

    @property
    def exit_code(self) -> int:
        """1 without a suggestion or with a values error, else 0."""
        failed = any(not c.ok and c.severity == "error" for c in self.values_checks or [])
        return EXIT_OK if self.result.template is not None and not failed else EXIT_FINDINGS

    def to_document(self, lang: str) -> dict[str, Any]:
        """A SuggestRctReport document: what was tried, what was chosen and the RCT (for tests and jq)."""
        result = self.result
        current = result.current
        return {
            "apiVersion": api_version("SuggestRctReport"),
            "kind": "SuggestRctReport",
            "rct": {"name": current.name, "namespace": current.namespace, "exists": current.exists},
            "servedVersion": result.api_version,
            "probes": result.probes,
            "attempts": [_attempt(a, lang) for a in result.attempts],
            "chosen": result.chosen.candidate.recipe if result.chosen else None,
            "givesUp": given_up(result.chosen.candidate) if result.chosen else [],
            "template": result.template,
            "noFix": [
                {"kind": r.kind, **{k: _plain(v, lang) for k, v in r.values.items()}} for r in result.no_fix
            ],
            "chartValues": self.chart_sets,
            "valuesFile": self.values_path,
            "valuesChecks": [c.to_dict() for c in self.values_checks or []],
            "assumptions": self.assumptions,
            "fix": self.fix(lang).to_dict(),
        }


# What a suggested recipe gives up against the reference configuration (the document's `givesUp`),
# and the catalog sentence that says it on stderr.
GIVES_UP: dict[str, str] = {
    "numaAlignment": "suggest-gives-up-alignment",
    "rdma": "suggest-gives-up-rdma",
    "nicModelPin": "suggest-gives-up-nic-pin",
}


def given_up(candidate: Candidate) -> list[str]:
    """What the candidate gives up (keys of GIVES_UP); empty: nothing of the reference is lost."""
    out = []
    if candidate.recipe == "numa-unaligned":
        out.append("numaAlignment")
    if candidate.recipe == "npu-only":
        out.append("rdma")
    if any(isinstance(a, Phrase) and a.key == WITHOUT_SUBSYSTEM for a in candidate.adaptations):
        out.append("nicModelPin")
    return out


def blocker_text(blocker: Any, lang: str) -> str:
    """A blocker as the user reads it: a finding's title in `lang`, or the node reason as given."""
    if isinstance(blocker, str):
        return blocker
    if isinstance(blocker, PodDiagnosis):
        return blocker.verdict(lang)
    return blocker.words(lang).title


def _attempt(attempt: Attempt, lang: str) -> dict[str, Any]:
    return {
        "recipe": attempt.candidate.recipe,
        "adaptations": [say(a, "en") for a in attempt.candidate.adaptations],
        "fitsOn": attempt.fits_on,
        "blockers": list(dict.fromkeys(blocker_text(b, lang) for b in attempt.blockers)),
        "changeOfIntent": _intent(attempt.candidate.intent),
    }


def _intent(intent: IntentChange | None) -> dict[str, Any] | None:
    """A candidate whose NIC selector changes what the recipe asked for (the operator confirms)."""
    if intent is None:
        return None
    return {
        "unpublished": list(intent.unpublished),
        "selectedBy": dict(intent.selected_by),
        "nics": intent.nics,
    }


def _plain(value: Any, lang: str) -> Any:
    return _attempt(value, lang) if isinstance(value, Attempt) else value


def suggest_rct(snapshot: Snapshot, request: SuggestRequest) -> SuggestRctReport:
    """The strongest recipe the simulation proves, and the chart values checked against it."""
    choice = choose_features(snapshot, request.k8s_version, request.feature_gates)
    result = suggest(
        snapshot,
        request.namespace,
        request.rct,
        features=allocator_features(choice),
        pod=request.pod,
        only=request.recipe,
        claim=request.claim,
    )
    checks = None
    if request.values is not None:
        current = result.current
        has_nic = result.chosen.candidate.recipe != "npu-only" if result.chosen else current.has_nic
        templates = sorted(t.name for t in snapshot.templates if t.namespace == request.namespace)
        checks = check_values(
            request.values,
            rct_name=current.name,
            npu_count=current.npu_count,
            has_nic=has_nic,
            templates_in_namespace=templates,
        )
    return SuggestRctReport(
        result,
        choice.describe(),
        checks,
        request.values_path,
        choice.phrases,
        remedy_lines(snapshot, request, result),
    )


def remedy_lines(snapshot: Snapshot, request: SuggestRequest, result: SuggestResult) -> list[str]:
    """The shared remedy for the chosen suggestion: the lines `{rct_fix}` gives why, check and attrs."""
    chosen = result.chosen
    proof = (
        Proof(chosen.candidate.recipe, proof_label(chosen.candidate), tuple(chosen.fits_on))
        if chosen
        else None
    )
    if request.claim:
        return claim_fix_lines(snapshot, request.namespace, request.rct, proof)
    return rct_fix_lines(snapshot, request.namespace, request.rct, proof, request.recipe)
