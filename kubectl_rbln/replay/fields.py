"""Which fields each resource lets a field selector use, as kube-apiserver decides.

The parsing and matching are kubectl_rbln/selectors.py, shared with `-l`; what
is replay-specific is this table: the apiserver refuses a field selector on a
field the resource does not index, and so must the replay server, or kubectl
would behave differently against a bundle than against a cluster.
"""

from __future__ import annotations

from kubectl_rbln.selectors import FieldRequirement
from kubectl_rbln.selectors import parse_field_selector as parse_fields

_COMMON_FIELDS = ("metadata.name", "metadata.namespace")
# plural -> fields the apiserver supports beyond metadata.name/namespace
SUPPORTED_FIELDS: dict[str, tuple[str, ...]] = {
    "pods": (
        "spec.nodeName",
        "spec.restartPolicy",
        "spec.schedulerName",
        "spec.serviceAccountName",
        "spec.hostNetwork",
        "status.phase",
        "status.podIP",
        "status.nominatedNodeName",
    ),
    "events": (
        "involvedObject.kind",
        "involvedObject.namespace",
        "involvedObject.name",
        "involvedObject.uid",
        "involvedObject.apiVersion",
        "involvedObject.resourceVersion",
        "involvedObject.fieldPath",
        "reason",
        "reportingComponent",
        "source",
        "type",
    ),
    "nodes": ("spec.unschedulable",),
    "namespaces": ("status.phase",),
    "resourceslices": ("spec.nodeName", "spec.driver"),
}


def supported_fields(plural: str) -> tuple[str, ...]:
    """metadata.name and metadata.namespace, plus what this resource adds."""
    return _COMMON_FIELDS + SUPPORTED_FIELDS.get(plural, ())


def parse_field_selector(text: str, plural: str) -> list[FieldRequirement]:
    """`spec.nodeName=n1,status.phase!=Failed` for resource `plural`; unknown fields are refused."""
    return parse_fields(text, supported_fields(plural))
