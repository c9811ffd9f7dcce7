"""The human view of `suggest-rct`: the RCT as YAML for stdout, the reasoning for stderr.

stdout carries nothing but the ResourceClaimTemplate, so `suggest-rct > fixed.yaml` and
`suggest-rct | kubectl apply -f -` work; everything a person should read goes to stderr.
"""

from __future__ import annotations

from typing import Any

import yaml

from kubectl_rbln.app.suggest_rct import SuggestRctReport, blocker_text
from kubectl_rbln.catalog import sentence
from kubectl_rbln.domain import NIC_DRIVER, RDMA_ATTR
from kubectl_rbln.remedy.suggest import Attempt, IntentChange, NoFix
from kubectl_rbln.text import strip_controls


def render_suggest_yaml(report: SuggestRctReport) -> str:
    """The suggested ResourceClaimTemplate, or nothing when no recipe fits."""
    if report.template is None:
        return ""
    return yaml.safe_dump(report.template, sort_keys=False, width=10_000)


def _blockers(attempt: Attempt, lang: str) -> str:
    texts = list(dict.fromkeys(blocker_text(b, lang) for b in attempt.blockers))
    return "; ".join(texts) or "does not fit"


def _no_fix(reason: NoFix, lang: str) -> str:
    values = reason.values
    if reason.kind == "no-rdma-nic":
        return sentence(
            "suggest-no-rdma-nic", lang, attribute=RDMA_ATTR, driver=NIC_DRIVER, nics=values["nics"]
        )
    if reason.kind == "capacity":
        return sentence("suggest-capacity", lang)
    if reason.kind == "attempt":
        attempt = values["attempt"]
        return f"{attempt.candidate.label}: {_blockers(attempt, lang)}"
    return sentence("suggest-more-variants", lang, count=values["count"])


def gives_up(recipe: str, adaptations: tuple[str, ...], lang: str = "en") -> list[str]:
    """What the suggested recipe gives up against the reference configuration, in the catalog's words."""
    keys = []
    if recipe == "numa-unaligned":
        keys.append("suggest-gives-up-alignment")
    if recipe == "npu-only":
        keys.append("suggest-gives-up-rdma")
    if any("without the pciSubsystem" in a for a in adaptations):
        keys.append("suggest-gives-up-nic-pin")
    return [sentence(key, lang, attribute=RDMA_ATTR) for key in keys or ["suggest-gives-up-nothing"]]


def change_of_intent(intent: IntentChange, lang: str = "en") -> str:
    """The line a change-of-intent suggestion must carry: which NICs to confirm, and why."""
    pins = [f"{RDMA_ATTR}=true", *(f'{a}="{strip_controls(v)}"' for a, v in intent.selected_by)]
    return sentence(
        "suggest-change-of-intent",
        lang,
        selected=", ".join(pins),
        nics=intent.nics,
        unpublished=", ".join(intent.unpublished),
        driver=NIC_DRIVER,
    )


def _assumptions(assumptions: dict[str, Any]) -> str:
    gates = assumptions.get("gates", {})
    consumable = "on" if gates.get("consumable_capacity") else "off"
    why = (assumptions.get("why") or {}).get("consumable_capacity", "the default")
    return (
        f"  simulated: Kubernetes {assumptions.get('kubernetesMinor')}, "
        f"DRAConsumableCapacity {consumable} ({why}); --k8s-version and --feature-gates override"
    )


def _explain(report: SuggestRctReport, lang: str) -> list[str]:
    """Why this recipe, what it gives up, how to apply it and the chart values to set."""
    result = report.result
    current = result.current
    ns, name = current.namespace, current.name
    where = f"{ns}/{name}" + (
        "" if current.exists else " (not in the cluster: the reference recipe's counts)"
    )
    if result.chosen is None:
        lines = [f"suggest-rct: no ResourceClaimTemplate can fix this cluster for {where}."]
        lines += [f"  - {_no_fix(reason, lang)}" for reason in result.no_fix]
        return [*lines, _assumptions(report.assumptions)]
    chosen = result.chosen.candidate
    lines = [f"suggest-rct: {chosen.recipe} for {where}, as resource.k8s.io/{result.api_version}"]
    lines += [f"  adapted: {note}" for note in chosen.adaptations]
    if chosen.intent is not None:
        lines.append(f"  {change_of_intent(chosen.intent, lang)}")
    lines += [f"  not {a.candidate.label}: {_blockers(a, lang)}" for a in result.attempts[:-1]]
    lines += [f"  gives up: {line}" for line in gives_up(chosen.recipe, chosen.adaptations, lang)]
    lines.append(
        f"  verified: the simulation of `why --with-rct` fits {', '.join(result.probes)} "
        f"on {', '.join(result.chosen.fits_on)}"
    )
    lines += [_assumptions(report.assumptions), ""]
    lines.append(
        "Kubernetes rejects an apply that changes an existing RCT's spec, so save, delete, then apply:"
    )
    lines.append(f"  kubectl rbln suggest-rct -n {ns} --rct {name} > {name}.yaml")
    if current.exists:
        lines.append(f"  kubectl -n {ns} delete resourceclaimtemplate {name}")
    lines.append(f"  kubectl -n {ns} apply -f {name}.yaml")
    lines.append("Chart values: " + " ".join(f"--set {s}" for s in report.chart_sets))
    return lines


def _values(report: SuggestRctReport) -> list[str]:
    if report.values_checks is None:
        return []
    lines = ["", f"Chart values ({report.values_path}):"]
    for check in report.values_checks:
        mark = "ok  " if check.ok else ("FAIL" if check.severity == "error" else "warn")
        lines.append(f"  {mark} {check.message}")
    return lines


def render_suggest_explanation(report: SuggestRctReport, lang: str = "en") -> str:
    """Everything a person reads (stderr): the reasoning, then the chart values' checks."""
    return "\n".join(_explain(report, lang) + _values(report)) + "\n"
