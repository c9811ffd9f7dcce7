"""`pod-devices --lang ko` reads as Korean, `-o json` keeps the tool's English values (issue 13/14).

Run through the CLI (in-process) on testing/pod_devices_cases.py's bundle: the table's verdict, the
evidence labels and values (RDMA mode, interfaces, uverbs devices, the RSD and RDS evidence) are the
catalog's Korean words, while `-o json --lang ko` keeps every evidence value and the verdict English
as every other command's document does. tests/render/test_korean.py runs the prose detector over all of it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from kubectl_rbln.catalog import load_sentences
from kubectl_rbln.cli.group import cli
from testing.pod_devices_cases import NS, build_cases
from testing.synthetic.bundle import write_bundle

HANGUL = re.compile("[가-힣]")


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    objects, names = build_cases()
    path = tmp_path_factory.mktemp("cases") / "pod-devices-cases.json"
    write_bundle(str(path), objects)
    return path, names


def run(path: Path, *args: str) -> str:
    result = CliRunner().invoke(
        cli, ["pod-devices", "-f", str(path), "-n", NS, "--no-color", *args], prog_name="kubectl rbln"
    )
    assert result.exit_code in (0, 1), result.output
    return result.stdout


def test_the_korean_table_says_each_thing_in_korean(bundle: tuple[Path, dict[str, str]]) -> None:
    path, names = bundle
    pods = [names[c] for c in ("healthy-prefill", "uverbs-missing", "rsd-missing", "rds-missing", "memlock")]
    text = run(path, *pods, "--lang", "ko")
    rows = {line.split()[0]: line for line in text.splitlines() if line.startswith("coder-")}
    assert rows[names["healthy-prefill"]].endswith("정상")  # not "ok"
    assert "RDMA 모드: 공유(ib_core에서 읽음)" in text
    assert '/dev/infiniband: ["uverbs0(bnxt_re0) 열림"]' in text
    assert "확인한 내용: /dev/rsd* 없음" in text
    assert "노드 레이블 rebellions.ai/rds.present: true" in text
    assert "memlock 하드 한도(`ulimit -H -l`): 8192" in text
    assert "`RSD group creation returned no device path`" in text  # the driver's log line, to grep for
    for english in ("opens", "no /dev/rsd*", "interfaces:", "shared (ib_core)", " ok\n"):
        assert english not in text, english


def test_json_in_korean_keeps_english_values(bundle: tuple[Path, dict[str, str]]) -> None:
    path, names = bundle
    pods = [names[c] for c in ("healthy-prefill", "uverbs-missing", "rsd-missing", "nic-not-moved")]
    document = json.loads(run(path, *pods, "-o", "json", "--lang", "ko"))
    by_name = {entry["name"]: entry for entry in document["pods"]}
    assert by_name[names["healthy-prefill"]]["verdict"] == "ok"
    evidence = {
        key: value
        for entry in document["pods"]
        for finding in entry["findings"]
        for key, value in finding["evidence"].items()
    }
    assert not HANGUL.search(json.dumps(evidence, ensure_ascii=False)), evidence
    assert evidence["seen"] == "no /dev/rsd*"
    assert "uverbs0 (bnxt_re0) opens" in evidence["uverbs"]
    assert evidence["interfaces"][0] == "eth0 up mtu 1500 pci -"
    assert evidence["rdmaMode"] in ("exclusive (ib_core)", "shared (ib_core)")


def test_every_evidence_key_of_pod_devices_has_a_korean_label(bundle: tuple[Path, dict[str, str]]) -> None:
    path, _ = bundle
    document = json.loads(run(path, "-o", "json"))
    keys = {key for entry in document["pods"] for f in entry["findings"] for key in f["evidence"]}
    assert {"interfaces", "rdmaDevices", "uverbs", "ulimit -H -l", "rdmaMode"} <= keys
    sentences = load_sentences()
    assert not sorted(k for k in keys if "ko" not in sentences.get(f"evidence-{k}", {}))
