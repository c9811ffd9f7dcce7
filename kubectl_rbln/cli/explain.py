"""`kubectl rbln explain SLUG`: the finding's documentation page, in the terminal, in English or Korean.

Operators read `why`'s output where they are, so the page behind each slug is one command
away. Pages come from the docs/ tree (packaged beside the code by scripts/release, or the
source checkout); without it, the catalog's own words for the slug are printed instead.
"""

from __future__ import annotations

import difflib
import json
import os
import re
import sys
from pathlib import Path

import click

from kubectl_rbln.catalog import load_catalog
from kubectl_rbln.cli.lang import chosen_lang, lang_option
from kubectl_rbln.errors import NotFoundError

PACKAGE_DIR = Path(__file__).resolve().parent.parent
TOPICS = ("bundle", "exit-codes", "output-schema", "rbac", "replay-server")  # pages of docs/
COMMANDS = ("schema",)  # printed from the package itself, no page: `explain schema [KIND]`
# package data (pyproject.toml): the read-only ClusterRole, and the opt-in exec Role of pod-devices
RBAC_DOCUMENTS = (PACKAGE_DIR / "cluster" / "clusterrole.yaml", PACKAGE_DIR / "cluster" / "exec-role.yaml")


def rbac_documents() -> str:
    """Both roles as one YAML stream; `kubectl apply -l app.kubernetes.io/component=reader|exec` takes one."""
    return "---\n".join(path.read_text(encoding="utf-8") for path in RBAC_DOCUMENTS)


def docs_roots() -> list[Path]:
    """Where a docs/ tree may be: $RBLN_DOCS_DIR, inside the package (archive), the source checkout,
    or the environment's share/ folder (pip and pipx install the pages there, see pyproject.toml)."""
    roots = [Path(os.environ["RBLN_DOCS_DIR"])] if os.environ.get("RBLN_DOCS_DIR") else []
    roots += [PACKAGE_DIR / "docs", PACKAGE_DIR.parent / "docs"]
    roots.append(Path(sys.prefix, "share", "kubectl-rbln", "docs"))
    return [root for root in roots if (root / "findings").is_dir()]


def page_path(name: str, lang: str) -> Path | None:
    """The page for a slug or topic in `lang`, else in English; None when no docs tree holds it."""
    relative = Path("findings", f"{name}.md") if name not in TOPICS else Path(f"{name}.md")
    for root in docs_roots():
        for candidate in ([root / "ko" / relative] if lang == "ko" else []) + [root / relative]:
            if candidate.is_file():
                return candidate
    return None


def catalog_page(slug: str, lang: str) -> str:
    """The catalog's words for a slug, shaped like a page: used when docs/ was not installed."""
    from kubectl_rbln.catalog import render, sentence  # noqa: PLC0415

    found = load_catalog()[slug]
    # no Pod here: each value is shown as its name (`<condition>`), its particle chosen for the name
    values = {name: f"<{name}>" for lang_ in ("en", lang) for name in found.placeholders(lang_)}
    entry = render(found, lang, **values)
    fix = "\n".join(f"    {line}" for line in entry.remediation)
    heading = (sentence("page-meaning", entry.lang), sentence("page-fix", entry.lang))
    severity = sentence("page-severity", entry.lang, severity=_severity(entry.severity, entry.lang))
    return (
        f"# {slug}\n\n{severity}\n\n{entry.title}\n\n"
        f"## {heading[0]}\n\n{entry.summary}\n\n## {heading[1]}\n\n{fix}\n\n"
        f"{sentence('page-full', entry.lang, page=entry.docs)}\n"
    )


def explainable(name: str) -> bool:
    """Whether `kubectl rbln explain name` prints a page: a finding's slug or a topic."""
    return name in TOPICS or name in load_catalog()


def _severity(severity: str, lang: str) -> str:
    from kubectl_rbln.catalog import sentence  # noqa: PLC0415

    return sentence(f"severity-{severity}", lang)


def docs_relative(path: Path) -> str:
    """`path` inside the docs tree that holds it ("findings/x.md", "ko/exit-codes.md")."""
    for root in docs_roots():
        if path.is_relative_to(root):
            return path.relative_to(root).as_posix()
    return path.name


def _unknown(name: str) -> NotFoundError:
    known = [*load_catalog(), *TOPICS, *COMMANDS]
    close = difflib.get_close_matches(name, known, n=3)
    hint = f"did you mean {', '.join(close)}?" if close else "`kubectl rbln explain` lists them"
    return NotFoundError(f'no finding or topic named "{name}"', hint=hint)


def listing(lang: str) -> str:
    """Every slug with its title in `lang`, then the topics: what `explain` alone prints."""
    catalog = load_catalog()
    width = max(len(slug) for slug in catalog)
    titles = {
        slug: re.sub(r"{(\w+)}", r"<\1>", entry.title.get(lang, entry.title["en"]))
        for slug, entry in catalog.items()
    }
    from kubectl_rbln.catalog.cli_words import cli_line  # noqa: PLC0415
    from kubectl_rbln.render.width import display_width, ljust_width  # noqa: PLC0415

    severities = {entry.severity: _severity(entry.severity, lang) for entry in catalog.values()}
    if lang == "en":  # the severity as the catalog names it, as before
        severities = {severity: severity for severity in severities}
    room = max(7, *(display_width(word) for word in severities.values()))
    rows = [
        f"{slug:<{width}}  {ljust_width(severities[entry.severity], room)}  {titles[slug]}"
        for slug, entry in catalog.items()
    ]
    topics = cli_line("topics: {topics}", lang, topics=", ".join([*TOPICS, "schema [KIND]"]))
    return "\n".join([*rows, "", topics]) + "\n"


def schema_text(kind: str | None) -> str:
    """`explain schema [KIND]`: the JSON Schema of a document kind as shipped, or the kinds there are."""
    from kubectl_rbln.schemas import COMMON, KINDS, schema  # noqa: PLC0415

    if kind is None:
        return "\n".join([*KINDS, COMMON]) + "\n"
    if kind not in (*KINDS, COMMON):
        close = difflib.get_close_matches(kind, [*KINDS, COMMON], n=3)
        hint = f"did you mean {', '.join(close)}?" if close else "`kubectl rbln explain schema` lists them"
        raise NotFoundError(f'no document kind named "{kind}"', hint=hint)
    return json.dumps(schema(kind), indent=2, ensure_ascii=False) + "\n"


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("slug", required=False)
@click.argument("kind", required=False)
@lang_option("Language of the page (default: from LC_ALL/LANG; ko_KR.UTF-8 gives Korean).")
@click.option("--no-color", is_flag=True, help="No colour (also: NO_COLOR set, or not a terminal).")
def explain(slug: str | None, kind: str | None, lang: str | None, no_color: bool) -> int:
    """Print the documentation page of a finding slug (or a topic), in English or Korean.

    \b
    kubectl rbln explain memlock-limit
    kubectl rbln explain constraint-unsatisfiable --lang ko
    kubectl rbln explain                     list every slug
    kubectl rbln explain exit-codes          also: bundle, output-schema, replay-server
    kubectl rbln explain rbac     the read-only ClusterRole, and the opt-in exec Role (docs/rbac.md)
    kubectl rbln explain schema WhyReport    the JSON Schema of a -o json document (schema: the kinds)
    """
    language = chosen_lang(lang)
    if not slug:
        sys.stdout.write(listing(language))
        return 0
    name = slug.strip().lower()
    if kind is not None and name != "schema":
        raise click.UsageError(f"explain {name} takes no second argument (only `explain schema KIND` does)")
    if name == "schema":  # the JSON Schemas, shipped in the package: what a script validates against
        sys.stdout.write(schema_text(kind))
        return 0
    if name not in load_catalog() and name not in TOPICS:
        raise _unknown(name)
    if name == "rbac":  # the roles themselves, shipped in the package, ready for `kubectl apply -l ...`
        sys.stdout.write(rbac_documents())
        return 0
    from kubectl_rbln.render.markdown_text import terminal_page  # noqa: PLC0415

    path = page_path(name, language)
    color = sys.stdout.isatty() and not no_color and "NO_COLOR" not in os.environ
    if path is not None:
        page = docs_relative(path)
        text = path.read_text(encoding="utf-8")
    elif name in TOPICS:
        sys.stdout.write(f"docs/{'ko/' if language == 'ko' else ''}{name}.md in the kubectl-rbln source\n")
        return 0
    else:
        page, text = f"findings/{name}.md", catalog_page(name, language)
    # the page's language decides its links' --lang: a page missing in Korean is the English one
    lang = "ko" if page.startswith("ko/") else "en"
    sys.stdout.write(terminal_page(text, page, lang, explainable=explainable, color=color))
    return 0
