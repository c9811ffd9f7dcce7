"""Machine output: -o json|yaml and --jq, the same for every command.

`--jq` runs through the `jq` package (jq.py, current jq; not the unmaintained
pyjq). Each result prints as jq prints it: one JSON document per line.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any, Protocol, TextIO

import yaml

from kubectl_rbln.catalog import machine_document
from kubectl_rbln.errors import InputError
from kubectl_rbln.render.json_text import indented_json


def to_json(document: Any) -> str:
    """`json.dumps(document, indent=2, ensure_ascii=False, default=str)`: UTF-8 text stays readable."""
    return indented_json(document, 2, default=str)


class _PlainDumper(yaml.SafeDumper):
    """No `&id001` anchors: a report that repeats a value prints it again, as kubectl does."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def to_yaml(document: Any) -> str:
    return yaml.dump(document, Dumper=_PlainDumper, sort_keys=False, allow_unicode=True, width=120)


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


def emit_document(document: Any, output: str, jq_expr: str | None, stream: TextIO | None = None) -> None:
    """Print a document as JSON or YAML, or the results of a jq filter over it."""
    out = stream or sys.stdout
    if jq_expr:
        for result in apply_jq(jq_expr, document):
            if isinstance(result, str) and output != "yaml":
                out.write(json.dumps(result, ensure_ascii=False) + "\n")
            elif output == "yaml":
                out.write(to_yaml(result))
            else:
                out.write(json.dumps(result, ensure_ascii=False) + "\n")
        return
    if output == "yaml":
        out.write(to_yaml(document))
    else:
        out.write(to_json(document) + "\n")


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
) -> None:
    """The one output switch of every command: table and wide draw `text()`, the rest the document."""
    out = stream or sys.stdout
    if jq_expr or output in ("json", "yaml"):
        with machine_document():  # evidence and the simulation's reasons stay English in a document
            document = report.to_document(lang)
        emit_document(document, output, jq_expr, stream=out)
    else:
        out.write(text())
