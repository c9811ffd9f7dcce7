"""The `pod-devices` probe: one constant, read-only shell script run in each Pod through pods/exec.

Why one constant command: `dump` records its result as an `ExecCapture`, and the
replay server and `-f` find a capture by its exact argv, so the live run and the
offline read must send the very same `["sh", "-c", PROBE_SCRIPT]`. No user input
ever reaches the script: Pod and container names travel only as URL parameters.

The script lists the device nodes a prepared claim puts in a container
(ecosystem-facts.md 2.3: /dev/rbln<N>, /dev/rsd0, /dev/rblnfs*), the RDMA
devices (1.4: /sys/class/infiniband and /dev/infiniband/uverbs*, with each
uverbs device's HCA name, plus ib_core's netns_mode to tell shared from
exclusive RDMA mode), the hard memlock limit and the uid. It prints tagged
sections (`@@name`), one entry a line, between a versioned header and `@@end`.

Live runs open the exec websocket with one ApiClient per worker thread (ecosystem-facts.md 6.4)
through cluster/exec_socket.py, with the headers every live read sends (User-Agent, --as); the
Configuration is loaded as live reads load it: within --request-timeout, its credentials masked in
every message. Everything a Pod prints is untrusted and leaves this module sanitized.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field, replace
from typing import Any

from kubectl_rbln.cluster.client_flags import request_headers
from kubectl_rbln.cluster.exec_socket import open_exec
from kubectl_rbln.cluster.kubeconfig import (
    KubeContext,
    configuration_secrets,
    load_configuration,
    new_api_client,
)
from kubectl_rbln.cluster.redact import redact
from kubectl_rbln.dra.model import ExecCapture
from kubectl_rbln.dra.normalize import PLUGIN_API_VERSION
from kubectl_rbln.terminal import register_secret
from kubectl_rbln.text import one_line, safe_token

PROBE_HEADER_V1 = "@@rbln-probe v1"
PROBE_HEADER_V2 = "@@rbln-probe v2"
PROBE_HEADER = "@@rbln-probe v3"
PROBE_VERSION = 3
# The v1 script exactly as v1 sent it (76704013d5, tests/data/probes/v1.sh): the backslash-newline
# in the uverbs loop is a Python line continuation, so the shell got that loop as one line. Bundles
# taken before v2 recorded this argv, and -f and serve find a capture by its argv.
PROBE_SCRIPT_V1 = """\
echo '@@rbln-probe v1'
echo '@@infiniband'
for f in /sys/class/infiniband/*; do [ -e "$f" ] && echo "${f##*/}"; done
echo '@@uverbs'
for f in /dev/infiniband/uverbs*; do [ -e "$f" ] || continue; n="${f##*/}"; d=''; \
read -r d 2>/dev/null < "/sys/class/infiniband_verbs/$n/ibdev"; echo "$n $d"; done
echo '@@npu'
for f in /dev/rbln[0-9]*; do [ -e "$f" ] && echo "${f##*/}"; done
echo '@@rsd'
for f in /dev/rsd*; do [ -e "$f" ] && echo "${f##*/}"; done
echo '@@rds'
for f in /dev/rblnfs*; do [ -e "$f" ] && echo "${f##*/}"; done
echo '@@memlock'
ulimit -H -l
echo '@@uid'
id -u 2>/dev/null
echo '@@netns'
m=''; read -r m 2>/dev/null < /sys/module/ib_core/parameters/netns_mode; echo "$m"
echo '@@end'
"""
# The copy of v1 that 38b52810fb kept for reading (tests/data/probes/v1-kept.sh): it escaped the
# backslash, so its argv differs from every real v1 capture; it was committed on main (the old-capture
# Pods of testing/pod_devices_cases.py recorded it), so it is still accepted, never sent.
PROBE_SCRIPT_V1_KEPT = """\
echo '@@rbln-probe v1'
echo '@@infiniband'
for f in /sys/class/infiniband/*; do [ -e "$f" ] && echo "${f##*/}"; done
echo '@@uverbs'
for f in /dev/infiniband/uverbs*; do [ -e "$f" ] || continue; n="${f##*/}"; d=''; \\
read -r d 2>/dev/null < "/sys/class/infiniband_verbs/$n/ibdev"; echo "$n $d"; done
echo '@@npu'
for f in /dev/rbln[0-9]*; do [ -e "$f" ] && echo "${f##*/}"; done
echo '@@rsd'
for f in /dev/rsd*; do [ -e "$f" ] && echo "${f##*/}"; done
echo '@@rds'
for f in /dev/rblnfs*; do [ -e "$f" ] && echo "${f##*/}"; done
echo '@@memlock'
ulimit -H -l
echo '@@uid'
id -u 2>/dev/null
echo '@@netns'
m=''; read -r m 2>/dev/null < /sys/module/ib_core/parameters/netns_mode; echo "$m"
echo '@@end'
"""
# v2 adds, with shell builtins only (`cd -P` + `pwd -P` resolve a sysfs device link without readlink):
# - @@net: each network interface but lo: operstate, MTU and the PCI address behind its device link
#   (dranet moves the allocated netdev into the Pod's netns and may rename it: pkg/driver/hostdevice.go);
# - @@rdma: each RDMA device: its first port's state and link layer, its PCI address and the uverbs
#   device sysfs names for it (dranet moves the RDMA link only in exclusive mode: pkg/driver/nri_hooks.go);
# - @@uverbs: whether each /dev/infiniband/uverbsN opens read-write, as libibverbs opens it (dranet
#   injects these character devices through NRI, apart from the netdev: nri_hooks.go createContainer).
# The v2 script, kept verbatim for the bundles that recorded it.
PROBE_SCRIPT_V2 = """\
echo '@@rbln-probe v2'
echo '@@net'
for f in /sys/class/net/*; do [ -e "$f" ] || continue; n="${f##*/}"; [ "$n" = lo ] && continue; \\
s=''; m=''; p=''; read -r s 2>/dev/null < "$f/operstate"; read -r m 2>/dev/null < "$f/mtu"; \\
[ -e "$f/device" ] && p=$(cd -P "$f/device" 2>/dev/null && pwd -P); \\
echo "$n state=$s mtu=$m pci=${p##*/}"; done
echo '@@rdma'
for f in /sys/class/infiniband/*; do [ -e "$f" ] || continue; n="${f##*/}"; s=''; l=''; p=''; u=''; \\
for q in "$f"/ports/*; do [ -e "$q" ] || continue; read -r s 2>/dev/null < "$q/state"; \\
read -r l 2>/dev/null < "$q/link_layer"; break; done; p=$(cd -P "$f/device" 2>/dev/null && pwd -P); \\
for v in "$f"/device/infiniband_verbs/uverbs*; do [ -e "$v" ] && u="${v##*/}"; done; \\
s="${s#*: }"; echo "$n port=$s link=$l pci=${p##*/} uverbs=$u"; done
echo '@@infiniband'
for f in /sys/class/infiniband/*; do [ -e "$f" ] && echo "${f##*/}"; done
echo '@@uverbs'
for f in /dev/infiniband/uverbs*; do [ -e "$f" ] || continue; n="${f##*/}"; d=''; o=no; \\
read -r d 2>/dev/null < "/sys/class/infiniband_verbs/$n/ibdev"; (exec 3<>"$f") 2>/dev/null && o=yes; \\
echo "$n $d open=$o"; done
echo '@@npu'
for f in /dev/rbln[0-9]*; do [ -e "$f" ] && echo "${f##*/}"; done
echo '@@rsd'
for f in /dev/rsd*; do [ -e "$f" ] && echo "${f##*/}"; done
echo '@@rds'
for f in /dev/rblnfs*; do [ -e "$f" ] && echo "${f##*/}"; done
echo '@@memlock'
ulimit -H -l
echo '@@uid'
id -u 2>/dev/null
echo '@@netns'
m=''; read -r m 2>/dev/null < /sys/module/ib_core/parameters/netns_mode; echo "$m"
echo '@@end'
"""
# v3 adds, still builtins only, what decides whether the memlock limit binds (memlock_exempt):
# - @@capeff: the shell's own effective capabilities (CapEff of /proc/self/status, hex): a process
#   started in the container the same way has them, after execve, as a non-root user too;
# - @@uidmap: the first line of /proc/self/uid_map ("0 0 4294967295": the initial user namespace;
#   a Pod with hostUsers: false maps its uids, and its capabilities do not count there).
PROBE_SCRIPT = """\
echo '@@rbln-probe v3'
echo '@@net'
for f in /sys/class/net/*; do [ -e "$f" ] || continue; n="${f##*/}"; [ "$n" = lo ] && continue; \\
s=''; m=''; p=''; read -r s 2>/dev/null < "$f/operstate"; read -r m 2>/dev/null < "$f/mtu"; \\
[ -e "$f/device" ] && p=$(cd -P "$f/device" 2>/dev/null && pwd -P); \\
echo "$n state=$s mtu=$m pci=${p##*/}"; done
echo '@@rdma'
for f in /sys/class/infiniband/*; do [ -e "$f" ] || continue; n="${f##*/}"; s=''; l=''; p=''; u=''; \\
for q in "$f"/ports/*; do [ -e "$q" ] || continue; read -r s 2>/dev/null < "$q/state"; \\
read -r l 2>/dev/null < "$q/link_layer"; break; done; p=$(cd -P "$f/device" 2>/dev/null && pwd -P); \\
for v in "$f"/device/infiniband_verbs/uverbs*; do [ -e "$v" ] && u="${v##*/}"; done; \\
s="${s#*: }"; echo "$n port=$s link=$l pci=${p##*/} uverbs=$u"; done
echo '@@infiniband'
for f in /sys/class/infiniband/*; do [ -e "$f" ] && echo "${f##*/}"; done
echo '@@uverbs'
for f in /dev/infiniband/uverbs*; do [ -e "$f" ] || continue; n="${f##*/}"; d=''; o=no; \\
read -r d 2>/dev/null < "/sys/class/infiniband_verbs/$n/ibdev"; (exec 3<>"$f") 2>/dev/null && o=yes; \\
echo "$n $d open=$o"; done
echo '@@npu'
for f in /dev/rbln[0-9]*; do [ -e "$f" ] && echo "${f##*/}"; done
echo '@@rsd'
for f in /dev/rsd*; do [ -e "$f" ] && echo "${f##*/}"; done
echo '@@rds'
for f in /dev/rblnfs*; do [ -e "$f" ] && echo "${f##*/}"; done
echo '@@memlock'
ulimit -H -l
echo '@@uid'
id -u 2>/dev/null
echo '@@netns'
m=''; read -r m 2>/dev/null < /sys/module/ib_core/parameters/netns_mode; echo "$m"
echo '@@capeff'
c=''; [ -r /proc/self/status ] && while read -r k v; do [ "$k" = CapEff: ] && c="$v" && break; \\
done < /proc/self/status; echo "$c"
echo '@@uidmap'
u=''; read -r u 2>/dev/null < /proc/self/uid_map; echo "$u"
echo '@@end'
"""
PROBE_COMMAND: tuple[str, ...] = ("sh", "-c", PROBE_SCRIPT)
PROBE_COMMAND_V2: tuple[str, ...] = ("sh", "-c", PROBE_SCRIPT_V2)
PROBE_COMMAND_V1: tuple[str, ...] = ("sh", "-c", PROBE_SCRIPT_V1)
PROBE_COMMAND_V1_KEPT: tuple[str, ...] = ("sh", "-c", PROBE_SCRIPT_V1_KEPT)
# newest first: what -f and serve accept from a bundle, every probe text ever committed on main
# (tests/data/probes/ holds them as the history has them; tests/pod_devices/test_probe_history.py)
PROBE_COMMANDS = (PROBE_COMMAND, PROBE_COMMAND_V2, PROBE_COMMAND_V1, PROBE_COMMAND_V1_KEPT)
SECTIONS = (
    "net", "rdma", "infiniband", "uverbs", "npu", "rsd", "rds", "memlock", "uid", "netns", "capeff", "uidmap"
)  # fmt: skip
HEADERS = {PROBE_HEADER: PROBE_VERSION, PROBE_HEADER_V2: 2, PROBE_HEADER_V1: 1}
CAP_IPC_LOCK = 14  # include/uapi/linux/capability.h
CAP_SYS_RESOURCE = 24
INITIAL_USER_NAMESPACE = "0 0 4294967295"
MAX_OUTPUT = 64 * 1024  # the probe prints a few hundred bytes; more is a misbehaving Pod
MAX_ENTRIES = 256
DEFAULT_CONTAINER = "modelserver"
NO_SHELL_EXIT_CODES = (126, 127)  # the runtime could not find or start sh


@dataclass(frozen=True, slots=True)
class ProbeTarget:
    namespace: str
    pod: str
    container: str

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.pod}"


@dataclass(slots=True)
class ProbeRun:
    """What one exec returned, raw: output and exit code, or why no exit code came back."""

    target: ProbeTarget
    stdout: str = ""
    stderr: str = ""
    exit_code: int | None = None
    error_kind: str = (
        ""  # forbidden | timeout | not-found | bad-request | unauthorized | connection | not-captured
    )
    error: str = ""  # one sanitized line
    values: dict[str, Any] = field(default_factory=dict)  # what the catalog's words for `error_kind` need


@dataclass(frozen=True, slots=True)
class ProbeProblem:
    """Why a Pod has no probe result: `short` fits a table cell, `message` is the one clear line
    (English, for -o json); `values` fill the catalog's `pod-devices-probe-<kind>` words; `detail`
    is what the cluster or the Pod said (stderr, the API server's message), shown quoted."""

    kind: str
    short: str
    message: str
    values: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class NetIf:
    """One network interface the Pod sees (v2): dranet moved it in, maybe under another name."""

    name: str
    state: str = ""  # operstate: up | down | unknown | ...
    mtu: str = ""
    pci: str = ""  # 0000:1a:00.0 when its device link resolves to a PCI function, else ""

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "state": self.state, "mtu": self.mtu, "pci": self.pci}


@dataclass(frozen=True, slots=True)
class RdmaDev:
    """One RDMA device the Pod sees (v2): an entry of /sys/class/infiniband with its first port."""

    name: str
    port: str = ""  # ACTIVE | DOWN | INIT | ... ("4: ACTIVE" without its number)
    link: str = ""  # Ethernet (RoCE) | InfiniBand
    pci: str = ""
    uverbs: str = ""  # the uverbs device sysfs names for it (uverbs0), "" when sysfs does not say

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "port": self.port,
            "link": self.link,
            "pci": self.pci,
            "uverbs": self.uverbs,
        }


@dataclass(slots=True)
class ProbeResult:
    """The parsed, sanitized sections."""

    version: int = PROBE_VERSION
    interfaces: list[NetIf] = field(default_factory=list)  # v2
    rdma: list[RdmaDev] = field(default_factory=list)  # v2
    infiniband: list[str] = field(default_factory=list)
    uverbs: list[str] = field(default_factory=list)
    uverbs_hca: dict[str, str] = field(default_factory=dict)  # uverbs0 -> bnxt_re0, when sysfs says
    uverbs_open: dict[str, bool] = field(default_factory=dict)  # v2: uverbs0 -> opened read-write
    npus: list[str] = field(default_factory=list)
    rsd: list[str] = field(default_factory=list)
    rds: list[str] = field(default_factory=list)
    memlock: str = ""  # "unlimited" or KiB as printed by ulimit
    uid: int | None = None
    netns_mode: str = ""  # "shared" | "exclusive" | "" (ib_core not loaded or unreadable)
    cap_eff: str = ""  # v3: CapEff in hex ("" unknown)
    uid_map: str = ""  # v3: the first line of /proc/self/uid_map, spaces collapsed ("" unknown)

    def has_capability(self, bit: int) -> bool:
        """The capability is effective and counts for the kernel's checks: `capable()` asks the initial
        user namespace, so a Pod in its own user namespace (hostUsers: false) does not have it there."""
        if not self.cap_eff or self.uid_map != INITIAL_USER_NAMESPACE:
            return False
        return bool(int(self.cap_eff, 16) >> bit & 1)

    @property
    def memlock_exempt(self) -> str:
        """Why the memlock limit does not bind this container ("" when it does, or nobody knows):
        CAP_IPC_LOCK locks beyond RLIMIT_MEMLOCK (man 2 mlock; RDMA memory registration checks the
        same, ib_umem_get in drivers/infiniband/core/umem.c), CAP_SYS_RESOURCE raises the hard limit
        itself (man 2 setrlimit), as the modelserver entrypoint tries at startup."""
        if self.has_capability(CAP_IPC_LOCK):
            return "CAP_IPC_LOCK"
        if self.has_capability(CAP_SYS_RESOURCE):
            return "CAP_SYS_RESOURCE"
        return ""

    @property
    def knows_links(self) -> bool:
        """v2 lists interfaces and RDMA devices; a v1 capture only counts HCAs and uverbs devices."""
        return self.version >= 2

    def openable(self, uverbs: str) -> bool:
        """The uverbs device exists and (v2) opened; v1 never tried, so existing is all it can say."""
        return uverbs in self.uverbs and self.uverbs_open.get(uverbs, not self.knows_links)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "probeVersion": self.version,
            "infiniband": self.infiniband,
            "uverbs": self.uverbs,
            "uverbsHCA": self.uverbs_hca,
            "npus": self.npus,
            "rsd": self.rsd,
            "rds": self.rds,
            "memlock": self.memlock,
            "uid": self.uid,
            "netnsMode": self.netns_mode,
        }
        if self.knows_links:
            out["interfaces"] = [i.to_dict() for i in self.interfaces]
            out["rdmaDevices"] = [r.to_dict() for r in self.rdma]
            out["uverbsOpen"] = self.uverbs_open
        if self.version >= 3:
            out["capEff"] = self.cap_eff
            out["uidMap"] = self.uid_map
        return out


class ProbeParseError(ValueError):
    """The output is not the probe's: a wrapper image, a truncated stream, or a hostile Pod.
    `got` is its first line when the header is wrong, "" when the end marker is missing."""

    def __init__(self, message: str, got: str = "") -> None:
        super().__init__(message)
        self.got = got


# ---------------------------------------------------------------- parsing


def format_probe_output(
    *,
    interfaces: Iterable[tuple[str, str, str, str]] = (),
    rdma: Iterable[tuple[str, str, str, str, str]] = (),
    infiniband: Iterable[str] = (),
    uverbs: Iterable[tuple[str, ...]] = (),
    npus: Iterable[str] = (),
    rsd: Iterable[str] = (),
    rds: Iterable[str] = (),
    memlock: str = "unlimited",
    uid: str = "2000",
    netns: str = "",
    capeff: str = "",
    uidmap: str = INITIAL_USER_NAMESPACE,
    version: int = PROBE_VERSION,
) -> str:
    """What PROBE_SCRIPT prints, section by section: the inverse of `parse_probe`, for synthetic bundles.

    interfaces: (name, operstate, mtu, pci); rdma: (name, port state, link layer, pci, uverbs);
    uverbs: (name, hca) or (name, hca, "yes"|"no" opened); capeff: CapEff in hex, uidmap: uid_map's
    first line (v3). version=1 and 2 print the older formats.
    """
    if version == 1:
        lines = [PROBE_HEADER_V1, "@@infiniband", *infiniband, "@@uverbs"]
        lines += [f"{u[0]} {u[1]}" for u in uverbs]
    else:
        lines = [PROBE_HEADER if version >= 3 else PROBE_HEADER_V2, "@@net"]
        lines += [f"{n} state={st} mtu={m} pci={p}" for n, st, m, p in interfaces]
        lines += ["@@rdma"]
        lines += [f"{n} port={st} link={lk} pci={p} uverbs={u}" for n, st, lk, p, u in rdma]
        lines += ["@@infiniband", *infiniband, "@@uverbs"]
        lines += [f"{u[0]} {u[1]} open={u[2] if len(u) > 2 else 'yes'}" for u in uverbs]
    lines += ["@@npu", *npus, "@@rsd", *rsd, "@@rds", *rds, "@@memlock", memlock, "@@uid", uid]
    lines += ["@@netns", netns]
    if version >= 3:
        lines += ["@@capeff", capeff, "@@uidmap", uidmap]
    return "\n".join([*lines, "@@end"]) + "\n"


def parse_probe(stdout: str) -> ProbeResult:
    """Tagged sections -> ProbeResult; unknown sections are ignored, every entry is sanitized."""
    lines = stdout.splitlines()
    header = lines[0].strip() if lines else ""
    if header not in HEADERS:
        first = one_line(lines[0] if lines else "", 80) or "nothing"
        raise ProbeParseError(f"the probe's output does not start with its header (got: {first})", first)
    sections: dict[str, list[str]] = {}
    current: str | None = None
    ended = False
    for line in lines[1:]:
        text = line.strip()
        if text == "@@end":
            ended = True
            break
        if text.startswith("@@"):
            current = text[2:]
            sections.setdefault(current, [])
        elif current is not None and text and len(sections[current]) < MAX_ENTRIES:
            sections[current].append(text)
    if not ended:
        raise ProbeParseError("the probe's output is incomplete (no end marker)")
    result = ProbeResult(version=HEADERS[header])
    if result.knows_links:
        result.interfaces = [_net(entry) for entry in sections.get("net") or []]
        result.rdma = [_rdma(entry) for entry in sections.get("rdma") or []]
        result.interfaces = [i for i in result.interfaces if i.name]
        result.rdma = [r for r in result.rdma if r.name]
    result.infiniband = _tokens(sections.get("infiniband"))
    result.npus = _tokens(sections.get("npu"))
    result.rsd = _tokens(sections.get("rsd"))
    result.rds = _tokens(sections.get("rds"))
    for entry in sections.get("uverbs") or []:
        words, fields = _split(entry)
        name = words[0] if words else ""
        if not name:
            continue
        result.uverbs.append(name)
        if len(words) > 1:
            result.uverbs_hca[name] = words[1]
        if "open" in fields:
            result.uverbs_open[name] = fields["open"] == "yes"
    result.uverbs = sorted(set(result.uverbs), key=_natural)
    memlock = _tokens(sections.get("memlock"))
    result.memlock = memlock[0] if memlock else ""
    uid = _tokens(sections.get("uid"))
    result.uid = int(uid[0]) if uid and uid[0].isdigit() else None
    mode = _tokens(sections.get("netns"))
    result.netns_mode = {"Y": "shared", "1": "shared", "N": "exclusive", "0": "exclusive"}.get(
        mode[0] if mode else "", ""
    )
    cap = _tokens(sections.get("capeff"))
    result.cap_eff = cap[0] if cap and re.fullmatch(r"[0-9a-fA-F]{1,16}", cap[0]) else ""
    result.uid_map = " ".join(safe_token(t, 16) for t in (sections.get("uidmap") or [""])[0].split()[:3])
    return result


def _split(entry: str) -> tuple[list[str], dict[str, str]]:
    """One probe line: its bare words and its key=value fields, each sanitized."""
    words: list[str] = []
    fields: dict[str, str] = {}
    for part in entry.split():
        key, eq, value = part.partition("=")
        if eq and key.isalpha():
            fields[key] = safe_token(value) if value else ""
        elif safe_token(part):
            words.append(safe_token(part))
    return words, fields


def _net(entry: str) -> NetIf:
    words, f = _split(entry)
    return NetIf(words[0] if words else "", f.get("state", ""), f.get("mtu", ""), _pci(f.get("pci", "")))


def _rdma(entry: str) -> RdmaDev:
    words, f = _split(entry)
    port = f.get("port", "").upper()
    return RdmaDev(
        words[0] if words else "", port, f.get("link", ""), _pci(f.get("pci", "")), f.get("uverbs", "")
    )


_PCI = re.compile(r"^[0-9a-f]{4,}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$")


def _pci(text: str) -> str:
    """A PCI address (domain:bus:device.function), lower case; anything else (virtio2) is no address."""
    text = text.lower()
    return text if _PCI.match(text) else ""


def _tokens(entries: list[str] | None) -> list[str]:
    return sorted({t for t in (safe_token(e) for e in entries or []) if t}, key=_natural)


def _natural(name: str) -> tuple[Any, ...]:
    """rbln2 before rbln10."""
    return tuple(int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name))


def interpret(run: ProbeRun) -> tuple[ProbeResult | None, ProbeProblem | None]:
    """A run's parsed result, or the one problem that stands in for it."""
    container = run.target.container
    if run.error_kind:
        kind = run.error_kind
        return None, ProbeProblem(kind, _SHORT.get(kind, "error"), run.error, run.values)
    stderr = one_line(run.stderr)
    values: dict[str, Any] = {"exit_code": run.exit_code, "detail": stderr}
    if run.exit_code in NO_SHELL_EXIT_CODES and not run.stdout.startswith(tuple(HEADERS)):
        detail = f": {stderr}" if stderr else ""
        return None, ProbeProblem(
            "no-shell",
            "no shell",
            f'cannot start sh in container "{container}" (exit code {run.exit_code}{detail}); '
            "an image without a shell cannot be probed",
            values,
        )
    if run.exit_code not in (0, None):
        detail = f": {stderr}" if stderr else ""
        return None, ProbeProblem(
            "exit-code",
            f"exit {run.exit_code}",
            f"the probe exited with code {run.exit_code}{detail}",
            values,
        )
    try:
        return parse_probe(run.stdout), None
    except ProbeParseError as exc:
        return None, ProbeProblem("bad-output", "bad output", str(exc), {"got": exc.got})


_SHORT = {
    "forbidden": "forbidden",
    "timeout": "timeout",
    "not-found": "not found",
    "bad-request": "refused",
    "unauthorized": "unauthorized",
    "connection": "unreachable",
    "not-captured": "not captured",
    "too-large": "too large",
}


# ---------------------------------------------------------------- offline: captures


def from_captures(captures: Iterable[ExecCapture], target: ProbeTarget) -> ProbeRun:
    """The recorded probe of one Pod in a bundle (`dump` wrote it), matched on the exact argv of any
    probe version (newest first), read with the same rules as a live run: a recorded failure keeps its
    cause, and output over MAX_OUTPUT is "too large" here as it is live."""
    mine = [
        c
        for c in captures
        if c.namespace == target.namespace and c.pod == target.pod and c.container in ("", target.container)
    ]
    for command in PROBE_COMMANDS:
        capture = next((c for c in mine if tuple(c.command) == command), None)
        if capture is None:
            continue
        if capture.error_reason:
            values = {k: one_line(str(v)) for k, v in capture.error_values.items()}
            return ProbeRun(
                target, error_kind=capture.error_reason, error=one_line(capture.error), values=values
            )
        if len(capture.stdout) + len(capture.stderr) > MAX_OUTPUT:
            return ProbeRun(target, error_kind="too-large", error=too_large_message(), values=_limit())
        return ProbeRun(target, capture.stdout, capture.stderr, capture.exit_code)
    return ProbeRun(
        target,
        error_kind="not-captured",
        error=f'the bundle has no pod-devices probe for container "{target.container}" '
        "(take the bundle with `kubectl rbln dump`, which records it for running device Pods)",
    )


def _limit() -> dict[str, Any]:
    return {"limit": f"{MAX_OUTPUT // 1024} KiB"}


def too_large_message() -> str:
    """The one line for output past MAX_OUTPUT, live and offline alike."""
    return f"the probe printed more than {MAX_OUTPUT // 1024} KiB; stopped reading"


def capture_item(run: ProbeRun) -> dict[str, Any]:
    """A run as the `ExecCapture` item `dump` writes (docs/replay-server.md). A run that never got an
    exit code (forbidden, timeout, too large) is recorded with its cause under `error`, so the bundle
    says offline what the cluster said live."""
    item: dict[str, Any] = {
        "apiVersion": PLUGIN_API_VERSION,
        "kind": "ExecCapture",
        "metadata": {"name": run.target.pod, "namespace": run.target.namespace},
        "container": run.target.container,
        "command": list(PROBE_COMMAND),
    }
    if run.exit_code is None:
        item["error"] = {"reason": run.error_kind or "connection", "message": run.error, "values": run.values}
        return item
    item.update({"stdout": run.stdout, "stderr": run.stderr, "exitCode": run.exit_code})
    return item


# ---------------------------------------------------------------- live: exec over websocket


class ExecProbeRunner:
    """Runs the probe in many Pods at once: a bounded pool, one ApiClient per worker, a per-Pod deadline."""

    def __init__(self, ctx: KubeContext, *, timeout: float, workers: int = 8) -> None:
        self.ctx = ctx
        self.timeout = timeout if timeout > 0 else 3600.0
        self.workers = max(1, workers)
        self._local = threading.local()
        # a bad kubeconfig, or a credential plugin that hangs past the deadline, ends the command here
        self._configuration = load_configuration(ctx, timeout=self.timeout)
        self._secrets = configuration_secrets(self._configuration)
        for secret in self._secrets:  # the terminal writer masks them too
            register_secret(secret)
        self._headers = request_headers(ctx.flags)
        _bound_websocket_blocking(self.timeout)
        import kubernetes.client  # noqa: PLC0415, F401 - imported here, not in the first worker: the
        import kubernetes.stream  # noqa: PLC0415, F401 - progress clock then measures only the probes

    def _api(self) -> Any:
        """This worker's ApiClient of its own; the Configuration is loaded once."""
        api = getattr(self._local, "api", None)
        if api is None:
            api = new_api_client(self._configuration)
            self._local.api = api
        return api

    def run_all(
        self, targets: list[ProbeTarget], progress: Callable[[int, int], None] | None = None
    ) -> list[ProbeRun]:
        """One run per target, in the targets' order; a failing Pod never stops the others."""
        if not targets:
            return []
        results: dict[int, ProbeRun] = {}
        with ThreadPoolExecutor(
            max_workers=min(self.workers, len(targets)), thread_name_prefix="probe"
        ) as pool:
            futures = {pool.submit(self.run_one, target): index for index, target in enumerate(targets)}
            for done, future in enumerate(as_completed(futures), start=1):
                results[futures[future]] = future.result()
                if progress is not None:
                    progress(done, len(targets))
        return [results[i] for i in range(len(targets))]

    def run_one(self, target: ProbeTarget) -> ProbeRun:
        deadline = time.monotonic() + self.timeout
        try:
            ws = open_exec(
                self._api(),
                target.namespace,
                target.pod,
                target.container,
                list(PROBE_COMMAND),
                self._headers,
            )
        except Exception as exc:  # the websocket handshake's error, or a socket or TLS error
            return _failed(target, exc, self.timeout, self._secrets)
        try:
            return _collect(ws, target, deadline, self.timeout)
        except Exception as exc:  # the connection dropped mid-stream
            return _failed(target, exc, self.timeout, self._secrets)
        finally:
            ws.close()


def _bound_websocket_blocking(timeout: float) -> None:
    """websocket-client's connect and recv block without limit unless its default timeout is set;
    `stream()` offers no other way to pass one. This process runs one command, so setting the
    module default bounds every handshake by the per-Pod timeout."""
    import websocket  # noqa: PLC0415

    websocket.setdefaulttimeout(timeout)


def _collect(ws: Any, target: ProbeTarget, deadline: float, timeout: float) -> ProbeRun:
    while ws.is_open():
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return ProbeRun(
                target,
                error_kind="timeout",
                error=f"the probe did not finish within {timeout:g}s (--timeout)",
                values={"timeout": f"{timeout:g}s"},
            )
        ws.update(timeout=min(remaining, 1.0))
        if len(ws.peek_stdout(timeout=0)) + len(ws.peek_stderr(timeout=0)) > MAX_OUTPUT:
            return ProbeRun(target, error_kind="too-large", error=too_large_message(), values=_limit())
    stdout = ws.read_stdout(timeout=0)
    stderr = ws.read_stderr(timeout=0)
    code, message = _exit_status(ws.read_channel(3, timeout=0))
    if code is None:
        return ProbeRun(
            target,
            stdout,
            stderr,
            error_kind="bad-request",
            error=f"exec failed: {one_line(message) or 'no exit status received'}",
            values={"status": "-", "detail": one_line(message)},
        )
    return ProbeRun(target, stdout, stderr, code)


def _exit_status(text: str) -> tuple[int | None, str]:
    """The Status kubelet sends on channel 3: Success -> 0, NonZeroExitCode -> its code."""
    try:
        status = json.loads(text) if text else {}
    except ValueError:
        return None, text
    if not isinstance(status, dict):
        return None, text
    if status.get("status") == "Success":
        return 0, ""
    for cause in (status.get("details") or {}).get("causes") or []:
        if isinstance(cause, dict) and cause.get("reason") == "ExitCode":
            try:
                return int(str(cause.get("message"))), str(status.get("message", ""))
            except ValueError:
                break
    return None, str(status.get("message", ""))


_HANDSHAKE = re.compile(r"Handshake status (\d{3})")


def _failed(
    target: ProbeTarget, exc: BaseException, timeout: float, secrets: tuple[str, ...] = ()
) -> ProbeRun:
    text = redact(str(getattr(exc, "reason", "") or exc), secrets)  # a server may echo a token back
    kind, message = describe_exec_failure(text, target, timeout)
    match = _HANDSHAKE.search(text)
    values = {
        "namespace": target.namespace,
        "timeout": f"{timeout:g}s",
        "status": match.group(1) if match else "-",
        "detail": _server_message(text) or ("" if kind in ("forbidden", "timeout") else one_line(text)),
    }
    return ProbeRun(target, error_kind=kind, error=message, values=values)


def describe_exec_failure(text: str, target: ProbeTarget, timeout: float) -> tuple[str, str]:
    """The one clear line for an exec that never produced an exit code (websocket-client's wording in)."""
    match = _HANDSHAKE.search(text)
    status = int(match.group(1)) if match else 0
    server = _server_message(text)
    ns = target.namespace
    if status == 403:
        return "forbidden", (
            f'exec forbidden: your user may not exec into Pods in namespace "{ns}": pods/exec needs get '
            f"and create (check: kubectl auth can-i get pods/exec -n {ns}; the opt-in Role "
            f"kubectl-rbln-exec: kubectl rbln explain rbac){': ' + server if server else ''}"
        )
    if status == 401:
        return "unauthorized", "exec refused: the cluster rejected our credentials (401 Unauthorized)"
    if status == 404:
        return "not-found", f'pod "{target.pod}" not found (deleted since it was listed?)'
    if status in (400, 409, 500):
        return "bad-request", f"exec refused ({status}): {server or one_line(text)}"
    if match:
        return "bad-request", f"exec refused ({status}): {server or one_line(text)}"
    lowered = text.lower()
    if "timed out" in lowered or "timeout" in lowered:
        return "timeout", f"the probe did not finish within {timeout:g}s (--timeout)"
    if "refused" in lowered or "name or service not known" in lowered:
        return "connection", f"cannot reach the cluster for exec: {one_line(text)}"
    return "connection", f"exec failed: {one_line(text) or 'unknown error'}"


def _server_message(text: str) -> str:
    """The `message` of the Status body websocket-client appends to a failed handshake."""
    start = text.find('{"')
    while start != -1:
        end = text.rfind("}")
        try:
            body = json.loads(text[start : end + 1].encode("utf-8").decode("unicode_escape"))
        except ValueError:
            start = text.find('{"', start + 1)
            continue
        if isinstance(body, dict) and isinstance(body.get("message"), str):
            return one_line(body["message"])
        start = text.find('{"', start + 1)
    return ""


# ---------------------------------------------------------------- dump: record the probe for -f

DUMP_TIMEOUT = 20.0


def dump_targets(objects: Iterable[dict[str, Any]]) -> list[ProbeTarget]:
    """Running device Pods, probed in `modelserver` when they have it, else in their first container."""
    from kubectl_rbln.cluster.source import is_device_pod  # noqa: PLC0415

    targets = []
    for pod in objects:
        if pod.get("kind") != "Pod" or not is_device_pod(pod):
            continue
        if (pod.get("status") or {}).get("phase") != "Running":
            continue
        names = [str(c.get("name", "")) for c in (pod.get("spec") or {}).get("containers") or []]
        if not names:
            continue
        meta = pod.get("metadata") or {}
        container = DEFAULT_CONTAINER if DEFAULT_CONTAINER in names else names[0]
        targets.append(ProbeTarget(str(meta.get("namespace", "")), str(meta.get("name", "")), container))
    return targets


def _dump_limit(run: ProbeRun) -> ProbeRun:
    """A timeout in `dump` is dump's own per-Pod limit (it has no --timeout): say so, live and offline."""
    if run.error_kind != "timeout":
        return run
    limit, most = run.values.get("timeout", ""), f"{DUMP_TIMEOUT:g}s"
    return replace(
        run,
        error=f"the probe did not finish within {limit} (`kubectl rbln dump` waits at most {most} per Pod, "
        "less with --request-timeout)",
        values={**run.values, "by": "dump", "most": most},
    )


def dump_probes(collector: Any, objects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`dump`'s extra collector: one ExecCapture per running device Pod, failed probes included.

    A probe that never got an exit code (forbidden, timeout, too large) is recorded with its
    cause, so `pod-devices -f` says what the live run said; it is also named once per cause in
    the collector's problems, so `dump` warns about it on stderr.
    """
    targets = dump_targets(objects)
    if not targets:
        return []
    timeout = min(DUMP_TIMEOUT, collector.client.timeout) if collector.client.timeout else DUMP_TIMEOUT
    runs = [_dump_limit(run) for run in ExecProbeRunner(collector.ctx, timeout=timeout).run_all(targets)]
    failed: dict[str, list[ProbeRun]] = {}
    for run in runs:
        if run.exit_code is None:
            failed.setdefault(run.error_kind, []).append(run)
    for kind, group in failed.items():
        pods = ", ".join(r.target.key for r in group[:5]) + (" ..." if len(group) > 5 else "")
        collector.problems.append(
            {
                "kind": "ExecCapture",
                "code": "forbidden" if kind == "forbidden" else "error",
                "message": f"pod-devices probe failed for {len(group)} Pod(s) ({pods}), recorded as failed: "
                f"{group[0].error}",
            }
        )
    return [capture_item(run) for run in runs]
