"""The human view of `check` over many clusters: one summary table, then each cluster's checklist.

The summary is what an operator scans first (which cluster has Pending device Pods, how many
findings of each severity); a cluster that could not be checked is one line under the table
saying why, and gets no section. Each section below is exactly the single-cluster `check` output.
"""

from __future__ import annotations

from typing import Any

from kubectl_rbln.catalog import sentence
from kubectl_rbln.catalog.cli_words import error_text
from kubectl_rbln.render.check_table import render_check
from kubectl_rbln.render.columns import plain_table
from kubectl_rbln.render.sanitize import clean_tree
from kubectl_rbln.render.why_table import WIDTH
from kubectl_rbln.render.width import wrap_width


def render_fleet(
    document: dict[str, Any], *, color: bool, wide: bool, lang: str = "en", width: int = WIDTH
) -> str:
    """`document` is a FleetCheckReport (app/fleet.py `to_document`)."""
    clusters = clean_tree(document)["clusters"]
    rows = []
    for entry in clusters:
        if "error" in entry:
            continue
        found = entry["findings"]
        rows.append(
            [
                entry["context"],
                entry["devicePods"],
                entry["pending"],
                found["error"],
                found["warning"],
                found["info"],
                entry["exitCode"],
            ]
        )
    headers = sentence("fleet-columns", lang).split("|")
    failed = sum("error" in entry for entry in clusters)
    lines = [*wrap_width(sentence("fleet-heading", lang, count=len(clusters), failed=failed), width), ""]
    lines += plain_table(rows, headers=headers, width=None if wide else width) if rows else []
    for e in clusters:
        if "error" in e:
            error = error_text(e["error"], lang)  # the one-line error, in the reader's language as on stderr
            values = {"context": e["context"], "error": error, "code": e["exitCode"]}
            text = sentence("fleet-not-checked", lang, **values)
            lines += [text] if wide else wrap_width(text, width, "", "    ")
    for entry in clusters:
        if "report" not in entry:
            continue
        lines += ["", sentence("fleet-section", lang, context=entry["context"]), ""]
        checked = render_check(entry["report"], color=color, wide=wide, lang=lang, width=width)
        lines.append(checked.rstrip("\n"))
    return "\n".join(lines) + "\n"
