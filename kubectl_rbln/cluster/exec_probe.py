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

Live runs go through the official client's `kubernetes.stream.stream()` over
websocket with one ApiClient per worker thread: `stream()` swaps the client's
request method while it runs, so a shared client corrupts concurrent execs
(ecosystem-facts.md 6.4). Everything a Pod prints is untrusted and leaves this
module sanitized.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from typing import Any

from kubectl_rbln.cluster.kubeconfig import KubeContext, load_configuration, new_api_client
from kubectl_rbln.dra.model import ExecCapture
from kubectl_rbln.dra.normalize import PLUGIN_API_VERSION
from kubectl_rbln.text import one_line, safe_token

PROBE_HEADER = "@@rbln-probe v1"
PROBE_SCRIPT = """\
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
PROBE_COMMAND: tuple[str, ...] = ("sh", "-c", PROBE_SCRIPT)
SECTIONS = ("infiniband", "uverbs", "npu", "rsd", "rds", "memlock", "uid", "netns")
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


@dataclass(frozen=True, slots=True)
class ProbeProblem:
    """Why a Pod has no probe result: `short` fits a table cell, `message` is the one clear line."""

    kind: str
    short: str
    message: str


@dataclass(slots=True)
class ProbeResult:
    """The parsed, sanitized sections."""

    infiniband: list[str] = field(default_factory=list)
    uverbs: list[str] = field(default_factory=list)
    uverbs_hca: dict[str, str] = field(default_factory=dict)  # uverbs0 -> bnxt_re0, when sysfs says
    npus: list[str] = field(default_factory=list)
    rsd: list[str] = field(default_factory=list)
    rds: list[str] = field(default_factory=list)
    memlock: str = ""  # "unlimited" or KiB as printed by ulimit
    uid: int | None = None
    netns_mode: str = ""  # "shared" | "exclusive" | "" (ib_core not loaded or unreadable)

    def to_dict(self) -> dict[str, Any]:
        return {
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


class ProbeParseError(ValueError):
    """The output is not the probe's: a wrapper image, a truncated stream, or a hostile Pod."""


# ---------------------------------------------------------------- parsing


def format_probe_output(
    *,
    infiniband: Iterable[str] = (),
    uverbs: Iterable[tuple[str, str]] = (),
    npus: Iterable[str] = (),
    rsd: Iterable[str] = (),
    rds: Iterable[str] = (),
    memlock: str = "unlimited",
    uid: str = "2000",
    netns: str = "",
) -> str:
    """What PROBE_SCRIPT prints, section by section: the inverse of `parse_probe`, for synthetic bundles."""
    lines = [PROBE_HEADER, "@@infiniband", *infiniband, "@@uverbs"]
    lines += [f"{name} {hca}" for name, hca in uverbs]
    lines += ["@@npu", *npus, "@@rsd", *rsd, "@@rds", *rds, "@@memlock", memlock, "@@uid", uid]
    lines += ["@@netns", netns, "@@end"]
    return "\n".join(lines) + "\n"


def parse_probe(stdout: str) -> ProbeResult:
    """Tagged sections -> ProbeResult; unknown sections are ignored, every entry is sanitized."""
    lines = stdout.splitlines()
    if not lines or lines[0].strip() != PROBE_HEADER:
        first = one_line(lines[0] if lines else "", 80) or "nothing"
        raise ProbeParseError(f"the probe's output does not start with its header (got: {first})")
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
    result = ProbeResult()
    result.infiniband = _tokens(sections.get("infiniband"))
    result.npus = _tokens(sections.get("npu"))
    result.rsd = _tokens(sections.get("rsd"))
    result.rds = _tokens(sections.get("rds"))
    for entry in sections.get("uverbs") or []:
        name, _, hca = entry.partition(" ")
        name = safe_token(name)
        result.uverbs.append(name)
        if hca.strip():
            result.uverbs_hca[name] = safe_token(hca)
    memlock = _tokens(sections.get("memlock"))
    result.memlock = memlock[0] if memlock else ""
    uid = _tokens(sections.get("uid"))
    result.uid = int(uid[0]) if uid and uid[0].isdigit() else None
    mode = _tokens(sections.get("netns"))
    result.netns_mode = {"Y": "shared", "1": "shared", "N": "exclusive", "0": "exclusive"}.get(
        mode[0] if mode else "", ""
    )
    return result


def _tokens(entries: list[str] | None) -> list[str]:
    return sorted({t for t in (safe_token(e) for e in entries or []) if t}, key=_natural)


def _natural(name: str) -> tuple[Any, ...]:
    """rbln2 before rbln10."""
    return tuple(int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name))


def interpret(run: ProbeRun) -> tuple[ProbeResult | None, ProbeProblem | None]:
    """A run's parsed result, or the one problem that stands in for it."""
    container = run.target.container
    if run.error_kind:
        return None, ProbeProblem(run.error_kind, _SHORT.get(run.error_kind, "error"), run.error)
    stderr = one_line(run.stderr)
    if run.exit_code in NO_SHELL_EXIT_CODES and not run.stdout.startswith(PROBE_HEADER):
        detail = f": {stderr}" if stderr else ""
        return None, ProbeProblem(
            "no-shell",
            "no shell",
            f'cannot start sh in container "{container}" (exit code {run.exit_code}{detail}); '
            "an image without a shell cannot be probed",
        )
    if run.exit_code not in (0, None):
        detail = f": {stderr}" if stderr else ""
        return None, ProbeProblem(
            "exit-code", f"exit {run.exit_code}", f"the probe exited with code {run.exit_code}{detail}"
        )
    try:
        return parse_probe(run.stdout), None
    except ProbeParseError as exc:
        return None, ProbeProblem("bad-output", "bad output", str(exc))


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
    """The recorded probe of one Pod in a bundle (`dump` wrote it), matched on the exact argv."""
    for capture in captures:
        if (
            capture.namespace == target.namespace
            and capture.pod == target.pod
            and capture.container in ("", target.container)
            and tuple(capture.command) == PROBE_COMMAND
        ):
            return ProbeRun(target, capture.stdout, capture.stderr, capture.exit_code)
    return ProbeRun(
        target,
        error_kind="not-captured",
        error=f'the bundle has no pod-devices probe for container "{target.container}" '
        "(take the bundle with `kubectl rbln dump`, which records it for running device Pods)",
    )


def capture_item(run: ProbeRun) -> dict[str, Any]:
    """A finished run as the `ExecCapture` item `dump` writes (docs/replay-server.md)."""
    return {
        "apiVersion": PLUGIN_API_VERSION,
        "kind": "ExecCapture",
        "metadata": {"name": run.target.pod, "namespace": run.target.namespace},
        "container": run.target.container,
        "command": list(PROBE_COMMAND),
        "stdout": run.stdout,
        "stderr": run.stderr,
        "exitCode": run.exit_code if run.exit_code is not None else 1,
    }


# ---------------------------------------------------------------- live: exec over websocket


class ExecProbeRunner:
    """Runs the probe in many Pods at once: a bounded pool, one ApiClient per worker, a per-Pod deadline."""

    def __init__(self, ctx: KubeContext, *, timeout: float, workers: int = 8) -> None:
        self.ctx = ctx
        self.timeout = timeout if timeout > 0 else 3600.0
        self.workers = max(1, workers)
        self._local = threading.local()
        self._configuration = load_configuration(ctx)  # a bad kubeconfig ends the command here (exit 3)
        _bound_websocket_blocking(self.timeout)

    def _core(self) -> Any:
        """This worker's CoreV1Api over its own ApiClient; the Configuration is loaded once."""
        core = getattr(self._local, "core", None)
        if core is None:
            from kubernetes import client  # noqa: PLC0415 - keep --help light

            core = client.CoreV1Api(new_api_client(self._configuration))
            self._local.core = core
        return core

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
        from kubernetes.stream import stream  # noqa: PLC0415

        deadline = time.monotonic() + self.timeout
        try:
            ws = stream(
                self._core().connect_get_namespaced_pod_exec,
                target.pod,
                target.namespace,
                command=list(PROBE_COMMAND),
                container=target.container,
                stderr=True,
                stdin=False,
                stdout=True,
                tty=False,
                _preload_content=False,
            )
        except Exception as exc:  # ApiException(status=0) wrapping the websocket error, or a socket error
            return _failed(target, exc, self.timeout)
        try:
            return _collect(ws, target, deadline, self.timeout)
        except Exception as exc:  # the connection dropped mid-stream
            return _failed(target, exc, self.timeout)
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
            )
        ws.update(timeout=min(remaining, 1.0))
        if len(ws.peek_stdout(timeout=0)) + len(ws.peek_stderr(timeout=0)) > MAX_OUTPUT:
            return ProbeRun(
                target,
                error_kind="too-large",
                error=f"the probe printed more than {MAX_OUTPUT // 1024} KiB; stopped reading",
            )
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


def _failed(target: ProbeTarget, exc: BaseException, timeout: float) -> ProbeRun:
    kind, message = describe_exec_failure(str(getattr(exc, "reason", "") or exc), target, timeout)
    return ProbeRun(target, error_kind=kind, error=message)


def describe_exec_failure(text: str, target: ProbeTarget, timeout: float) -> tuple[str, str]:
    """The one clear line for an exec that never produced an exit code (websocket-client's wording in)."""
    match = _HANDSHAKE.search(text)
    status = int(match.group(1)) if match else 0
    server = _server_message(text)
    ns = target.namespace
    if status == 403:
        return "forbidden", (
            f'exec forbidden: your user may not create pods/exec in namespace "{ns}" '
            f"(check: kubectl auth can-i create pods/exec -n {ns}){': ' + server if server else ''}"
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


def dump_probes(collector: Any, objects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`dump`'s extra collector: one ExecCapture per running device Pod whose probe ran to an exit code.

    A probe that never got one (forbidden, timeout) is recorded once per cause in the
    collector's problems, so `dump` names it and the bundle says what it lacks.
    """
    targets = dump_targets(objects)
    if not targets:
        return []
    timeout = min(DUMP_TIMEOUT, collector.client.timeout) if collector.client.timeout else DUMP_TIMEOUT
    runs = ExecProbeRunner(collector.ctx, timeout=timeout).run_all(targets)
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
                "message": f"pod-devices probe not recorded for {len(group)} Pod(s) ({pods}): "
                f"{group[0].error}",
            }
        )
    return [capture_item(run) for run in runs if run.exit_code is not None]
