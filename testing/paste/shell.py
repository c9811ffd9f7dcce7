"""Paste a block into bash as an operator would, the recording shims first on PATH, and read what ran.

Why: what a fix does is only known once a shell has read it: quoting, line continuations, heredocs,
redirections and `&&` chains decide which commands run with which words. Each block runs in
`bash --norc --noprofile -s` fed on stdin (a command that reads stdin eats the lines after it, as in
a terminal), in a fresh directory that receives the files the block writes.
"""

from __future__ import annotations

import ast
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SHIM = Path(__file__).with_name("shim.py")
# The shims: kubectl and ssh record (kubectl forwards its reads), the rest are node programs.
SHIMMED = ("kubectl", "ssh", "sudo", "crictl", "systemctl", "modprobe", "lspci", "mkdir", "tee")
SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"
REPO = Path(__file__).resolve().parents[2]
# `> /etc/...`: a redirection into a system folder, which no shim sees (a node's file: sudo tee).
SYSTEM_WRITE = re.compile(
    r"(?<![0-9&])>>?\s*/(?:etc|usr|var|opt|boot|lib|lib64|bin|sbin|root|home|srv|sys|proc)/"
)


@dataclass(frozen=True)
class Record:
    """One program the paste ran (as its shim saw it)."""

    program: str
    argv: tuple[str, ...]
    action: str  # read | preview | plugin | change | remote | node-on-workstation
    raw: dict[str, Any]

    @property
    def files(self) -> dict[str, str | None]:
        return self.raw.get("files") or {}

    @property
    def stdin(self) -> str | None:
        return self.raw.get("stdin")

    @property
    def host(self) -> str:
        return self.raw.get("host", "")

    @property
    def remote(self) -> str:
        return self.raw.get("remote", "")

    @property
    def verb(self) -> str:
        return self.raw.get("verb", "")

    @property
    def forwarded(self) -> bool:
        return bool(self.raw.get("forwarded"))

    @property
    def shown(self) -> str:
        """The invocation as one line, for a message."""
        return shlex.join([self.program, *self.argv])


@dataclass
class Paste:
    """A block pasted, and what the shell and the shims saw."""

    text: str
    records: list[Record]
    stderr: str
    returncode: int
    workdir: Path
    files: dict[str, str] = field(default_factory=dict)  # what the block left in its directory


@dataclass
class Workstation:
    """The operator's shell: the shims' directory, a kubeconfig for the serve, one read cache."""

    root: Path
    kubeconfig: Path
    kubectl: str  # the real kubectl the shim forwards reads to
    plugin_socket: str = ""  # testing/paste/plugin_server.py, else `python -m kubectl_rbln` each time

    def __post_init__(self) -> None:
        self.bin = self.root / "bin"
        self.home = self.root / "home"
        self.cache = self.root / "cache"
        for folder in (self.bin, self.home, self.cache):
            folder.mkdir(parents=True, exist_ok=True)
        install_shims(self.bin)

    def env(self, record: Path, terminal: Path) -> dict[str, str]:
        return {
            "PASTE_TERMINAL": str(terminal),
            "PATH": f"{self.bin}{os.pathsep}{SYSTEM_PATH}",
            "HOME": str(self.home),
            "KUBECONFIG": str(self.kubeconfig),
            "LANG": "C.UTF-8",
            "NO_COLOR": "1",
            "PASTE_RECORD": str(record),
            "PASTE_CACHE": str(self.cache),
            "PASTE_REAL_KUBECTL": self.kubectl,
            "PASTE_PYTHON": sys.executable,
            "PASTE_REPO": str(REPO),
            "PASTE_PLUGIN_SOCKET": self.plugin_socket,
            "PASTE_SYSTEM_MKDIR": shutil.which("mkdir", path=SYSTEM_PATH) or "/bin/mkdir",
            "PASTE_SYSTEM_TEE": shutil.which("tee", path=SYSTEM_PATH) or "/usr/bin/tee",
        }

    def paste(self, text: str, timeout: float = 120) -> Paste:
        """Run `text` in a fresh directory; the records, bash's stderr and the files left behind."""
        if SYSTEM_WRITE.search(text):  # the shims cannot stop a redirection, and tests may run as root
            raise HarnessError(f"refusing to paste a block that writes into a system folder:\n{text}")
        workdir = Path(tempfile.mkdtemp(prefix="paste-", dir=self.root))
        record = workdir.parent / f"{workdir.name}.jsonl"
        terminal = workdir.parent / f"{workdir.name}.terminal"
        record.touch()
        with terminal.open("wb") as screen:
            run = subprocess.run(
                ["bash", "--norc", "--noprofile", "-s"],
                input=text.encode("utf-8"),
                stdout=screen,
                stderr=subprocess.PIPE,
                cwd=workdir,
                env=self.env(record, terminal),
                timeout=timeout,
                check=False,
            )
        records = [
            _record(ast.literal_eval(line)) for line in record.read_text(encoding="utf-8").splitlines()
        ]
        broken = [r.shown for r in records if r.action == "shim-error"]
        if broken:
            raise HarnessError(f"the recording shim failed on {broken}:\n{run.stderr.decode()}")
        files = {
            str(p.relative_to(workdir)): p.read_text(encoding="utf-8", errors="replace")
            for p in sorted(workdir.rglob("*"))
            if p.is_file()
        }
        return Paste(text, records, run.stderr.decode("utf-8", "replace"), run.returncode, workdir, files)


class HarnessError(RuntimeError):
    """The shims or the shell failed, not the fix: a test must stop, not report a finding."""


def _record(raw: dict[str, Any]) -> Record:
    return Record(raw["program"], tuple(raw.get("argv") or ()), raw["action"], raw)


def install_shims(folder: Path) -> None:
    """The shim under each program's name, started by this Python with -S (no site: fast)."""
    source = SHIM.read_text(encoding="utf-8")
    compile(source, str(SHIM), "exec")  # a shim that cannot start would record nothing, silently
    for name in SHIMMED:
        path = folder / name
        path.write_text(f"#!{sys.executable} -S\n{source}", encoding="utf-8")
        path.chmod(0o755)
    if shutil.which("jq", path=SYSTEM_PATH) is None:  # an operator's workstation has jq; CI may not
        path = folder / "jq"
        path.write_text(f"#!{sys.executable}\n{JQ}", encoding="utf-8")
        path.chmod(0o755)


# `jq [-r] [-c] FILTER [FILE]` through the jq binding the plugin depends on.
JQ = """import json, sys
import jq
args = sys.argv[1:]
words = [a for a in args if a not in ("-r", "-c")]
text = open(words[1]).read() if len(words) > 1 else sys.stdin.read()
for value in jq.compile(words[0]).input_text(text).all():
    raw = "-r" in args and isinstance(value, str)
    print(value if raw else json.dumps(value, indent=None if "-c" in args else 2, ensure_ascii=False))
"""
