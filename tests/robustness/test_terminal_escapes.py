"""No control sequence reaches the terminal, from any field of any object, through any command.

Why: object names, messages and attribute values are written by workloads and drivers, and a
server's error text by whatever answers on the API port. One string that reaches a terminal raw can
clear the screen, plant a hyperlink, reorder a line (U+202E) or ring the bell. The terminal writer
under stdout and stderr (kubectl_rbln/terminal.py) strips them from everything printed; `-o json`
escapes them, so the values survive for scripts. Here the sequences go into every string field of
scenario bundles, and every command runs on them as a user would: table, JSON and YAML.
"""

from __future__ import annotations

import base64
import json
import os
import re
import threading
import urllib.request
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import yaml

from kubectl_rbln.replay.server import ReplayServer
from kubectl_rbln.text import strip_controls
from testing.synthetic.scenarios import SCENARIOS
from testing.terminal_run import on_a_terminal
from tests.conftest import run_rbln

# ESC [2J (clear the screen), an OSC 8 hyperlink, C1 CSI (0x9b) 2J, RLO (U+202E), NUL, BEL.
PAYLOAD = "\x1b[2J\x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\\x9b2J\u202e\x00\x07"
RAW = {"ESC": "\x1b", "CSI (C1)": "\x9b", "RLO": "\u202e", "NUL": "\x00", "BEL": "\x07"}
# healthy: Running Pods, exec captures (pod-devices); devices-exhausted: events, captures, a simulation;
# deviceclass-missing: the checklist's failures; fabric-npu-attach-failed: a Pod stuck on its node.
# RBLN_SWEEP_ALL=1: every scenario (66 x 2 variants, ~30 s of CPU; they all hold).
NAMES = (
    tuple(SCENARIOS)
    if os.environ.get("RBLN_SWEEP_ALL")
    else ("healthy", "devices-exhausted", "deviceclass-missing", "fabric-npu-attach-failed")
)
STRUCTURE = {"apiVersion", "kind"}  # without them nothing is read at all
COMMANDS: list[tuple[str, ...]] = [
    ("why", "-A"),
    ("check",),
    ("attrs",),
    ("topo",),
    ("pod-devices", "-A"),
]


def poison_everything(value: Any) -> Any:
    """Every string value but apiVersion and kind, with the payload appended."""
    if isinstance(value, dict):
        return {k: v if k in STRUCTURE else poison_everything(v) for k, v in value.items()}
    if isinstance(value, list):
        return [poison_everything(v) for v in value]
    return value + PAYLOAD if isinstance(value, str) else value


def _names(objects: list[dict[str, Any]]) -> set[str]:
    """Names and namespaces of objects, devices and pools (not the DeviceClasses, whose names are
    the drivers' contract): poisoned wherever they appear, references stay consistent."""
    found: set[str] = set()
    for obj in objects:
        if obj.get("kind") == "DeviceClass":
            continue
        meta = obj.get("metadata") or {}
        found.update(v for v in (meta.get("name"), meta.get("namespace")) if isinstance(v, str))
        if obj.get("kind") == "ResourceSlice":
            spec = obj.get("spec") or {}
            found.update(d["name"] for d in spec.get("devices") or [] if isinstance(d.get("name"), str))
            found.add(str((spec.get("pool") or {}).get("name", "")))
    return found


def poison_names(objects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every name (consistently, everywhere it is referenced) and every message: the diagnosis stays
    as deep as the scenario's, so every renderer draws hostile names."""
    names = _names(objects)

    def walk(value: Any, key: str = "") -> Any:
        if isinstance(value, dict):
            return {k: walk(v, k) for k, v in value.items()}
        if isinstance(value, list):
            return [walk(v, key) for v in value]
        if isinstance(value, str) and (value in names or key == "message"):
            return value + PAYLOAD
        return value

    return [walk(obj) for obj in objects]


VARIANTS: dict[str, Callable[[list[dict[str, Any]]], list[dict[str, Any]]]] = {
    "every-field": poison_everything,
    "names-and-messages": poison_names,
}


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
    elif isinstance(value, str):
        yield value


def _raw(text: str) -> list[str]:
    return [name for name, char in RAW.items() if char in text]


@pytest.fixture(scope="module")
def bundles(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], Path]:
    folder = tmp_path_factory.mktemp("hostile")
    out = {}
    for name in NAMES:
        for variant, poison in VARIANTS.items():
            path = folder / f"{name}-{variant}.json"
            items = poison(SCENARIOS[name].build("v1"))
            path.write_text(
                json.dumps({"apiVersion": "v1", "kind": "List", "items": items}), encoding="utf-8"
            )
            out[name, variant] = path
    return out


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("name", NAMES)
def test_no_control_reaches_the_terminal_and_json_keeps_the_values(
    inprocess_rbln: Callable[..., tuple[int, str, str]],
    bundles: dict[tuple[str, str], Path],
    name: str,
    variant: str,
) -> None:
    bundle = str(bundles[name, variant])
    kept = 0
    for command in COMMANDS:
        for output in ("table", "wide", "json", "yaml"):
            code, out, err = inprocess_rbln(*command, "-f", bundle, "-o", output)
            assert code in (0, 1), (command, output, err)
            assert not _raw(out) and not _raw(err), (command, output, _raw(out), _raw(err))
            if output == "json":
                document = json.loads(out)  # escaped, not stripped: the values are all there
                kept += sum(PAYLOAD in s for s in _strings(document))
    code, out, err = inprocess_rbln("suggest-rct", "-f", bundle)  # the RCT on stdout, why on stderr
    assert code in (0, 1, 2), err
    assert not _raw(out) and not _raw(err), (_raw(out), _raw(err))
    assert kept, "the documents carry the hostile values, escaped"


def test_a_hostile_name_reads_back_from_json_exactly(
    inprocess_rbln: Callable[..., tuple[int, str, str]], bundles: dict[tuple[str, str], Path]
) -> None:
    """The escapes are JSON's: `json.loads` gives back the very name the cluster holds."""
    scenario = SCENARIOS["devices-exhausted"]
    namespace, pod = scenario.pending_pod
    code, out, _ = inprocess_rbln(
        "why", "-A", "-f", str(bundles["devices-exhausted", "names-and-messages"]), "-o", "json"
    )
    assert code == 1
    assert "\\u009b2J\\u202e\\u0000\\u0007" in out  # C1 and bidi as \\uXXXX, like C0
    pods = {p["pod"] for p in json.loads(out)["pods"]}
    assert f"{namespace}{PAYLOAD}/{pod}{PAYLOAD}" in pods


# ---------------------------------------------------------------- a colour terminal


def _on_a_terminal(args: list[str], seconds: float = 30) -> str:
    """What `kubectl rbln ARGS` writes to a terminal (a pty for stdout and stderr), colour on."""
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "KUBECONFIG")}
    env.update({"LANG": "C.UTF-8", "TERM": "xterm", "RBLN_PROGRESS_DELAY": "0", "COLUMNS": "120"})
    return on_a_terminal(args, env, seconds).decode("utf-8", "replace")


@pytest.mark.slow
def test_on_a_colour_terminal_our_colours_stay_and_nothing_else(bundles: dict[tuple[str, str], Path]) -> None:
    bundle = str(bundles["devices-exhausted", "names-and-messages"])
    for args, coloured in (
        (["why", "-A", "-f", bundle], True),
        (["topo", "-f", bundle], True),
        (["suggest-rct", "-f", bundle], False),
    ):
        text = _on_a_terminal(args)
        if coloured:
            assert "\x1b[1m" in text and re.search(r"\x1b\[3[1-7]m", text), (args, text[:300])
        own = re.sub(
            r"\x1b\[(?:0|1|2|22|3[0-79]|9[0-7])m|\r\x1b\[K", "", text
        )  # our palette, the progress line
        assert not _raw(own), (args, _raw(own))
        assert "reading " in text  # the progress line was drawn, its own controls kept


# ---------------------------------------------------------------- a server's own words

TOKEN = "sekret-Bearer-T0KEN-0123456789"


class _Hostile(BaseHTTPRequestHandler):
    """A proxy in front of a replay server that refuses one list with hostile text: its 403 (or,
    with `everything`, every answer: 500) carries the payload and echoes the Authorization header
    with a BEL slipped into the token, so a plain replace of the token would miss it."""

    upstream = ""
    everything = False
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        if self.everything or "resourceslices" in self.path:
            echoed = self.headers.get("Authorization", "").replace(TOKEN, TOKEN[:10] + "\x07" + TOKEN[10:])
            code = 500 if self.everything else 403
            message = f"denied{PAYLOAD} by the proxy; you sent Authorization: {echoed}{PAYLOAD}"
            body = json.dumps(
                {"kind": "Status", "apiVersion": "v1", "code": code, "message": message}
            ).encode()
        else:
            with urllib.request.urlopen(self.upstream + self.path, timeout=10) as reply:
                code, body = reply.status, reply.read()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture(params=[False, True], ids=["403-on-one-list", "500-on-everything"])
def hostile_cluster(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Path, bool]]:
    objects = poison_names(SCENARIOS["devices-exhausted"].build("v1"))
    with ReplayServer(objects) as upstream:
        handler = type("Handler", (_Hostile,), {"upstream": upstream.url, "everything": request.param})
        proxy = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=proxy.serve_forever, daemon=True).start()
        config = upstream.kubeconfig()
        config["clusters"][0]["cluster"]["server"] = f"http://127.0.0.1:{proxy.server_address[1]}"
        config["users"][0]["user"]["token"] = TOKEN
        kubeconfig = tmp_path / "kubeconfig"
        kubeconfig.write_text(yaml.safe_dump(config), encoding="utf-8")
        try:
            yield kubeconfig, request.param
        finally:
            proxy.shutdown()
            proxy.server_close()


@pytest.mark.slow
def test_a_servers_hostile_words_reach_stderr_clean_and_without_the_token(
    hostile_cluster: tuple[Path, bool],
) -> None:
    kubeconfig, everything = hostile_cluster
    env = {"KUBECONFIG": str(kubeconfig)}
    for command in (["why", "-A"], ["check"], ["suggest-rct"], ["dump", "-A"]):
        done = run_rbln(*command, "--request-timeout", "5s", env=env, timeout=60)
        text = done.stdout + done.stderr
        assert done.returncode == (3 if everything else done.returncode), (command, done.stderr)
        assert "Traceback" not in text and not _raw(text), (command, _raw(text))
        assert TOKEN not in text and TOKEN not in strip_controls(text), command
        if everything or command[0] == "dump":  # said (the error line, dump's warning), cleaned, not dropped
            assert "denied" in done.stderr, (command, done.stderr)
        if command[0] == "dump" and not everything:
            assert done.returncode == 0, done.stderr
            bundle = json.loads(done.stdout)  # the refusal is in ClusterInfo, as the server said it
            assert all(TOKEN not in strip_controls(s) for s in _strings(bundle))
            assert any("denied" in s for s in _strings(bundle))


@pytest.mark.slow
def test_the_clients_key_files_are_gone_when_the_command_ends(tmp_path: Path) -> None:
    """The client writes `client-key-data` to a temp file for TLS and removes it from an atexit hook,
    which the CLI's os._exit skips: the key stayed in $TMPDIR after every command."""
    with ReplayServer([]) as plain:
        config = plain.kubeconfig()
        config["clusters"][0]["cluster"]["server"] = plain.url.replace("http://", "https://")
        config["users"][0]["user"] = {
            "client-certificate-data": base64.b64encode(b"-----BEGIN CERTIFICATE-----\nMIIB\n").decode(),
            "client-key-data": base64.b64encode(b"-----BEGIN PRIVATE KEY-----\nMIIEsecret\n").decode(),
        }
        kubeconfig = tmp_path / "kubeconfig"
        kubeconfig.write_text(yaml.safe_dump(config), encoding="utf-8")
        scratch = tmp_path / "tmp"
        scratch.mkdir()
        done = run_rbln("dump", "-A", env={"KUBECONFIG": str(kubeconfig), "TMPDIR": str(scratch)}, timeout=60)
    assert done.returncode == 3 and done.stderr.startswith("error: TLS handshake"), done.stderr
    assert list(scratch.iterdir()) == [], "the client's copy of the private key was left behind"
