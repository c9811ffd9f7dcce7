"""The command line in Korean (issue 25): `--help`, click's usage errors and every error of the plugin,
with `--lang ko` or a Korean locale, hold the rules of tests/render/test_korean_catalog.py: no English
prose outside code, names and values, and the particles the values take.

English stays click's, byte for byte: a Korean translation never leaks into an English run.
"""

from __future__ import annotations

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
sys.path.insert(0, str(Path(__file__).resolve().parent))
import raise_sites  # noqa: E402
from test_korean_catalog import latin_words  # noqa: E402

REPO = Path(__file__).resolve().parents[2]


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


EXAMPLES = ("kubectl", "source", "KUBECONFIG=")  # an example command to paste: exempt from the width


def _prose_lines(text: str) -> list[str]:
    """The prose of a help page: not an example command (`kubectl rbln ...`, `source <(`), not an
    option's names and value (`-o, --output [table|wide]`), not click's `[기본값: table]`."""
    lines = []
    for line in text.splitlines():
        if line.strip().startswith(EXAMPLES):
            continue
        line = re.sub(r"^\s*-\S.*?(\s{2,}|$)", "", line)  # the option column
        lines.append(re.sub(r"\[기본값: [^\]]*\]", "", line))
    return lines


@pytest.mark.parametrize("width", [80, 100])
@pytest.mark.parametrize("path", [path for path, _ in _commands()], ids=lambda p: " ".join(p) or "group")
def test_help_in_korean_has_no_english_prose_and_fits(
    path: list[str], width: int, inprocess_rbln, monkeypatch
) -> None:
    """Every command's and subcommand's `--help --lang ko`, at 80 and 100 columns: Korean prose only,
    and no line past the width but an example command to paste (render/width.py's rule)."""
    monkeypatch.setenv("COLUMNS", str(width))
    code, out, err = inprocess_rbln(*path, "--help", "--lang", "ko")
    assert code == 0, err
    assert out.startswith("사용법: kubectl rbln") and "\n옵션:\n" in out
    english = latin_words("\n".join(_prose_lines(out)))  # a code span may wrap over lines
    assert not english, out
    shown = [line for line in out.splitlines() if not line.strip().startswith(EXAMPLES)]
    wide = [line for line in shown if display_width(line) > width]  # whole lines, the option column too
    assert not wide, "\n".join(wide)


def test_help_follows_a_korean_locale(inprocess_rbln, monkeypatch) -> None:
    monkeypatch.setenv("LANG", "ko_KR.UTF-8")
    monkeypatch.delenv("LC_ALL", raising=False)
    for path in (["serve"], ["version"], ["completion", "install"]):
        code, out, _ = inprocess_rbln(*path, "--help")
        assert code == 0 and out.startswith(f"사용법: kubectl rbln {' '.join(path)} [옵션]")


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


def test_every_error_message_the_plugin_writes_reads_as_korean() -> None:
    """Every text an error or a hint may read (tests/cli/raise_sites.py follows each message to where
    its words are written) comes out in Korean: no English word left, and a message with English words
    in it is translated (one made only of values needs nothing)."""
    texts, unread = raise_sites.messages()
    assert not unread, "messages the source does not spell; read them or name them in UNREAD:\n" + "\n".join(
        unread
    )
    assert len({m.where for m in texts}) > 100 and len(texts) > 300
    english = sorted(
        {
            f"{m.where}: {m.text!r} -> {error_text(m.text, 'ko')!r}"
            for m in texts
            if latin_words(error_text(m.text, "ko") + " 한") or not _changed(m.text)
        }
    )
    assert not english, f"{len(english)} texts:\n" + "\n".join(english)


def test_the_reader_follows_what_the_old_check_filled_with_a_name() -> None:
    """The holes a literal-only check had, each read now: a helper's words, a caught selector error's
    message, the OS's error text, a subclass's fourth argument, a local variable."""
    texts = {m.text for m in raise_sites.messages()[0]}
    assert any("not a regular file but a character device" in t for t in texts)  # _file_type(mode)
    assert any(t.startswith("-l npu-node-1: unable to parse requirement") for t in texts)  # {exc}
    assert any(t.endswith(": Permission denied") for t in texts)  # {exc.strerror or exc}
    assert any("did you mean" in t for t in texts)  # unknown_command_message(name)
    assert raise_sites.error_classes()["ApiRefusal"] == 3


def _changed(sample: str) -> bool:
    """A message with English words in it is translated (one made only of values needs nothing)."""
    return error_text(sample, "ko") != sample or not latin_words(sample + " 한")
