"""The fix blocks an operator selects: each finding's fix as the `why` table prints it, split in paths.

Why: what is pasted is what the terminal shows, indentation included, not the `-o json` steps; the
recommended path runs up to the first `# Alternative, ...:` heading and each alternative runs from
its heading to the next. The JSON steps say which commands belong to which path, so a block that
runs another path's command is caught.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kubectl_rbln.app.attrs import AttrsRequest, attrs
from kubectl_rbln.app.check import CheckRequest, run_check
from kubectl_rbln.app.why import WhyRequest, why
from kubectl_rbln.catalog import alternative_prefix
from kubectl_rbln.catalog.fix import build_fix
from kubectl_rbln.catalog.fix_text import fix_text_lines
from kubectl_rbln.dra.model import Snapshot
from kubectl_rbln.render.why_table import fix_block
from kubectl_rbln.render.width import MIN_WIDTH

RCT = "npu-rdma"  # the reference RCT `check` and `attrs` are asked about (as tests/diagnose/fix_walk.py)


@dataclass(frozen=True)
class Block:
    """One path to paste: the recommended one (label None) or an alternative."""

    label: str | None
    text: str  # the lines as printed (indented), joined

    @property
    def name(self) -> str:
        return "the recommended path" if self.label is None else f"alternative {self.label!r}"


@dataclass
class FixText:
    """One fix as printed, the findings that print it, and its JSON form."""

    lang: str
    printed: list[str]  # the lines under `fix:`, indented as the table prints them
    fix: dict[str, Any]  # Finding.to_dict()["fix"]
    slugs: list[str]  # `why:slug`, `check:slug`, ... of each finding that prints this fix

    def blocks(self) -> list[Block]:
        """The recommended path, then each alternative, split at the alternatives' headings."""
        prefix = alternative_prefix(self.lang)
        groups: list[list[str]] = [[]]
        for line in self.printed:
            if line.lstrip().startswith(prefix):
                groups.append([])
            groups[-1].append(line)
        labels = [a.get("label") or "" for a in self.fix.get("alternatives") or []]
        out = [Block(None, _text(groups[0]))]
        for index, group in enumerate(groups[1:]):
            label = labels[index] if index < len(labels) else group[0].strip()[len(prefix) :]
            out.append(Block(label, _text(group)))
        return out


def _text(lines: list[str]) -> str:
    return "\n".join(lines) + "\n"


def printed_fix(remediation: list[str], lang: str) -> list[str]:
    """The fix as the `why` table prints it (render/why_table.py), without its `fix:` label line, on
    the narrowest terminal it lays out for: there the most notes wrap, and what is pasted must still run."""
    return fix_block(remediation, lang, wide=False, width=MIN_WIDTH)[1:]


def fix_text_from_lines(
    lines: list[str], lang: str = "en", nodes: tuple[str, ...] = (), slug: str = "hand-written"
) -> FixText:
    """A fix written as the catalog writes one (commands, `# ` notes, headings), as `why` prints it."""
    fix = build_fix(lines, lang, nodes).to_dict()
    return FixText(lang, printed_fix(fix_text_lines(fix, lang), lang), fix, [slug])


def scenario_fix_texts(snapshot: Snapshot, namespace: str, langs: tuple[str, ...]) -> list[FixText]:
    """Every distinct fix `why` (the namespace's Pods), `check` and `attrs` print, in each language."""
    reports = {
        "why": why(snapshot, WhyRequest((), namespace)),
        "check": run_check(snapshot, CheckRequest(namespace, RCT)),
        "attrs": attrs(snapshot, AttrsRequest(namespace, RCT)),
    }
    seen: dict[tuple[str, str], FixText] = {}
    for source, report in reports.items():
        for finding in report.findings:
            for lang in langs:
                document = finding.to_dict(lang)
                printed = printed_fix(document.get("remediation") or [], lang)
                if not printed:
                    continue
                key = (lang, "\n".join(printed))
                text = seen.setdefault(key, FixText(lang, printed, document["fix"], []))
                text.slugs.append(f"{source}:{finding.slug}")
    return list(seen.values())
