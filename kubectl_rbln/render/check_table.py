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


def render_check(
    report: dict[str, Any], *, color: bool, wide: bool, lang: str = "en", width: int = WIDTH
) -> str:
    report = clean_tree(report)  # cluster text may carry terminal control sequences
    rows = []
    passing_pods = [i for i in report["items"] if i["id"].startswith("why ") and i["status"] == "pass"]
    folded = not wide and len(passing_pods) > MAX_PASSING_POD_ROWS
    # by identity: `item in passing_pods` compared dicts, 10,000 x 10,000 of them at 5,000 nodes (1.5 s)
    passing = {id(i) for i in passing_pods}
    for item in report["items"]:
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
    source = source_words(str(report["source"] or ""), lang)
    heading_key = "check-heading" if source else "check-heading-no-source"
    heading = sentence(heading_key, lang, namespace=report["namespace"], rct=report["rct"], source=source)
    lines = [*(wrap_width(heading, width, "", "    ") if not wide else [heading]), ""]
    lines += plain_table(rows, headers=headers, width=None if wide else width)  # CHECK, FOUND wrap
    lines += ["", sentence("check-summary", lang, **report["summary"])]
    seen: set[tuple[str, str]] = set()
    for item in report["items"]:
        for finding in item["findings"]:
            key = (finding["slug"], finding["title"])
            if finding["severity"] == "info" or key in seen:
                continue
            seen.add(key)
            lines.append("")
            lines.append(f"[{item['id']}]")
            lines += render_finding(finding, color=color, wide=wide, lang=lang, width=width)
    return "\n".join(lines) + "\n"
