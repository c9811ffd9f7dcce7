"""The serving stack's names are spelled in one runtime module: kubectl_rbln/domain.py.

A renamed DeviceClass, driver, label or attribute must be a one-line change; this reads every string
literal of the package (f-string parts included) and names any module that spells one again.
Docstrings and comments are prose and do not count.
"""

from __future__ import annotations

import ast
from pathlib import Path

import kubectl_rbln.domain as domain

PACKAGE = Path(domain.__file__).resolve().parent


def _names() -> dict[str, str]:
    """Module-level string constants of domain.py that are names (no space: not a CEL expression)."""
    return {
        key: value
        for key, value in vars(domain).items()
        if key.isupper() and isinstance(value, str) and " " not in value
    }


def _literals(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return {
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
    }


def test_domain_has_the_stacks_names() -> None:
    names = set(_names().values())
    assert {"npu.rebellions.ai", "dra.net", "dranet", "npu-rdma", "rebellions.ai/rds.present"} <= names


def test_each_name_is_spelled_only_in_domain() -> None:
    names = _names()
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "domain.py" and path.parent == PACKAGE:
            continue
        literals = _literals(path)
        for key, value in names.items():
            if any(value == text or f"{value}/" in text or f"{value}=" in text for text in literals):
                offenders.append(f"{path.relative_to(PACKAGE)} spells {key} ({value!r})")
    assert not offenders, "\n".join(offenders)
