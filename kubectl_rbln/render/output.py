"""Machine output: -o json|yaml and --jq, the same for every command.

`--jq` runs through the `jq` package (jq.py, current jq; not the unmaintained
pyjq). Each result prints as jq prints it: one JSON document per line.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from typing import Any, Protocol, TextIO

import yaml

from kubectl_rbln.catalog import Said, machine_document
from kubectl_rbln.errors import InputError
from kubectl_rbln.render.json_text import indented_json, json_line
from kubectl_rbln.terminal import vouch

# What YAML must not carry raw: C0 but tab and newline, DEL, C1, the line and paragraph separators,
# the bidi controls. PyYAML escapes all but the bidi ones in a double-quoted scalar, and only there.
_YAML_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_BIDI = re.compile("[\u202a-\u202e\u2066-\u2069]")


def to_json(document: Any) -> str:
    """`json.dumps(document, indent=2, ensure_ascii=False, default=str)`: UTF-8 text stays readable;
    DEL, C1 and bidi controls escaped (render/json_text.py)."""
    return indented_json(document, 2, default=str)


class _PlainDumper(yaml.SafeDumper):
    """No `&id001` anchors: a report that repeats a value prints it again, as kubectl does."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def _represent_str(dumper: yaml.SafeDumper, data: str) -> yaml.ScalarNode:
    """A string with a control character is double-quoted, the one YAML style with escapes."""
    if _YAML_UNSAFE.search(data):
        return dumper.represent_scalar("tag:yaml.org,2002:str", data, style='"')
    return dumper.represent_str(data)


_PlainDumper.add_representer(str, _represent_str)
_PlainDumper.add_representer(Said, _represent_str)  # a catalog sentence, quoted as any other text


def to_yaml(document: Any) -> str:
    """The document as YAML, UTF-8 readable, no control character raw: PyYAML escapes C0, DEL and C1
    in the double quotes `_represent_str` chose, and a bidi control left raw there is one of those
    strings' characters, so `\\uXXXX` in its place is the same value."""
    text = yaml.dump(document, Dumper=_PlainDumper, sort_keys=False, allow_unicode=True, width=120)
    return _BIDI.sub(lambda m: f"\\u{ord(m.group()):04X}", text) if not text.isascii() else text


def _jq_message(exc: ValueError) -> str:
    """jq's first line, without the dangling "...column N:" that introduces its source excerpt."""
    line = str(exc).splitlines()[0] if str(exc) else "invalid expression"
    return line.removeprefix("jq: error: ").rstrip(":")


def apply_jq(expression: str, document: Any) -> list[Any]:
    import jq  # noqa: PLC0415 - only the --jq path pays for it

    try:
        program = jq.compile(expression)
    except ValueError as exc:
        raise InputError(f"--jq: {_jq_message(exc)}") from None
    try:
        return list(program.input_value(document).all())
    except ValueError as exc:
        raise InputError(f"--jq: {_jq_message(exc)}") from None


def emit_document(
    document: Any,
    output: str,
    jq_expr: str | None,
    stream: TextIO | None = None,
    raw_output: bool = False,
) -> None:
    """Print a document as JSON or YAML, or the results of a jq filter over it; `raw_output` (`-r`,
    jq's own `-r`): a string result prints as its text, without quotes, other results as JSON."""
    out = stream or sys.stdout
    if jq_expr:
        for result in apply_jq(jq_expr, document):
            if raw_output and isinstance(result, str):
                out.write(result)  # the terminal writer scans it for control sequences (terminal.py)
                out.write("\n")
            elif output == "yaml":
                out.write(to_yaml(result))
            else:
                out.write(json_line(result))
                out.write("\n")
        return
    if output == "yaml":
        out.write(to_yaml(document))
    else:
        out.write(vouch(to_json(document)))  # escaped: the terminal writer passes it without a second scan
        out.write("\n")


class Report(Protocol):
    """What every command's use case returns: a document for machines, findings for the exit code."""

    def to_document(self, lang: str) -> dict[str, Any]: ...


def emit(
    report: Report,
    *,
    output: str,
    jq_expr: str | None,
    lang: str,
    text: Callable[[], str],
    stream: TextIO | None = None,
    raw_output: bool = False,
) -> None:
    """The one output switch of every command: table and wide draw `text()`, the rest the document."""
    out = stream or sys.stdout
    if jq_expr or output in ("json", "yaml"):
        with machine_document():  # evidence and the simulation's reasons stay English in a document
            document = report.to_document(lang)
        emit_document(document, output, jq_expr, stream=out, raw_output=raw_output)
    else:
        out.write(text())
