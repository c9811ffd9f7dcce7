"""Nodes, Events, Namespaces and the plugin's own kinds (PodLog, ExecCapture) -> model objects."""

from __future__ import annotations

from typing import Any

from kubectl_rbln.dra.fields import _d, _i, _l, _s, _str_map
from kubectl_rbln.dra.model import Event, ExecCapture, Namespace, Node, PodLog
from kubectl_rbln.dra.wire import NodeConditionWire


def normalize_node(obj: dict[str, Any]) -> Node:
    meta = _d(obj.get("metadata"))
    spec = _d(obj.get("spec"))
    status = _d(obj.get("status"))
    conditions = status.get("conditions")
    ready = True
    if conditions and conditions.__class__ is list and conditions[0].__class__ is NodeConditionWire:
        for wire in conditions:
            if wire.type_ == "Ready":
                ready = wire.status == "True"
                break
    else:
        for c in map(_d, _l(conditions)):
            if c.get("type") == "Ready":
                ready = c.get("status") == "True"
                break
    taints = spec.get("taints")
    info = _d(status.get("nodeInfo"))
    return Node(
        name=_s(meta.get("name")),
        labels=_str_map(meta.get("labels")),
        taints=[t for t in taints if isinstance(t, dict)] if isinstance(taints, list) else [],
        allocatable=_str_map(status.get("allocatable")),
        unschedulable=spec.get("unschedulable") is True,
        ready=ready,
        kubelet_version=_s(info.get("kubeletVersion")),
        container_runtime=_s(info.get("containerRuntimeVersion")),
    )


def normalize_event(obj: dict[str, Any]) -> Event:
    """core/v1 Events and events.k8s.io/v1 Events (`regarding`, `note`) alike."""
    meta = _d(obj.get("metadata"))
    involved = _d(obj.get("involvedObject")) or _d(obj.get("regarding"))
    series = _d(obj.get("series"))
    count = _i(obj.get("count")) or _i(series.get("count")) or 1
    source = (
        _s(_d(obj.get("source")).get("component"))
        or _s(obj.get("reportingController"))
        or _s(obj.get("reportingComponent"))
    )
    return Event(
        namespace=_s(meta.get("namespace")),
        involved_kind=_s(involved.get("kind")),
        involved_name=_s(involved.get("name")),
        involved_namespace=_s(involved.get("namespace")),
        reason=_s(obj.get("reason")),
        message=_s(obj.get("message")) or _s(obj.get("note")),
        type=_s(obj.get("type"), "Normal"),
        count=count,
        last_timestamp=_s(obj.get("lastTimestamp"))
        or _s(series.get("lastObservedTime"))
        or _s(obj.get("eventTime"))
        or _s(meta.get("creationTimestamp")),
        source=source,
        # as `kubectl events` reads it (kubernetes/kubectl pkg/cmd/events/event_printer.go getInterval)
        first_timestamp=_s(obj.get("eventTime")) or _s(obj.get("firstTimestamp")),
    )


def normalize_pod_log(obj: dict[str, Any]) -> PodLog:
    meta = _d(obj.get("metadata"))
    return PodLog(
        namespace=_s(meta.get("namespace"), "default"),
        pod=_s(meta.get("name")),
        container=_s(obj.get("container")),
        previous=obj.get("previous") is True,
        log=_s(obj.get("log")),
    )


def normalize_exec_capture(obj: dict[str, Any]) -> ExecCapture:
    meta = _d(obj.get("metadata"))
    error = _d(obj.get("error"))  # dump records a probe that got no exit code with its cause
    return ExecCapture(
        namespace=_s(meta.get("namespace"), "default"),
        pod=_s(meta.get("name")),
        container=_s(obj.get("container")),
        command=[str(part) for part in _l(obj.get("command"))],
        stdout=_s(obj.get("stdout")),
        stderr=_s(obj.get("stderr")),
        exit_code=_i(obj.get("exitCode")),
        error_reason=_s(error.get("reason")),
        error=_s(error.get("message")),
        error_values=_d(error.get("values")),
    )


def normalize_namespace(obj: dict[str, Any]) -> Namespace:
    meta = _d(obj.get("metadata"))
    labels = {str(k): str(v) for k, v in _d(meta.get("labels")).items()}
    return Namespace(name=_s(meta.get("name")), labels=labels)
