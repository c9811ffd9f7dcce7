"""Names from the cluster are quoted in every command a fix prints (issue 22, 3).

A scenario's node, Pod and namespace names are replaced by names that hold shell syntax (`;`, a
space, `$(...)`, a quote), consistently across every object; then every command of every fix `why`,
`check` and `attrs` print, in both languages, still splits into words that carry each name whole, and
the script an ssh step sends to its node does too. A name that leaked unquoted would split (`touch`
would become a word) or run.
"""

from __future__ import annotations

import json
import shlex
from typing import Any

import pytest

from kubectl_rbln.app.attrs import AttrsRequest, attrs
from kubectl_rbln.app.check import CheckRequest, run_check
from kubectl_rbln.app.why import WhyRequest, why
from kubectl_rbln.dra.normalize import build_snapshot
from testing.synthetic.scenarios import SCENARIOS

HOSTILE = {
    "npu-node-01": "npu-node-01;touch /tmp/pwned",
    "coder-decode-5f9vnmhcjt-5xnpt": "coder-decode-5f9vnmhcjt-5xnpt $(id)",
    "npu-rdma": "npu-rdma'x",
}


def renamed(name: str) -> list[dict[str, Any]]:
    text = json.dumps(SCENARIOS[name].build("v1"))
    for plain, hostile in HOSTILE.items():
        text = text.replace(json.dumps(plain)[1:-1], json.dumps(hostile)[1:-1])
    return json.loads(text)


def commands(fix: dict[str, Any]) -> list[str]:
    steps = [*fix["steps"], *(s for a in fix["alternatives"] for s in a["steps"])]
    out = [c for s in steps for c in s["commands"]]
    out += [c for s in steps for c in s.get("script", [])]
    return out


@pytest.mark.parametrize(
    "name", ["memlock-crash", "nic-no-numanode", "rct-fixed-claim-stale", "rdma-driver-not-loaded"]
)
@pytest.mark.parametrize("lang", ["en", "ko"])
def test_hostile_names_stay_one_word_in_every_command(name: str, lang: str) -> None:
    snapshot = build_snapshot(renamed(name))
    namespace = SCENARIOS[name].pending_pod[0]
    rct = HOSTILE["npu-rdma"]
    reports = [
        why(snapshot, WhyRequest((), namespace)),
        run_check(snapshot, CheckRequest(namespace, rct)),
        attrs(snapshot, AttrsRequest(namespace, rct)),
    ]
    seen = 0
    for report in reports:
        for finding in report.findings:
            for command in commands(finding.to_dict(lang)["fix"]):
                words = shlex.split(command.replace("\\\n", " "))
                assert "touch" not in words and "$(id)" not in words, command
                for hostile in HOSTILE.values():
                    fragment = hostile.split(";")[0].split(" ")[0].split("'")[0]
                    for word in words:
                        if fragment in word and not word.startswith(("{", "[", ".")):
                            seen += 1
                            assert hostile in word, f"{hostile!r} split in {command!r}"
    assert seen, "no command names a renamed object: the test would prove nothing"
