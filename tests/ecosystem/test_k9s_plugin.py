"""The k9s plugin of docs/k9s/plugins.yaml passes k9s' own schema and runs `why` on the selected Pod.

The schemas are k9s' (tests/data/k9s/SOURCE.md names the commit); k9s checks a plugins file against
plugins.json (internal/config/json/validator.go, ValidatePlugins). plugins.json lets an entry carry any
extra key, so each entry is also held to plugin.json, which does not: a misspelt key fails here.
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import jsonschema  # the test extra (pyproject.toml)
import pytest
import yaml

from kubectl_rbln.cluster.files import load_objects
from kubectl_rbln.replay.server import ReplayServer

REPO = Path(__file__).resolve().parents[2]
SNIPPET = REPO / "docs" / "k9s" / "plugins.yaml"
SCHEMAS = REPO / "tests" / "data" / "k9s"
BASIC = REPO / "tests" / "data" / "replay-basic.json"
# internal/view/env.go envRX: $XXX, $!XXX, ${XXX}, ${!XXX}, replaced in each arg before the command runs
ENV_RX = re.compile(r"(\$(!?)([\w\-]+))|(\$\{(!?)([\w\-%/: ]+)})")
# internal/ui/key.go: the names k9s gives keys (README: "Valid values are [a-z], Shift-[A-Z], Ctrl-[A-Z]")
SHORTCUT = re.compile(r"^([a-z]|Shift-[A-Z]|Ctrl-[A-Z])$")


def plugins() -> dict:
    return yaml.safe_load(SNIPPET.read_text(encoding="utf-8"))


def schema(name: str) -> dict:
    return json.loads((SCHEMAS / name).read_text(encoding="utf-8"))


def test_the_snippet_passes_k9s_plugins_schema_and_each_entry_the_strict_one() -> None:
    document = plugins()
    jsonschema.Draft7Validator(schema("plugins.json")).validate(document)
    strict = jsonschema.Draft7Validator(schema("plugin.json"))
    for entry in document["plugins"].values():
        strict.validate(entry)
        assert SHORTCUT.match(entry["shortCut"]), entry["shortCut"]
    broken = {"plugins": {"rbln-why": {**document["plugins"]["rbln-why"], "shortcut": "w"}}}
    assert list(strict.iter_errors(broken["plugins"]["rbln-why"]))  # the strict schema sees a misspelt key


def substitute(arg: str, env: dict[str, str]) -> str:
    """k9s' Env.Substitute: the longest names first, each replaced by its value (upper-cased lookup)."""
    for match in sorted(ENV_RX.finditer(arg), key=lambda m: -len(m.group(0))):
        key = (match.group(3) or match.group(6)).upper()
        if key in env:
            arg = arg.replace(match.group(0), env[key])
    return arg


@pytest.mark.slow  # a replay server
def test_the_plugin_runs_why_on_the_selected_pod(inprocess_rbln, tmp_path: Path) -> None:
    entry = plugins()["plugins"]["rbln-why"]
    assert "pods" in entry["scopes"] and entry["background"] is False  # in the Pod view, in the terminal
    env = {"NAME": "prefill-0", "NAMESPACE": "serving", "CONTEXT": "rbln-replay"}
    args = [substitute(str(a), env) for a in entry["args"]]
    assert entry["command"] == "sh" and args[0] == "-c"
    pipeline = [shlex.split(part) for part in args[1].split("|")]
    first = [word for word in pipeline[0] if word != "2>&1"]
    assert first[:2] == ["kubectl", "rbln"] and pipeline[-1][0] == "less"
    server = ReplayServer(load_objects([str(BASIC)])).start()
    try:
        kubeconfig = tmp_path / "kubeconfig"
        kubeconfig.write_text(server.kubeconfig_yaml(), encoding="utf-8")
        code, out, err = inprocess_rbln(*first[2:], "--kubeconfig", str(kubeconfig))
    finally:
        server.stop()
    assert code in (0, 1), err
    assert "prefill-0" in out and "Pending" in out  # why's answer about the Pod k9s selected
