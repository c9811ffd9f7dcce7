"""Give every finding whose fix changes the RCT the one shared remedy, proven on this cluster.

Why: why, check, attrs and suggest-rct all call this after their rules, so the same cause gets the
same commands from each. A finding asks for the remedy through its catalog words (`{rct_fix}`,
`{rct_fix_numa_unaligned}`, `{claim_fix}` for a Pod that names its ResourceClaim, `{recreate}`);
the simulation behind `suggest-rct` runs once per RCT and
recipe for the whole command, not once per Pod.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from functools import lru_cache

from kubectl_rbln.catalog import load_catalog
from kubectl_rbln.diagnose.findings import Finding
from kubectl_rbln.dra.allocator import Features
from kubectl_rbln.dra.model import Snapshot
from kubectl_rbln.remedy.rct_fix import Proof, claim_fix_lines, rct_fix_lines, recreate_lines

RCT_FIX = "rct_fix"
CLAIM_FIX = "claim_fix"
RECREATE = "recreate"
# A finding's value: the gates its fix turns on before the RCT is re-created (`DRAConsumableCapacity=true`,
# feature-gate-disabled): the proof assumes them on, and the written suggest-rct command says so.
FIX_GATES = "fix_gates"


@lru_cache(maxsize=256)
def remedy_names(slug: str, case: str | None) -> tuple[str, ...]:
    """The shared-remedy placeholders the catalog words of `slug` (or its case) use."""
    entry = load_catalog().get(slug)
    if entry is None:
        return ()
    names = entry.placeholders("en", case) | entry.placeholders("ko", case)
    return tuple(
        sorted(n for n in names if n in (RECREATE, RCT_FIX, CLAIM_FIX) or n.startswith(RCT_FIX + "_"))
    )


def recipe_of(name: str) -> str | None:
    """`rct_fix` -> the strongest recipe that fits; `rct_fix_numa_unaligned` -> numa-unaligned."""
    return None if name == RCT_FIX else name[len(RCT_FIX) + 1 :].replace("_", "-")


class Remedies:
    """The proofs of one command's run (one snapshot), computed when a finding first needs them."""

    def __init__(self, snapshot: Snapshot, features: Features) -> None:
        self.snapshot = snapshot
        self.features = features
        self._proofs: dict[tuple[str, str, str | None, str], Proof | None] = {}

    def proof(self, namespace: str, rct: str, recipe: str | None, gates: str = "") -> Proof | None:
        key = (namespace, rct, recipe, gates)
        if key not in self._proofs:
            self._proofs[key] = self._prove(namespace, rct, recipe, gates)
        return self._proofs[key]

    def _features(self, gates: str) -> Features:
        from kubectl_rbln.diagnose.features import parse_gates  # noqa: PLC0415

        return dataclasses.replace(self.features, **parse_gates(gates)) if gates else self.features

    def _prove(
        self, namespace: str, rct: str, recipe: str | None, gates: str = "", *, claim: bool = False
    ) -> Proof | None:
        from kubectl_rbln.remedy.suggest import suggest  # noqa: PLC0415 (the simulation: only when a fix needs it)

        features = self._features(gates)
        result = suggest(self.snapshot, namespace, rct, features=features, only=recipe, claim=claim)
        chosen = result.chosen
        if chosen is None:
            return None
        return Proof(chosen.candidate.recipe, chosen.candidate.label, tuple(chosen.fits_on), gates)

    def _claim_lines(self, name: str, namespace: str, claim: str, gates: str = "") -> list[str]:
        if name == RECREATE:
            return recreate_lines(self.snapshot, namespace, claim, claim=True)
        if name != CLAIM_FIX:
            return []
        key = (namespace, claim, "--claim", gates)
        if key not in self._proofs:
            self._proofs[key] = self._prove(namespace, claim, None, gates, claim=True)
        return claim_fix_lines(self.snapshot, namespace, claim, self._proofs[key], gates)

    def attach(self, findings: Iterable[Finding]) -> None:
        for finding in findings:
            names = remedy_names(finding.slug, finding.case)
            namespace, rct = finding.values.get("namespace"), finding.values.get("rct")
            if not names or not isinstance(namespace, str):
                continue
            if not isinstance(rct, str) or not rct:
                rct = ""
                if not finding.values.get("direct_claim"):
                    continue
            direct = bool(finding.values.get("direct_claim"))
            claim = finding.values.get("claim")
            gates = str(finding.values.get(FIX_GATES) or "")
            for name in names:
                if name in finding.values:
                    continue
                if direct:  # a Pod that names its claim: the claim is what changes, not the RCT
                    if isinstance(claim, str) and claim:
                        finding.values[name] = self._claim_lines(name, namespace, claim, gates)
                    continue
                if name == CLAIM_FIX:
                    continue  # the Pod runs from an RCT: `{claim_fix}` stays empty, its lines hidden
                if name == RECREATE:
                    finding.values[name] = recreate_lines(self.snapshot, namespace, rct)
                else:
                    recipe = recipe_of(name)
                    proof = self.proof(namespace, rct, recipe, gates)
                    lines = rct_fix_lines(self.snapshot, namespace, rct, proof, recipe, gates)
                    finding.values[name] = lines


def attach_remedies(findings: Iterable[Finding], snapshot: Snapshot, features: Features) -> None:
    """The shared remedy, for a command that has no Remedies of its own to reuse."""
    Remedies(snapshot, features).attach(findings)
