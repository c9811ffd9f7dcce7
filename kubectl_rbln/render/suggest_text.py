"""The human view of `suggest-rct`: the RCT as YAML for stdout, the reasoning for stderr.

stdout carries nothing but the ResourceClaimTemplate, so `suggest-rct > fixed.yaml` and
`suggest-rct | kubectl apply -f -` work; everything a person should read goes to stderr.
"""

from __future__ import annotations

import yaml

from kubectl_rbln.app.suggest_rct import GIVES_UP, SuggestRctReport, blocker_text, given_up
from kubectl_rbln.catalog import say, sentence
from kubectl_rbln.catalog.fix_text import fix_text_lines
from kubectl_rbln.domain import NIC_DRIVER, RDMA_ATTR
from kubectl_rbln.remedy.suggest import Attempt, Candidate, IntentChange, NoFix
from kubectl_rbln.render.why_table import fix_block
from kubectl_rbln.render.width import DEFAULT_WIDTH, display_width, ljust_width, wrap_items, wrap_width
from kubectl_rbln.text import strip_controls

WIDTH = DEFAULT_WIDTH
CHART_MARK = "\0chart\0"


FIX_MARK = "\0fix\0"
CONSUMABLE_GATE = "DRAConsumableCapacity"  # as `assumptions.gates` names it


def render_suggest_yaml(report: SuggestRctReport) -> str:
    """The suggested ResourceClaimTemplate, or nothing when no recipe fits."""
    if report.template is None:
        return ""
    return yaml.safe_dump(report.template, sort_keys=False, width=10_000)


def _blockers(attempt: Attempt, lang: str) -> str:
    texts = list(dict.fromkeys(blocker_text(b, lang) for b in attempt.blockers))
    return "; ".join(texts) or sentence("suggest-does-not-fit", lang)


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
        return f"{attempt.candidate.label_in(lang)}: {_blockers(attempt, lang)}"
    return sentence("suggest-more-variants", lang, count=values["count"])


def gives_up(candidate: Candidate, lang: str = "en") -> list[str]:
    """What the suggested recipe gives up against the reference configuration, in the catalog's words."""
    keys = [GIVES_UP[k] for k in given_up(candidate)] or ["suggest-gives-up-nothing"]
    return [sentence(key, lang, attribute=RDMA_ATTR) for key in keys]


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


def _assumptions(report: SuggestRctReport, lang: str) -> str:
    assumptions = report.assumptions
    gates = assumptions.get("gates", {})
    state = sentence("word-on" if gates.get(CONSUMABLE_GATE) else "word-off", lang)
    reason = report.reasons.get("consumable_capacity")  # phrases are keyed by the Features field
    why = (
        say(reason, lang)
        if reason is not None
        else (assumptions.get("why") or {}).get(CONSUMABLE_GATE, "the default")
    )
    return "  " + sentence(
        "suggest-simulated", lang, minor=assumptions.get("kubernetesMinor"), state=state, why=why
    )


# How remedy/suggest.py marks a Pod the simulation made up, and the sentence that says it.
MADE_UP = {
    " (as a new replica)": "suggest-new-replica",
    " (a Pod that only uses the RCT)": "suggest-probe-pod",
}


def _probe(name: str, lang: str) -> str:
    for mark, key in MADE_UP.items():
        if name.endswith(mark):
            return f"{name[: -len(mark)]} {sentence(key, lang)}"
    return name


def _explain(report: SuggestRctReport, lang: str) -> list[str]:
    """Why this recipe, what it gives up, how to apply it and the chart values to set."""
    result = report.result
    current = result.current
    ns, name = current.namespace, current.name
    where = f"{ns}/{name}" + ("" if current.exists else " " + sentence("suggest-not-in-cluster", lang))
    if result.chosen is None:
        lines = [sentence("suggest-none-fits", lang, where=where)]
        lines += [f"  - {_no_fix(reason, lang)}" for reason in result.no_fix]
        return [*lines, _assumptions(report, lang)]
    chosen = result.chosen.candidate
    lines = [sentence("suggest-chosen", lang, recipe=chosen.recipe, where=where, version=result.api_version)]
    adapted = sentence("suggest-label-adapted", lang)
    lines += [f"  {adapted} {say(note, lang)}" for note in chosen.adaptations]
    if chosen.intent is not None:
        lines.append(f"  {change_of_intent(chosen.intent, lang)}")
    lines += [
        "  "
        + sentence("suggest-not-this", lang, label=a.candidate.label_in(lang), blockers=_blockers(a, lang))
        for a in result.attempts[:-1]
    ]
    gives = sentence("suggest-label-gives-up", lang)
    lines += [f"  {gives} {line}" for line in gives_up(chosen, lang)]
    lines.append(
        "  "
        + sentence(
            "suggest-verified",
            lang,
            pods=", ".join(_probe(p, lang) for p in result.probes),
            nodes=", ".join(result.chosen.fits_on),
        )
    )
    lines += [_assumptions(report, lang), ""]
    lines.append(sentence("suggest-apply-heading", lang))
    lines += [FIX_MARK + line for line in fix_text_lines(report.fix(lang).to_dict(), lang)]
    lines.append("")
    sets = "\0".join(f"--set {s}" for s in report.chart_sets)  # each `--set x=y` stays whole
    lines.append(CHART_MARK + sentence("suggest-chart-values", lang) + "\0" + sets)
    return lines


def _values(report: SuggestRctReport, lang: str) -> list[str]:
    if report.values_checks is None:
        return []
    lines = ["", sentence("suggest-values-heading", lang, path=report.values_path)]
    for check in report.values_checks:
        mark = "ok" if check.ok else ("fail" if check.severity == "error" else "warn")
        lines.append(f"  {ljust_width(sentence(f'values-mark-{mark}', lang), 4)} {say(check.phrase, lang)}")
    return lines


def render_suggest_explanation(report: SuggestRctReport, lang: str = "en", width: int = WIDTH) -> str:
    """Everything a person reads (stderr): the reasoning, then the chart values' checks, wrapped at
    words to `width` (the width of stderr's terminal: stdout may be a file)."""
    lines = []
    for line in _explain(report, lang) + _values(report, lang):
        if line.startswith(FIX_MARK):  # the fix's own lines: its commands paste whole
            lines += fix_block([line[len(FIX_MARK) :]], lang, wide=False, width=width)[1:]
            continue
        if line.startswith(CHART_MARK):  # the chart's flags: broken between two `--set`s only
            lines += wrap_items(line[len(CHART_MARK) :].split("\0"), width, "", "    ", sep=" ")
            continue
        text = line.lstrip(" ")
        if display_width(line) <= width or text.startswith("kubectl "):  # a command pastes whole
            lines.append(line)
            continue
        indent = line[: len(line) - len(text)]
        lines += wrap_width(text, width, indent, indent + "    ")
    return "\n".join(lines) + "\n"
