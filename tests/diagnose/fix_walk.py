"""Walk every fix the user can be shown, and tell what makes one unsafe or unreadable to paste.

Shared by the fix tests (test_fix_files, test_fix_shape): a fix is read as the `why` table prints it
(`pasteable`: explanations become `# ` lines), and split at the alternatives' headings.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from kubectl_rbln.app.attrs import AttrsRequest, attrs
from kubectl_rbln.app.check import CheckRequest, run_check
from kubectl_rbln.app.suggest_rct import SuggestRequest, suggest_rct
from kubectl_rbln.app.why import WhyRequest, why
from kubectl_rbln.catalog import CatalogEntry, alternative_prefix, load_catalog, render_entry, sentence
from kubectl_rbln.catalog.commands import CHANGE, NODE, pieces
from kubectl_rbln.catalog.fill import COMMAND_WORDS, is_command, pasteable
from kubectl_rbln.catalog.fix import build_fix
from kubectl_rbln.diagnose.findings import Finding, fix_nodes
from kubectl_rbln.dra.normalize import build_snapshot
from kubectl_rbln.render.attrs_table import render_attrs
from kubectl_rbln.render.suggest_text import render_suggest_explanation
from kubectl_rbln.render.why_table import FIX_INDENT
from testing.synthetic.scenarios import SCENARIOS

LANGS = ("en", "ko")
HEREDOC = re.compile(r"<<-?'(\w+)'")
# An alternative written as prose instead of under a labelled heading.
UNLABELLED_ALTERNATIVE = re.compile(r"^#\s*(or\b|or,|pick one|또는|둘 중)", re.IGNORECASE)
# A command inside an explanation (`...: kubectl -n x get y`, `(kubectl ...)`): not pasteable.
EMBEDDED_COMMAND = re.compile(r"(?:^|[:(]\s)(?:kubectl|sudo|lspci|ls|modprobe|crictl|systemctl|helm) -?\w")
TRAILING_COMMENT = re.compile(r"\s#\s")
BARE_DASH = re.compile(r"(?:^|\s)-(?:\s|$)")
# Issue 22: what a pasted command must never hold. A placeholder the operator would have to fill in
# (`<pod-id>`, `<deviceclass.yaml>`), a heredoc (the terminal view indents it: a pasted `EOF` never
# ends it), an interactive `kubectl edit` (a pasted block must not stop to ask).
PLACEHOLDER = re.compile(r"<[A-Za-z][\w.-]*>")
HEREDOC_ANY = re.compile(r"<<-?\s*['\"]?\w+")
PREVIEWED_VERBS = ("patch", "label", "annotate")
# Every entry is held to `paste_problems` (issue 22: a fix an on-call engineer can paste).
SWEPT = frozenset(load_catalog())  # every entry: both halves of the catalog are swept


def table_fix_lines(text: str, lang: str = "en") -> list[str]:
    """The lines of every `fix:` block of a table as pasted from the terminal (the indent taken off,
    the blank lines between its blocks kept)."""
    label = f"    {sentence('label-fix', lang)}"
    out: list[str] = []
    inside = False
    for line in text.splitlines():
        if line == label:
            inside = True
        elif inside and (line.startswith(FIX_INDENT) or not line.strip()):
            out.append(line[len(FIX_INDENT) :])
        else:
            inside = False
    return out


def prose_over(text: str, width: int) -> list[str]:
    """The lines of `text` wider than `width` that are not commands: a command to paste is never
    wrapped (a long one continues with a trailing backslash), so only prose is held to the width."""
    out = []
    continued = False
    for line in text.splitlines():
        command = continued or is_command(line.strip())
        continued = command and line.rstrip().endswith("\\")
        if not command and len(line) > width:
            out.append(line)
    return out


def shell_lines(lines: list[str]) -> list[str]:
    """The lines a shell would run as commands: comments and heredoc bodies left out."""
    out = []
    end = None
    for block in lines:
        for line in block.split("\n"):
            text = line.strip()
            if end is not None:
                end = None if text == end else end
                continue
            if text and not text.startswith("#"):
                out.append(text)
            heredoc = HEREDOC.search(text)
            if heredoc:
                end = heredoc.group(1)
    return out


def blocks(lines: list[str], lang: str) -> list[list[str]]:
    """The recommended path, then one block per alternative (each starting with its heading)."""
    prefix = alternative_prefix(lang)
    out: list[list[str]] = [[]]
    for line in lines:
        if line.startswith(prefix):
            out.append([])
        out[-1].append(line)
    return out


def shape_problems(remediation: list[str], lang: str) -> list[str]:
    """Everything that keeps a rendered fix from reading as one pasteable path, then labelled ones."""
    lines = [pasteable(str(line)) for line in remediation]
    problems = []
    parts = blocks(lines, lang)
    if not shell_lines(parts[0]):
        problems.append(f"the recommended path has no command: {parts[0]}")
    prefix = alternative_prefix(lang)
    for part in parts[1:]:
        label = part[0][len(prefix) :].rstrip(":").strip()
        if not label or not part[0].endswith(":"):
            problems.append(f"an alternative without a label: {part[0]!r}")
        if not shell_lines(part[1:]) and not any(line.startswith("#") for line in part[1:]):
            problems.append(f"an alternative that says nothing: {part[0]!r}")
    for line in lines:
        if "\n" not in line and line.startswith("#") and not line.startswith(prefix):
            if UNLABELLED_ALTERNATIVE.match(line):
                problems.append(f"an alternative without a heading: {line!r}")
            if EMBEDDED_COMMAND.search(line[1:]):
                problems.append(f"a command inside an explanation: {line!r}")
    for command in shell_lines(lines):
        first = command.split(" ", 1)[0]
        if first not in COMMAND_WORDS:
            problems.append(f"not a command (a file's lines must be a heredoc): {command!r}")
        if TRAILING_COMMENT.search(command):
            problems.append(f"prose on a command line: {command!r}")
        fed = HEREDOC.search(command) or re.search(r"\|\s*(sudo\s+)?kubectl\b", command)
        if BARE_DASH.search(command.replace(" -f -", " -f STDIN") if fed else command):
            problems.append(f"a bare '-' argument: {command!r}")
    return problems


def paste_problems(remediation: list[str], lang: str, nodes: list[str]) -> list[str]:
    """What keeps a fix from running as printed (issue 22): a placeholder or a heredoc in a command,
    `kubectl edit`, a node step with no node to run on, a patch or label with no server-side preview."""
    problems = []
    fix = build_fix(remediation, lang, nodes)
    paths = [fix.recommended, *fix.alternatives]
    for path in paths:
        commands = [c for step in path.steps for c in (step.script or step.commands)]
        for step in path.steps:
            if step.runs_on == NODE and step.node is None:
                problems.append(f"a node step with no node to run on: {list(step.script)}")
        for command in commands:
            if PLACEHOLDER.search(command):
                problems.append(f"a placeholder in a command: {command!r}")
            if HEREDOC_ANY.search(command):
                problems.append(f"a heredoc in a command: {command!r}")
            for part in pieces(command):
                if part[:2] == ["kubectl", "edit"] or (part[:1] == ["kubectl"] and "edit" in part[1:4]):
                    problems.append(f"an interactive kubectl edit: {command!r}")
        for step in path.steps:
            if step.kind != CHANGE:
                continue
            for command in step.script or step.commands:
                for part in CHAINED.split(command):
                    problems += _unpreviewed(part.strip(), commands)
    return problems


CHAINED = re.compile(r"\s*&&\s*(?:\\\n\s*)?")


def _unpreviewed(command: str, commands: list[str]) -> list[str]:
    """A kubectl patch, label or annotate whose same command with --dry-run=server is not printed."""
    words = command.split()
    rest = [w for i, w in enumerate(words[1:], 1) if not w.startswith("-") and words[i - 1] != "-n"]
    verb = rest[0] if rest else ""
    if words[:1] != ["kubectl"] or verb not in PREVIEWED_VERBS or "--dry-run" in command:
        return []
    preview = f"{command} --dry-run=server"
    if any(preview in c for c in commands):
        return []
    return [f"a {verb} without its --dry-run=server preview: {command!r}"]


def swept_catalog_fixes() -> Iterator[tuple[str, list[str], list[str]]]:
    """`catalog_fixes` of the swept entries, with the nodes their sample values name."""
    for where, values, lines in _catalog_renders():
        if where.split("/", 1)[0] in SWEPT:
            yield where, lines, fix_nodes(values)


def conditions_of(entry: CatalogEntry) -> set[str]:
    return {
        name
        for _, words in entry.all_words()
        for lines in words.remediation.values()
        for line in lines
        for name in line.conditions
    }


def sample_values(entry: CatalogEntry, truthy: set[str], direct_claim: bool) -> dict[str, Any]:
    """Values that fill every placeholder of `entry`; the `when` conditions in `truthy` hold."""
    values: dict[str, Any] = {}
    for case, words in entry.all_words():
        for lang in LANGS:
            for name in entry.placeholders(lang, case):
                values[name] = f"x-{name}"
            for line in words.remediation.get(lang, []):
                if line.each:
                    values[line.each] = [f"x-{line.each}-1", f"x-{line.each}-2"]
    for name in conditions_of(entry):
        if name not in truthy:
            values[name] = False
        elif not isinstance(values.get(name), str):
            values[name] = True
    values["direct_claim"] = direct_claim
    return values


def condition_sets(entry: CatalogEntry) -> list[set[str]]:
    """None; all but the `*_only` narrowings (which exclude each other); each narrowing by itself."""
    names = conditions_of(entry) - {"direct_claim"}
    only = {name for name in names if name.endswith("_only")}
    return [set(), names - only, *({name} for name in sorted(only))]


def catalog_fixes() -> Iterator[tuple[str, list[str]]]:
    """Every catalog fix (each slug and case, both languages) under several sets of conditions."""
    for where, _, lines in _catalog_renders():
        yield where, lines


def _catalog_renders() -> Iterator[tuple[str, dict[str, Any], list[str]]]:
    for slug, entry in load_catalog().items():
        for case, _ in entry.all_words():
            for lang in LANGS:
                for truthy in condition_sets(entry):
                    for direct in (False, True):
                        values = sample_values(entry, truthy, direct)
                        where = f"{slug}/{case}/{lang}/when={sorted(truthy)}/direct={direct}"
                        yield where, values, render_entry(entry, lang, values, case).remediation


def scenario_findings(name: str) -> list[Finding]:
    """Every finding `why`, `check` and `attrs` raise on scenario `name` (the shared remedies attached)."""
    scenario = SCENARIOS[name]
    snapshot = build_snapshot(scenario.build("v1"))
    namespace = scenario.pending_pod[0]
    reports = [
        why(snapshot, WhyRequest((), namespace)),
        run_check(snapshot, CheckRequest(namespace, "npu-rdma")),
        attrs(snapshot, AttrsRequest(namespace, "npu-rdma")),
    ]
    return [f for report in reports for f in report.findings]


def scenario_fixes(name: str, lang: str) -> list[tuple[str, list[str]]]:
    """The fixes of every finding `why`, `check` and `attrs` raise on scenario `name`, in `lang`."""
    return [(f.slug, list(f.words(lang).remediation)) for f in scenario_findings(name)]


def scenario_paste_fixes(name: str, lang: str) -> list[tuple[str, list[str], list[str]]]:
    """`scenario_fixes`, each with the nodes its node steps run on."""
    return [
        (f.slug, list(f.words(lang).remediation), fix_nodes(f.values))
        for f in scenario_findings(name)
        if f.slug in SWEPT
    ]


def pod_devices_paste_fixes(lang: str) -> list[tuple[str, list[str], list[str]]]:
    """The fixes `pod-devices` gives on its cases bundle (testing/pod_devices_cases), with their nodes."""
    from kubectl_rbln.app.pod_devices import PodDevicesRequest, pod_devices, probe_targets  # noqa: PLC0415
    from kubectl_rbln.cluster.exec_probe import from_captures  # noqa: PLC0415
    from testing.pod_devices_cases import NS, build_cases  # noqa: PLC0415

    snapshot = build_snapshot(build_cases()[0])
    request = PodDevicesRequest(namespace=NS)
    runs = [from_captures(snapshot.captures, t) for t in probe_targets(snapshot, request)]
    report = pod_devices(snapshot, request, runs)
    return [(f.slug, list(f.words(lang).remediation), fix_nodes(f.values)) for f in report.findings]


def scenario_command_texts(name: str, lang: str) -> list[tuple[str, list[str]]]:
    """What `attrs` and `suggest-rct` print for scenario `name`: their own fix commands included."""
    scenario = SCENARIOS[name]
    snapshot = build_snapshot(scenario.build("v1"))
    namespace = scenario.pending_pod[0]
    out = [("attrs", render_attrs(attrs(snapshot, AttrsRequest(namespace, "npu-rdma")), lang=lang))]
    suggested = suggest_rct(snapshot, SuggestRequest(namespace, "npu-rdma"))
    out.append(("suggest-rct", render_suggest_explanation(suggested, lang)))
    return [(where, text.splitlines()) for where, text in out]
