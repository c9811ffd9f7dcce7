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
from typing import TYPE_CHECKING

from kubectl_rbln.catalog import Line, Phrase, load_catalog
from kubectl_rbln.diagnose.edits import Edit
from kubectl_rbln.diagnose.findings import Finding
from kubectl_rbln.dra.allocator import Features
from kubectl_rbln.dra.model import Snapshot
from kubectl_rbln.remedy.rct_fix import (
    Proof,
    claim_fix_lines,
    edit_lines,
    rct_fix_lines,
    recreate_lines,
    template_patch_lines,
)

if TYPE_CHECKING:
    from kubectl_rbln.remedy.suggest import Candidate

RCT_FIX = "rct_fix"
CLAIM_FIX = "claim_fix"
RECREATE = "recreate"
RCT_EDIT = "rct_edit"  # the rule's exact edit (finding value `edit`, diagnose/edits.py), put in place
UNPROVEN = "rct_unproven"  # set beside {rct_fix}: true when the simulation proves no RCT
CLAIM_UNPROVEN = "claim_unproven"  # set beside {claim_fix}: true when it proves no ResourceClaim
# a shared claim becomes one claim per Pod: the owners' Pod templates name the RCT made of its spec
OWNER_PATCH = "owner_patch"
OWNER_PATCH_PREVIEW = "owner_patch_preview"
# A finding's value: the gates its fix turns on before the RCT is re-created (`DRAConsumableCapacity=true`,
# feature-gate-disabled): the proof assumes them on, and the written suggest-rct command says so.
FIX_GATES = "fix_gates"
SHARED = (RECREATE, RCT_FIX, CLAIM_FIX, RCT_EDIT, OWNER_PATCH, OWNER_PATCH_PREVIEW)


@lru_cache(maxsize=256)
def remedy_names(slug: str, case: str | None) -> tuple[str, ...]:
    """The shared-remedy placeholders the catalog words of `slug` (or its case) use."""
    entry = load_catalog().get(slug)
    if entry is None:
        return ()
    names = entry.placeholders("en", case) | entry.placeholders("ko", case)
    return tuple(sorted(n for n in names if n in SHARED or n.startswith(RCT_FIX + "_")))


def is_remedy_value(name: str) -> bool:
    """A finding value the remedies set (never the rule's): `{rct_fix}`, its recipes, and the others."""
    return name in (*SHARED, UNPROVEN, CLAIM_UNPROVEN) or name.startswith(RCT_FIX)


def wanted(finding: Finding, names: tuple[str, ...]) -> tuple[str, ...]:
    """Of `names`, those a line of the finding's words may show: a line whose conditions hold, those on
    the remedies themselves aside (a simulation is not run for a remedy the words will not print)."""
    words = load_catalog()[finding.slug].words(finding.case)
    used: set[str] = set()
    for lines in words.remediation.values():
        for line in lines:
            found = [n for n in names if "{" + n + "}" in line.text]
            if found and _may_apply(line, finding.values):
                used.update(found)
    return tuple(n for n in names if n in used)


def _may_apply(line: Line, values: dict[str, object]) -> bool:
    for part in (line.when or "").split(","):
        name = part.strip()
        bare = name.lstrip("!")
        if not name or is_remedy_value(bare):
            continue
        if bool(values.get(bare)) == name.startswith("!"):
            return False
    return True


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
        return Proof(chosen.candidate.recipe, proof_label(chosen.candidate), tuple(chosen.fits_on), gates)

    def _claim_lines(self, name: str, namespace: str, claim: str, gates: str = "") -> list[str]:
        if name in (OWNER_PATCH, OWNER_PATCH_PREVIEW):
            return template_patch_lines(
                self.snapshot, namespace, claim, claim, preview=name == OWNER_PATCH_PREVIEW
            )
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
            names = wanted(finding, names) if names else names
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
                if name == RCT_EDIT:
                    self._attach_edit(finding, namespace, claim if direct else rct, direct)
                    continue
                if direct:  # a Pod that names its claim: the claim is what changes, not the RCT
                    if isinstance(claim, str) and claim:
                        finding.values[name] = self._claim_lines(name, namespace, claim, gates)
                        if name == CLAIM_FIX:
                            finding.values[CLAIM_UNPROVEN] = (
                                self._proofs[(namespace, claim, "--claim", gates)] is None
                            )
                    continue
                if name == CLAIM_FIX:  # only a Pod that names its claim has one
                    continue
                if name == RECREATE:
                    finding.values[name] = recreate_lines(self.snapshot, namespace, rct)
                else:
                    recipe = recipe_of(name)
                    proof = self.proof(namespace, rct, recipe, gates)
                    if recipe and RCT_FIX in names and self._repeats(namespace, rct, proof, gates):
                        continue  # the alternative would put in place the recommended RCT again
                    lines = rct_fix_lines(self.snapshot, namespace, rct, proof, recipe, gates)
                    finding.values[name] = lines
                    if name == RCT_FIX:  # `when: rct_unproven`: the words may offer the unproven recipe
                        finding.values[UNPROVEN] = proof is None

    def _attach_edit(self, finding: Finding, namespace: str, name: object, claim: bool) -> None:
        edit = finding.values.get("edit")
        if isinstance(edit, Edit) and isinstance(name, str) and name:
            finding.values[RCT_EDIT] = edit_lines(self.snapshot, namespace, name, edit, claim=claim)

    def _repeats(self, namespace: str, rct: str, proof: Proof | None, gates: str = "") -> bool:
        """Is this recipe's proof the one `{rct_fix}` already puts in place (the same recipe)?"""
        strongest = self.proof(namespace, rct, None, gates)
        return proof is not None and strongest is not None and strongest.recipe == proof.recipe


def proof_label(candidate: Candidate) -> str | Phrase:
    """`numa-aligned (NIC selector ...)` as a Phrase, so a Korean fix says the adaptations in Korean."""
    if not candidate.adaptations:
        return candidate.recipe
    parts = tuple(
        a if isinstance(a, Phrase) else Phrase("fix-proof-literal", {"text": a})
        for a in candidate.adaptations
    )
    return Phrase(
        "fix-proof-label", {"recipe": candidate.recipe, "adaptations": Phrase("", parts=parts, sep="; ")}
    )


def attach_remedies(findings: Iterable[Finding], snapshot: Snapshot, features: Features) -> None:
    """The shared remedy, for a command that has no Remedies of its own to reuse."""
    Remedies(snapshot, features).attach(findings)
