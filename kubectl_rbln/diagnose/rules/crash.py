"""A device Pod that runs but keeps restarting: the memlock limit of seed 002, or something else.

The modelserver entrypoint raises `ulimit -l` to unlimited and, with RDMA enabled,
exits when it cannot (seed 002, "containerd LimitMEMLOCK drop-in"). Its previous
log says so; `dump` keeps it as a PodLog item, a live run reads `logs --previous`.
"""

from __future__ import annotations

import re
from typing import Any

from kubectl_rbln.diagnose.context import PodContext
from kubectl_rbln.diagnose.findings import Finding
from kubectl_rbln.diagnose.registry import rule
from kubectl_rbln.dra.model import ContainerState, PodLog

MEMLOCK_PATTERN = re.compile(r"memlock|ulimit\s+-\w*l|RLIMIT_MEMLOCK|locked memory|max locked", re.IGNORECASE)
MAX_LOG_LINES = 3


def crashing(state: ContainerState) -> bool:
    return (
        state.restart_count > 0
        or state.reason in ("CrashLoopBackOff", "Error")
        or (state.state == "terminated" and state.reason not in ("Completed", ""))
    )


def _logs_for(ctx: PodContext, container: str) -> list[PodLog]:
    pod = ctx.pod
    logs = [
        log
        for log in ctx.snapshot.logs
        if log.namespace == pod.namespace and log.pod == pod.name and log.container == container
    ]
    return sorted(logs, key=lambda log: not log.previous)  # the previous run's log explains the crash


def _runtime_of(ctx: PodContext) -> str:
    node = ctx.snapshot.nodes.get(ctx.pod.node_name or "")
    runtime = (node.container_runtime if node else "").split(":", 1)[0]
    return runtime or "containerd"


@rule("crash.restarts", emits=("memlock-limit", "pod-crashing"))
def crashes(ctx: PodContext) -> list[Finding]:
    """A restarting container: the memlock limit when its log says so, else the crash itself."""
    findings = []
    pod = ctx.pod
    for state in ctx.pod.container_states:
        if not crashing(state):
            continue
        lines = [
            line.strip()
            for log in _logs_for(ctx, state.name)
            for line in log.log.splitlines()
            if MEMLOCK_PATTERN.search(line)
        ][:MAX_LOG_LINES]
        evidence: dict[str, Any] = {
            "pod": pod.key,
            "container": state.name,
            "node": pod.node_name,
            "restarts": state.restart_count,
            "state": state.reason or state.state,
            "lastExitCode": state.last_exit_code,
        }
        values: dict[str, Any] = {
            "namespace": pod.namespace,
            "pod": pod.name,
            "container": state.name,
            "node": pod.node_name or "<node>",
            "fix_nodes": [pod.node_name] if pod.node_name else [],  # the node-side fix runs where it crashes
            "restarts": state.restart_count,
            "reason": state.reason or state.last_reason or state.state or "restarting",
        }
        if lines:
            runtime = _runtime_of(ctx)
            evidence.update({"log": lines, "containerRuntime": runtime})
            values.update(runtime_containerd=runtime == "containerd", runtime_crio=runtime == "cri-o")
            findings.append(Finding("memlock-limit", values, evidence))
        else:
            evidence["logRead"] = bool(_logs_for(ctx, state.name))
            findings.append(Finding("pod-crashing", values, evidence))
    return findings
