"""The command line in Korean (issue 25): `--help`, click's usage errors and every error of the plugin,
with `--lang ko` or a Korean locale, hold the rules of tests/render/test_korean_catalog.py: no English
prose outside code, names and values, and the particles the values take.

English stays click's, byte for byte: a Korean translation never leaks into an English run.
"""

from __future__ import annotations

import ast
import inspect
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import click
import pytest

from kubectl_rbln.catalog.cli_words import error_text, has_help, language_of_arguments
from kubectl_rbln.cli.group import COMMANDS, cli
from kubectl_rbln.render.width import display_width

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "render"))
from test_korean_catalog import latin_words  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
ERRORS = {"InputError", "NotFoundError", "KubeconfigError", "ClusterError", "RblnError"}
USAGE_ERRORS = {"UsageError", "BadParameter"}


def _commands() -> Iterator[tuple[list[str], click.Command]]:
    ctx = click.Context(cli)
    yield [], cli
    for name in COMMANDS:
        command = cli.get_command(ctx, name)
        assert command is not None
        yield [name], command
        if isinstance(command, click.Group):
            for sub, subcommand in command.commands.items():
                yield [name, sub], subcommand


def _help_texts(command: click.Command) -> list[str]:
    texts = [command.help or "", command.epilog or "", command.short_help or ""]
    texts += [getattr(param, "help", None) or "" for param in command.params]
    return [inspect.cleandoc(t) for t in texts if t]


def test_every_help_text_of_every_command_has_its_korean() -> None:
    missing = [
        f"{' '.join(path) or 'kubectl rbln'}: {text[:80]!r}"
        for path, command in _commands()
        for text in _help_texts(command)
        if not has_help(text)
    ]
    missing += [
        f"{name} (command list): {short!r}" for name, (_, _, short) in COMMANDS.items() if not has_help(short)
    ]
    assert not missing, "\n".join(missing)


@pytest.mark.parametrize(
    ("args", "environ", "lang"),
    [
        (["why", "--lang", "ko"], {}, "ko"),
        (["--lang=ko", "--help"], {}, "ko"),
        (["why"], {"LANG": "ko_KR.UTF-8"}, "ko"),
        (["why", "--lang", "en"], {"LANG": "ko_KR.UTF-8"}, "en"),
        (["why"], {"LC_ALL": "C", "LANG": "ko_KR.UTF-8"}, "en"),
        (["why", "--", "--lang", "ko"], {}, "en"),  # after `--`: a Pod's name, not a flag
    ],
)
def test_the_language_is_read_before_click_parses(
    args: list[str], environ: dict[str, str], lang: str
) -> None:
    assert language_of_arguments(args, environ) == lang


def _prose_lines(text: str) -> list[str]:
    """The prose of a help page: not an example command (`kubectl rbln ...`, `source <(`), not an
    option's names and value (`-o, --output [table|wide]`), not click's `[기본값: table]`."""
    lines = []
    for line in text.splitlines():
        if line.strip().startswith(("kubectl", "source", "KUBECONFIG=")):
            continue
        line = re.sub(r"^\s*-\S.*?(\s{2,}|$)", "", line)  # the option column
        lines.append(re.sub(r"\[기본값: [^\]]*\]", "", line))
    return lines


@pytest.mark.parametrize("path", [path for path, _ in _commands()], ids=lambda p: " ".join(p) or "group")
def test_help_in_korean_has_no_english_prose_and_fits(path: list[str], inprocess_rbln, monkeypatch) -> None:
    monkeypatch.setenv("COLUMNS", "100")
    takes_lang = any(
        p.name == "lang" for p in dict((tuple(k), v) for k, v in _commands())[tuple(path)].params
    )
    if takes_lang:
        code, out, err = inprocess_rbln(*path, "--help", "--lang", "ko")
    else:  # a command without --lang (serve, version, completion): the locale
        monkeypatch.setenv("LANG", "ko_KR.UTF-8")
        monkeypatch.delenv("LC_ALL", raising=False)
        code, out, err = inprocess_rbln(*path, "--help")
    assert code == 0, err
    assert out.startswith("사용법: kubectl rbln") and "\n옵션:\n" in out
    english = latin_words("\n".join(_prose_lines(out)))  # a code span may wrap over lines
    assert not english, out
    wide = [line for line in _prose_lines(out) if display_width(line) > 100]
    assert not wide, "\n".join(wide)


def test_help_in_english_is_clicks(inprocess_rbln, monkeypatch) -> None:
    monkeypatch.delenv("LANG", raising=False)
    monkeypatch.delenv("LC_ALL", raising=False)
    code, out, _ = inprocess_rbln("why", "--help")
    assert code == 0
    assert out.startswith("Usage: kubectl rbln why [OPTIONS] [PODS]...")
    assert "Show this message and exit." in out and not any("\uac00" <= c <= "\ud7a3" for c in out)


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["why", "--bogus"], "오류: '--bogus' 옵션이 없습니다."),
        (["why", "-o", "nope"], "오류: '-o' / '--output'의 값이 잘못되었습니다"),
        (["why", "--kubeconfig"], "오류: '--kubeconfig' 옵션에는 값이 필요합니다."),
        (["version", "npu-node-9"], "오류: 예상하지 못한 인수가 더 있습니다(npu-node-9)"),
        (["whyy"], '오류: "kubectl rbln"에는 "whyy" 명령이 없습니다. 혹시 "why" 명령을 입력하려고 했습니까?'),
        (["why", "-f", "/nonexistent"], "오류: /nonexistent: 파일이나 폴더가 없습니다"),
        (["explain", "no-such-slug"], '오류: 이름이 "no-such-slug"인 진단 결과나 주제가 없습니다'),
        (["explain", "memlock-limit", "x"], "오류: explain memlock-limit에는 두 번째 인수를 줄 수 없습니다"),
        (["topo", "--rct", "a", "--rct-file", "b"], "오류: --rct와 --rct-file은 함께 쓸 수 없습니다"),
    ],
)
def test_usage_and_input_errors_in_korean(
    args: list[str], expected: str, inprocess_rbln, monkeypatch
) -> None:
    monkeypatch.setenv("LANG", "ko_KR.UTF-8")
    monkeypatch.delenv("LC_ALL", raising=False)
    code, _, err = inprocess_rbln(*args)
    assert code == 2
    assert expected in err, err
    english = [f"{word}  <- {line}" for line in err.splitlines() for word in latin_words(line)]
    assert not english, err


def test_usage_error_with_lang_flag_reads_korean(inprocess_rbln) -> None:
    code, _, err = inprocess_rbln("why", "--bogus", "--lang", "ko")
    assert (
        code == 2
        and err.startswith("사용법: kubectl rbln why [옵션] [PODS]...")
        and "혹시 '--user'를 입력하려고 했습니까?" in err
    )


def _raise_sites() -> Iterator[tuple[str, str]]:
    """(where, sample message) of every error the plugin raises with a written message: each value
    filled with a name (what a value is, never prose)."""
    for path in sorted((REPO / "kubectl_rbln").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and _error_class(node.func)):
                continue
            texts = [*node.args[:1], *(k.value for k in node.keywords if k.arg == "hint")]
            for text in texts:
                sample = _sample(text)
                if sample is not None:
                    yield f"{path.relative_to(REPO)}:{node.lineno}", sample


def _error_class(func: ast.expr) -> bool:
    """One of the plugin's errors, or a usage error it raises itself (`click.UsageError(...)`)."""
    if isinstance(func, ast.Name):
        return func.id in ERRORS
    return isinstance(func, ast.Attribute) and func.attr in USAGE_ERRORS


def _sample(node: ast.expr) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(part.value if isinstance(part, ast.Constant) else "npu-node-1" for part in node.values)
    return None  # built elsewhere (a catalog sentence, a message of its own function)


def test_every_error_message_the_plugin_writes_reads_as_korean() -> None:
    sites = list(_raise_sites())
    assert len(sites) > 50
    english = [
        f"{where}: {sample!r} -> {error_text(sample, 'ko')!r}"
        for where, sample in sites
        if latin_words(error_text(sample, "ko") + " 한") or not _changed(sample)
    ]
    assert not english, "\n".join(english)


def _changed(sample: str) -> bool:
    """A message with English words in it is translated (one made only of values needs nothing)."""
    return error_text(sample, "ko") != sample or not latin_words(sample + " 한")
