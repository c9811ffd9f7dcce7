"""Run a released probe script with `sh` against a fake Pod: a /sys and /dev tree in a temp dir.

The scripts read absolute paths (/sys/class/infiniband, /dev/infiniband/uverbs*, /dev/rbln*, ...),
so the tree is rooted by rewriting each absolute /sys/ and /dev/ path of the script to the temp dir
(`2>/dev/null` stays the real one) and nothing else: every loop, test and echo runs as released.
`ulimit -H -l` and `id -u` print this machine's values; `run` reports them apart so a caller compares
the rest. v1 only tests that files exist (`[ -e ]`), so plain files stand in for device nodes.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

_ABSOLUTE = re.compile(r"(?<![\w./>$}])/(?=(?:sys|dev)/)(?!dev/null\b)")


def rooted(script: str, root: Path) -> str:
    """The script with each absolute /sys/... and /dev/... path moved under `root`."""
    if re.search(r"[^\w./-]", str(root)):
        raise ValueError(f"root {root} needs quoting in a shell glob")
    return _ABSOLUTE.sub(f"{root}/", script)


@dataclass(frozen=True, slots=True)
class FakePod:
    """What a container sees, as the v1 script reads it."""

    infiniband: tuple[str, ...] = ()  # /sys/class/infiniband entries (HCAs)
    uverbs: tuple[tuple[str, str], ...] = ()  # /dev/infiniband/uverbsN and its sysfs ibdev ("" none)
    npus: tuple[str, ...] = ()
    rsd: tuple[str, ...] = ()
    rds: tuple[str, ...] = ()
    netns: str = ""  # /sys/module/ib_core/parameters/netns_mode ("" when ib_core is not loaded)

    def build(self, root: Path) -> None:
        for hca in self.infiniband:
            (root / "sys/class/infiniband" / hca).mkdir(parents=True)
        for name, hca in self.uverbs:
            _touch(root / "dev/infiniband" / name)
            if hca:
                _touch(root / "sys/class/infiniband_verbs" / name / "ibdev", hca + "\n")
        for name in (*self.npus, *self.rsd, *self.rds):
            _touch(root / "dev" / name)
        if self.netns:
            _touch(root / "sys/module/ib_core/parameters/netns_mode", self.netns + "\n")


def _touch(path: Path, text: str = "") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


@dataclass(frozen=True, slots=True)
class Printed:
    stdout: str  # as printed, with this machine's memlock and uid lines replaced by the given ones
    memlock: str  # what `ulimit -H -l` printed here
    uid: str  # what `id -u` printed here


def run(script: str, pod: FakePod, root: Path, *, memlock: str, uid: str) -> Printed:
    """The script's stdout for `pod`, with the memlock and uid lines set to `memlock` and `uid`."""
    pod.build(root)
    done = subprocess.run(
        ["sh", "-c", rooted(script, root)], capture_output=True, text=True, check=True, timeout=30
    )
    lines = done.stdout.split("\n")
    machine = {tag: lines[lines.index(f"@@{tag}") + 1] for tag in ("memlock", "uid")}
    lines[lines.index("@@memlock") + 1] = memlock
    lines[lines.index("@@uid") + 1] = uid
    return Printed("\n".join(lines), machine["memlock"], machine["uid"])


def fake_pod(
    infiniband: Iterable[str] = (),
    uverbs: Iterable[tuple[str, ...]] = (),
    npus: Iterable[str] = (),
    rsd: Iterable[str] = (),
    rds: Iterable[str] = (),
    netns: str = "",
    **_: object,
) -> FakePod:
    """The FakePod of `format_probe_output` arguments (v1 reads no interfaces, ports or capabilities)."""
    return FakePod(
        tuple(infiniband), tuple((u[0], u[1]) for u in uverbs), tuple(npus), tuple(rsd), tuple(rds), netns
    )
