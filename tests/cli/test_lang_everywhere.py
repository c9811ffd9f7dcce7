"""`--lang` on every command, group and subcommand (issue 25), run as a user runs them.

`serve`, `version` and `completion` followed the locale only; now each takes `--lang` where the others
do, before or after the command (`kubectl rbln --lang ko serve ...`, `serve ... --lang ko`), and
`--lang en` wins over a Korean locale. What they write besides their data (serve's startup lines and
its warning when a changed bundle does not load, version's lines, completion's "wrote") and their
errors read in that language; an error on a terminal wraps at words to its width, one line in a pipe.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import click
import pytest
import yaml

from kubectl_rbln.cli.group import cli
from kubectl_rbln.cli.main import fitted
from kubectl_rbln.render.width import _units, display_width
from testing.terminal_run import on_a_terminal
from tests.conftest import serving

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "render"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
import raise_sites  # noqa: E402
from test_korean_catalog import latin_words  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "kubectl_rbln" / "examples" / "pending-decode.json"
HANGUL = ("\uac00", "\ud7a3")


def _korean(text: str) -> bool:
    return any(HANGUL[0] <= c <= HANGUL[1] for c in text)


def _commands() -> Iterator[tuple[list[str], click.Command]]:
    ctx = click.Context(cli)
    for name in cli.list_commands(ctx):
        command = cli.get_command(ctx, name)
        assert command is not None
        yield [name], command
        for sub, subcommand in getattr(command, "commands", {}).items():
            yield [name, sub], subcommand


def _english_words(text: str) -> list[str]:
    return [f"{word}  <- {line}" for line in text.splitlines() for word in latin_words(line)]


@pytest.fixture
def korean_locale(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LANG", "ko_KR.UTF-8")
    monkeypatch.delenv("LC_ALL", raising=False)
    monkeypatch.delenv("LC_MESSAGES", raising=False)


@pytest.fixture
def english_locale(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LANG", "C.UTF-8")
    monkeypatch.delenv("LC_ALL", raising=False)
    monkeypatch.delenv("LC_MESSAGES", raising=False)


@pytest.mark.parametrize("path", [p for p, _ in _commands()], ids=" ".join)
def test_every_command_takes_lang(path: list[str], inprocess_rbln, english_locale) -> None:
    """Each command and subcommand accepts `--lang ko` after its name, and its help is Korean then."""
    code, out, err = inprocess_rbln(*path, "--lang", "ko", "--help")
    assert code == 0, err
    assert out.startswith(f"사용법: kubectl rbln {' '.join(path)}"), out[:200]
    assert "--lang [en|ko]" in out


def test_version_speaks_lang(inprocess_rbln, english_locale, monkeypatch: pytest.MonkeyPatch) -> None:
    code, out, _ = inprocess_rbln("version", "-f", str(EXAMPLE), "--lang", "ko")
    assert code == 0
    assert out.splitlines()[1:] == ["클러스터: 알 수 없음(ClusterInfo가 없는 번들)", "resource.k8s.io: v1"]
    assert inprocess_rbln("--lang", "ko", "version", "-f", str(EXAMPLE))[1] == out  # before the command
    monkeypatch.setenv("LANG", "ko_KR.UTF-8")
    code, out, _ = inprocess_rbln("version", "-f", str(EXAMPLE), "--lang", "en")
    assert out.splitlines()[1:] == ["Cluster: unknown (bundle without ClusterInfo)", "resource.k8s.io: v1"]


def test_lang_before_the_command_reaches_its_findings(inprocess_rbln, english_locale) -> None:
    """`kubectl rbln --lang ko why` was Korean in its help and errors but English in its report."""
    _, before, _ = inprocess_rbln("--lang", "ko", "why", "--example", "--no-color")
    _, after, _ = inprocess_rbln("why", "--example", "--no-color", "--lang", "ko")
    assert before == after and _korean(before.splitlines()[0])


def test_version_error_in_korean(inprocess_rbln, english_locale, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("KUBECONFIG", raising=False)
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    code, out, err = inprocess_rbln("version", "--lang", "ko")
    assert code == 3 and out.startswith("kubectl-rbln: v")
    assert err.startswith("오류: kubeconfig가 없습니다") and "\n참고: " in err
    assert not _english_words(err), err


def _serve_argv(*args: str) -> list[str]:
    return [sys.executable, "-m", "kubectl_rbln", "serve", *args]


def _env(lang: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("KUBECONFIG", "LC_ALL", "LC_MESSAGES")}
    env.update(NO_COLOR="1", LANG=lang)
    return env


def test_serve_speaks_lang_from_start_to_a_bundle_that_breaks(tmp_path: Path) -> None:
    """Its startup lines, the off-loopback warning, and the line when the bundle changed on disk and
    does not load (written by a request's thread, which does not carry the command line's language)."""
    bundle = tmp_path / "bundle.json"
    bundle.write_text(EXAMPLE.read_text(encoding="utf-8"), encoding="utf-8")
    kubeconfig = tmp_path / "kubeconfig"
    argv = _serve_argv(
        str(bundle), "--address", "0.0.0.0", "--kubeconfig-out", str(kubeconfig), "--lang", "ko"
    )
    with serving(argv, kubeconfig, env=_env("C.UTF-8"), cwd=REPO) as served:
        server = yaml.safe_load(kubeconfig.read_text(encoding="utf-8"))["clusters"][0]["cluster"]["server"]
        time.sleep(0.3)  # past the reloader's interval, so the next request looks at the file
        bundle.write_text("{broken", encoding="utf-8")
        time.sleep(0.3)
        with urllib.request.urlopen(f"{server}/api/v1/namespaces", timeout=10) as answer:
            assert json.load(answer)["kind"] == "NamespaceList"  # still the last good bundle
    lines = served.stderr.splitlines()
    assert lines[0].startswith("경고: 모든 인터페이스(0.0.0.0:"), served.stderr
    assert f"에서 객체 {len(json.loads(EXAMPLE.read_text())['items'])}개를 제공합니다" in lines[1]
    assert f"KUBECONFIG에 {kubeconfig}" in lines[1] and lines[2].startswith("/version은 ")
    assert any(
        line.startswith("경고: 디스크에서 바뀐 번들을 읽지 못했습니다(") and "JSON이 잘못되었습니다" in line
        for line in lines
    ), served.stderr
    assert not _english_words(served.stderr), served.stderr


def _answered(kubeconfig: Path) -> None:
    """One request answered: the server is serving, so it has written its startup lines."""
    config = yaml.safe_load(kubeconfig.read_text(encoding="utf-8"))
    server = config["clusters"][0]["cluster"]["server"]
    if server.startswith("https"):
        import base64  # noqa: PLC0415
        import ssl  # noqa: PLC0415

        ca = base64.b64decode(config["clusters"][0]["cluster"]["certificate-authority-data"]).decode()
        context = ssl.create_default_context(cadata=ca)
        token = config["users"][0]["user"].get("token", "")
        request = urllib.request.Request(f"{server}/version", headers={"Authorization": f"Bearer {token}"})
        urllib.request.urlopen(request, timeout=10, context=context).close()
    else:
        urllib.request.urlopen(f"{server}/version", timeout=10).close()


def test_serve_lang_en_wins_over_a_korean_locale(tmp_path: Path) -> None:
    kubeconfig = tmp_path / "kubeconfig"
    argv = _serve_argv(str(EXAMPLE), "--kubeconfig-out", str(kubeconfig), "--tls", "--require-token", "t0k")
    with serving([*argv, "--lang", "en"], kubeconfig, env=_env("ko_KR.UTF-8"), cwd=REPO) as served:
        _answered(kubeconfig)
    assert not _korean(served.stderr), served.stderr
    assert "; use KUBECONFIG=" in served.stderr and "every request needs the bearer token" in served.stderr
    kubeconfig.unlink()
    before = [*argv[:3], "--lang", "ko", *argv[3:]]  # `kubectl rbln --lang ko serve ...`
    with serving(before, kubeconfig, env=_env("C.UTF-8"), cwd=REPO) as served:
        _answered(kubeconfig)
    assert "모든 요청에 bearer 토큰이 필요합니다" in served.stderr, served.stderr


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["/nonexistent.json"], "오류: /nonexistent.json: 파일이나 폴더가 없습니다"),
        ([str(EXAMPLE), "--address", "192.0.2.1"], "오류: 192.0.2.1:0에서 수신할 수 없습니다: "),
        (
            [str(EXAMPLE), "--kubeconfig-out", "/nonexistent/k.yaml"],
            "오류: --kubeconfig-out /nonexistent/k.yaml: ",
        ),
        ([str(EXAMPLE), "--port", "99999"], "오류: '--port'의 값이 잘못되었습니다: 99999는 범위"),
    ],
)
def test_serve_errors_in_korean(args: list[str], expected: str, inprocess_rbln, english_locale) -> None:
    code, _, err = inprocess_rbln("serve", *args, "--lang", "ko")
    assert code == 2 and expected in err, err
    if "--kubeconfig-out" in args:  # the error alone: no startup line first says to use the file
        assert len(err.strip().splitlines()) == 1, err
    assert not _english_words(err), err


def test_completion_speaks_lang(inprocess_rbln, english_locale, tmp_path: Path, monkeypatch) -> None:
    target = tmp_path / "bin"
    code, out, err = inprocess_rbln("completion", "install", "--dir", str(target), "--lang", "ko")
    assert code == 0 and out == f"{target}/kubectl_complete-rbln을 썼습니다\n"
    assert err == f"경고: {target}은 kubectl이 도우미를 찾는 PATH에 없습니다\n"
    code, out, _ = inprocess_rbln("completion", "--lang", "ko", "uninstall", "--dir", str(target))
    assert code == 0 and _korean(out) and not (target / "kubectl_complete-rbln").exists()
    script = inprocess_rbln("completion", "bash")[1]
    assert inprocess_rbln("completion", "bash", "--lang", "ko")[1] == script  # a script has no words
    monkeypatch.setenv("LANG", "ko_KR.UTF-8")
    code, out, _ = inprocess_rbln("completion", "install", "--dir", str(target), "--lang", "en")
    assert out == f"wrote {target}/kubectl_complete-rbln\n"
    (tmp_path / "file").write_text("x")
    code, _, err = inprocess_rbln("completion", "install", "--dir", str(tmp_path / "file" / "sub"))
    assert code == 2 and err.startswith("오류: ") and "폴더가 아닙니다" in err, err  # ENOTDIR, in Korean
    assert not _english_words(err), err


def test_completion_descriptions_follow_the_language(english_locale) -> None:
    """`kubectl rbln <TAB>` (kubectl's plugin protocol) describes each candidate as its --help does."""
    from kubectl_rbln.cli.completion import resolve

    english = resolve([], "")
    korean = resolve(["--lang", "ko"], "")
    assert "why\tExplain why a device Pod is Pending or crashing, with the fix" in english.candidates
    assert [c.split("\t")[0] for c in korean.candidates] == [c.split("\t")[0] for c in english.candidates]
    assert all(_korean(c.split("\t", 1)[1]) for c in korean.candidates), korean.candidates
    assert all(_korean(c.split("\t", 1)[1]) for c in resolve(["completion", "--lang", "ko"], "").candidates)


def test_errors_that_name_an_os_error_read_korean(inprocess_rbln, korean_locale, tmp_path: Path) -> None:
    """The OS's own words after a path (strerror) were English inside a Korean sentence."""
    (tmp_path / "file").write_text("{}")
    code, _, err = inprocess_rbln("why", "-f", str(tmp_path / "file" / "inside.json"))
    assert code == 2 and err.startswith("오류: ") and not _english_words(err), err
    code, _, err = inprocess_rbln("why", "-f", str(EXAMPLE), "-l", "a in (b")  # the selector's own words
    assert (
        code == 2
        and err == "오류: -l a in (b: 요구 조건을 해석할 수 없습니다: 셀렉터가 중간에 끝났습니다: 'a in (b'\n"
    )


# ------------------------------------------------------------------ errors on an 80-column terminal


def _on_a_terminal(args: list[str], env: dict[str, str]) -> str:
    return on_a_terminal(args, env).decode("utf-8").replace("\r\n", "\n")


def test_a_long_error_wraps_at_words_on_an_80_column_terminal(tmp_path: Path) -> None:
    """Korean errors are twice as wide: on an 80-column terminal the error and its hint wrap at words,
    each continuation under the message; in a pipe the same words stay one line each."""
    env = {**_env("ko_KR.UTF-8"), "COLUMNS": "80", "HOME": str(tmp_path), "TERM": "xterm"}
    env.pop("KUBERNETES_SERVICE_HOST", None)
    shown = _on_a_terminal(["why", "decode-0"], env)
    piped = subprocess.run(
        [sys.executable, "-m", "kubectl_rbln", "why", "decode-0"],
        env=env,
        cwd=REPO,
        capture_output=True,
        text=True,
    ).stderr
    assert len(piped.splitlines()) == 2 and display_width(piped.splitlines()[1]) > 80  # error, hint
    lines = shown.splitlines()
    over = [line for line in lines if display_width(line) > 80 and len(line.split()) > 1]  # but a path
    assert len(lines) > 2 and not over, shown
    assert lines[0].startswith("오류: ") and any(line.startswith("      ") for line in lines), shown
    assert shown.split() == piped.split()  # the same words, only the breaks differ


class _Terminal:
    """A stream that says it is a terminal (its width: COLUMNS)."""

    def isatty(self) -> bool:
        return True

    def fileno(self) -> int:
        raise OSError("no terminal here")


def test_every_korean_error_fits_80_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every error and hint text the plugin raises (tests/cli/raise_sites.py), in Korean, as an
    80-column terminal shows it: no line past 80 columns but one holding a single word (a path, a URL)."""
    from kubectl_rbln.catalog.cli_words import cli_line, error_text

    monkeypatch.setenv("COLUMNS", "80")
    terminal = _Terminal()
    over = []
    texts = raise_sites.messages()[0]
    for message in texts:
        for label in ("error: {message}", "hint: {message}"):
            line = cli_line(label, "ko", message=error_text(message.text, "ko"))
            for shown in fitted(line, terminal).splitlines():  # type: ignore[arg-type]
                unbreakable = any(
                    display_width(unit) > 72 for unit in _units(shown.split())
                )  # a path, a command
                if display_width(shown) > 80 and not unbreakable:
                    over.append(f"{message.where}: {shown}")
    assert len(texts) > 300
    assert not over, "\n".join(over[:20])


def test_the_sources_warnings_and_notes_read_korean(inprocess_rbln, english_locale, tmp_path: Path) -> None:
    """What reading the input says on stderr (a malformed object, a duplicate, which namespaces were
    read) was English under `--lang ko`: each command's lines now pass the same translation as errors."""
    document = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    items = document["items"]
    other = json.loads(json.dumps(next(i for i in items if i["kind"] == "Pod")))
    other["metadata"]["namespace"] = "batch-2"
    broken = json.loads(json.dumps(next(i for i in items if i["kind"] == "ResourceClaimTemplate")))
    broken["metadata"]["name"], broken["spec"] = "broken", {"spec": {"devices": {"requests": "x"}}}
    items += [other, json.loads(json.dumps(items[0])), broken]
    bundle = tmp_path / "bundle.json"
    bundle.write_text(json.dumps(document), encoding="utf-8")
    for command in (["why"], ["check"], ["topo"], ["attrs"], ["pod-devices"], ["suggest-rct"]):
        _, _, english = inprocess_rbln(*command, "-f", str(bundle), "--no-color")
        _, _, err = inprocess_rbln(*command, "-f", str(bundle), "--no-color", "--lang", "ko")
        assert "warning: malformed ResourceClaimTemplate serving/broken" in english, (command, english)
        assert "경고: 잘못된 객체: ResourceClaimTemplate serving/broken: " in err, (command, err)
        assert "참고: 입력에 두 번 이상 나오는 객체가 1개 있습니다" in err, (command, err)
        assert "참고: -n 없음: 입력에 네임스페이스 batch-2, serving이 있어 " in err, (command, err)
        assert not _english_words(err.replace("serving", "ns-1")), (command, err)  # the namespace: a value


def test_explain_lists_in_korean(inprocess_rbln, english_locale) -> None:
    """`explain` alone lists every slug: its severity column and the topics line were English."""
    code, out, _ = inprocess_rbln("--lang", "ko", "explain")
    lines = out.splitlines()
    assert code == 0 and lines[-1].startswith("주제: bundle, exit-codes")
    assert lines[0].split()[1] == "오류" and display_width(lines[0].split("  오류  ")[0]) == lines[0].index(
        "  오류"
    )
    assert inprocess_rbln("explain")[1].splitlines()[-1].startswith("topics: bundle")
