"""The human view of `check`: one row per checklist item, fitted to the width (-o wide adds EXPECTED).

The failing items' findings follow the table, rendered as `why` renders them, so the fix is on
the same screen as the item that needs it.
"""

from __future__ import annotations

from typing import Any

from kubectl_rbln.catalog import sentence
from kubectl_rbln.render.columns import plain_table
from kubectl_rbln.render.sanitize import clean_tree
from kubectl_rbln.render.why_table import WIDTH, render_finding
from kubectl_rbln.render.width import wrap_width

STATUS = {"pass": "pass", "warn": "WARN", "fail": "FAIL", "skip": "n/a"}  # English; status() for others


MAX_PASSING_POD_ROWS = 20  # more device Pods with nothing to fix fold into one row (-o wide lists them)


def source_words(source: str, lang: str) -> str:
    """Where the objects came from (`files a.json` / `context prod`: the document's English) in `lang`."""
    kind, _, names = source.partition(" ")
    return sentence(f"source-{kind}", lang, names=names) if kind in ("files", "context") and names else source


def status(name: str, lang: str) -> str:
    return sentence(f"check-status-{name}", lang)


def _table(items: list[dict[str, Any]], *, wide: bool, lang: str, width: int) -> list[str]:
    """The checklist table of `items` (passing Pods beyond 20 folded into one row unless -o wide)."""
    rows = []
    passing_pods = [i for i in items if i["id"].startswith("why ") and i["status"] == "pass"]
    folded = not wide and len(passing_pods) > MAX_PASSING_POD_ROWS
    # by identity: `item in passing_pods` compared dicts, 10,000 x 10,000 of them at 5,000 nodes (1.5 s)
    passing = {id(i) for i in passing_pods}
    for item in items:
        if folded and id(item) in passing:
            continue
        label = item["id"] if not item["id"].startswith("why ") else "why"
        row = [label, item["title"], status(item["status"], lang)]
        if wide:
            row.append(item["expected"])
        row.append(item["found"])
        rows.append(row)
    if folded:
        rows.append(
            [
                "why",
                sentence("check-folded-pods", lang, count=len(passing_pods)),
                status("pass", lang),
                sentence("check-folded-found", lang),
            ]
        )
    number, check, result, expected, found = sentence("check-columns", lang).split("|")
    headers = [number, check, result, *([expected] if wide else []), found]
    return plain_table(rows, headers=headers, width=None if wide else width)  # CHECK, FOUND wrap


def _heading(report: dict[str, Any], lang: str, wide: bool, width: int) -> list[str]:
    source = source_words(str(report["source"] or ""), lang)
    values: dict[str, Any] = {"namespace": report["namespace"], "rct": report["rct"], "source": source}
    key = "check-heading"
    if report.get("allNamespaces"):
        names = [entry["namespace"] for entry in report["namespaces"]]
        key = "check-heading-all"
        values |= {"count": len(names), "namespaces": ", ".join(names) or "-"}
    heading = sentence(key if source else f"{key}-no-source", lang, **values)
    lines = wrap_width(heading, width, "", "    ") if not wide else [heading]
    if report.get("selector"):
        lines.append(sentence("check-selector-note", lang, selector=report["selector"]))
    return lines


def _sections(report: dict[str, Any], *, wide: bool, lang: str, width: int) -> list[str]:
    """`check -A`: the cluster's items under their heading, then one table per namespace."""
    items = report["items"]
    lines = [
        sentence("check-section-cluster", lang),
        *_table([i for i in items if "namespace" not in i], wide=wide, lang=lang, width=width),
    ]
    for entry in report["namespaces"]:
        own = [i for i in items if i.get("namespace") == entry["namespace"]]
        title = sentence(
            "check-section-namespace",
            lang,
            namespace=entry["namespace"],
            rct=entry["rct"],
            pods=entry["devicePods"],
            stuck=entry["stuckPods"],
        )
        lines += ["", title, *_table(own, wide=wide, lang=lang, width=width)]
    if not report["namespaces"]:
        key = "check-none-selector" if report.get("selector") else "check-none-all"
        lines += ["", sentence(key, lang, rct=report["rct"], selector=report.get("selector", ""))]
    return lines


def render_check(
    report: dict[str, Any], *, color: bool, wide: bool, lang: str = "en", width: int = WIDTH
) -> str:
    report = clean_tree(report)  # cluster text may carry terminal control sequences
    lines = [*_heading(report, lang, wide, width), ""]
    if report.get("allNamespaces"):
        lines += _sections(report, wide=wide, lang=lang, width=width)
    else:
        lines += _table(report["items"], wide=wide, lang=lang, width=width)
        if report.get("selector") and not any(i["id"].startswith("why ") for i in report["items"]):
            lines += ["", sentence("check-none-selector", lang, selector=report["selector"])]
    lines += ["", sentence("check-summary", lang, **report["summary"])]
    seen: set[tuple[str, str]] = set()
    for item in report["items"]:
        for finding in item["findings"]:
            key = (finding["slug"], finding["title"])
            if finding["severity"] == "info" or key in seen:
                continue
            seen.add(key)
            where = (
                f"{item['namespace']}: {item['id']}"
                if "namespace" in item and not item["id"].startswith("why ")
                else item["id"]
            )
            lines.append("")
            lines.append(f"[{where}]")
            lines += render_finding(finding, color=color, wide=wide, lang=lang, width=width)
    return "\n".join(lines) + "\n"
