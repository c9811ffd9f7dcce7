"""Which lists a live read asks for: the DRA ones, and what a Pod's life stages are read from.

A Pod stuck before its claims exist, before a scheduler takes it or before the kubelet admits it is
explained by objects beside it: its owners (ReplicaSet, Deployment, StatefulSet, Job, CronJob), its
namespace's ResourceQuotas and LimitRanges, the schedulers' Leases and Pods in kube-system, and the
drivers' DaemonSets, Deployments and events in their own namespaces (domain.KUBELET_PLUGINS). Each is
one small list; a refused one is a problem entry of its kind, not the end of the read.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kubectl_rbln.domain import KUBELET_PLUGINS, plugin_driver

RESOURCE_GROUP = "resource.k8s.io"
SCHEDULER_NAMESPACE = "kube-system"  # kube-scheduler's leader election Lease and its static Pods
SCHEDULER_LABEL = "component=kube-scheduler"  # kubeadm's label of the scheduler's static Pod


@dataclass(frozen=True, slots=True)
class ListSpec:
    kind: str
    resource: str
    group: str  # "" for core
    namespaced: bool
    # a list outside the read's scope: read in this namespace whatever -n says ("" : the scope)
    namespace: str = ""
    label: str = ""  # a label selector, as `kubectl -l` takes it
    wanted: Callable[[dict[str, Any]], bool] | None = None  # items kept (the rest of the list is dropped)
    purpose: str = ""  # what a refusal costs, for its problem entry ("the schedulers' Pods")


def list_path(spec: ListSpec, version: str, namespace: str | None) -> str:
    base = "/api/v1" if not spec.group else f"/apis/{spec.group}/{version}"
    if spec.namespaced and namespace:
        return f"{base}/namespaces/{namespace}/{spec.resource}"
    return f"{base}/{spec.resource}"


CORE_LISTS = (
    ListSpec("Node", "nodes", "", False),
    ListSpec("Pod", "pods", "", True),
    ListSpec("Event", "events", "", True),
    # labels only (resource.kubernetes.io/admin-access, issue 12, 4); a refused list is a problem entry
    # and the admin-access rule stays silent, nothing else reads it
    ListSpec("Namespace", "namespaces", "", False),
)
DRA_LISTS = (
    ListSpec("DeviceClass", "deviceclasses", RESOURCE_GROUP, False),
    ListSpec("ResourceSlice", "resourceslices", RESOURCE_GROUP, False),
    ListSpec("ResourceClaimTemplate", "resourceclaimtemplates", RESOURCE_GROUP, True),
    ListSpec("ResourceClaim", "resourceclaims", RESOURCE_GROUP, True),
)
# DeviceTaintRules (DRADeviceTaintRules): v1alpha3 in 1.33/1.34, v1beta2 from 1.35 (kubernetes/api
# resource/v1beta2/types.go, v0.36.2), and only where the API is enabled: a 404 is "not served", no problem.
TAINT_RULES = ListSpec("DeviceTaintRule", "devicetaintrules", RESOURCE_GROUP, False)
TAINT_RULE_VERSIONS = ("v1beta2", "v1alpha3")

# Read in the scope (-n NS, or every namespace): what owns a Pod and what admission holds it to.
# All served in v1 (apps/v1, batch/v1 since Kubernetes 1.21, core).
SCOPE_LISTS = (
    ListSpec("ReplicaSet", "replicasets", "apps", True),
    ListSpec("Deployment", "deployments", "apps", True),
    ListSpec("StatefulSet", "statefulsets", "apps", True),
    ListSpec("Job", "jobs", "batch", True),
    ListSpec("CronJob", "cronjobs", "batch", True),
    ListSpec("ResourceQuota", "resourcequotas", "", True),
    ListSpec("LimitRange", "limitranges", "", True),
)
# Whatever the scope: the schedulers' leader election (kube-scheduler's Lease, a second scheduler's).
LEASES = ListSpec(
    "Lease",
    "leases",
    "coordination.k8s.io",
    True,
    namespace=SCHEDULER_NAMESPACE,
    purpose="the schedulers' leader election",
)
SCHEDULER_PODS = ListSpec(
    "Pod", "pods", "", True, SCHEDULER_NAMESPACE, SCHEDULER_LABEL, purpose="the scheduler's Pods"
)


DRIVER_SETS = "the drivers' DaemonSets"
DEPLOYMENTS = "the drivers' Deployments"


def driver_namespaces() -> list[str]:
    """The namespaces the drivers' kubelet plugins run in (rbln-system, kube-system), sorted."""
    return sorted({plugin.namespace for plugin in KUBELET_PLUGINS.values()})


def is_driver_event(event: dict[str, Any]) -> bool:
    """An event about a driver's DaemonSet (FailedCreate...) or one of its Pods (BackOff, FailedMount...)."""
    involved = event.get("involvedObject")
    if not isinstance(involved, dict):
        return False
    kind, name = involved.get("kind"), involved.get("name")
    if not isinstance(name, str):
        return False
    if kind == "DaemonSet":
        return any(name == plugin.name_prefix for plugin in KUBELET_PLUGINS.values())
    return kind == "Pod" and plugin_driver(name, {}) is not None


def stage_lists(scope: str | None) -> list[ListSpec]:
    """The lists of a Pod's life stages for a read of namespace `scope` (None: every namespace): a list of
    another namespace only where the scope's own list does not already hold it."""
    lists = [*SCOPE_LISTS, LEASES]
    if scope is not None and scope != SCHEDULER_NAMESPACE:
        lists.append(SCHEDULER_PODS)
    for namespace in driver_namespaces():
        lists.append(ListSpec("DaemonSet", "daemonsets", "apps", True, namespace, purpose=DRIVER_SETS))
        if scope is None or namespace == scope:
            continue
        lists.append(ListSpec("Deployment", "deployments", "apps", True, namespace, purpose=DEPLOYMENTS))
        lists.append(
            ListSpec(
                "Event",
                "events",
                "",
                True,
                namespace=namespace,
                wanted=is_driver_event,
                purpose="events of the drivers' DaemonSets and Pods",
            )
        )
    return lists


def _list_kinds() -> dict[str, str]:
    """Resource plural -> the kind of its items, for every list a live read asks for."""
    specs = [*CORE_LISTS, *DRA_LISTS, TAINT_RULES, *SCOPE_LISTS, LEASES]
    kinds = {spec.resource: spec.kind for spec in specs}
    kinds["daemonsets"] = "DaemonSet"
    return kinds


LIST_KINDS = _list_kinds()


def list_answer_problem(path: str, page: Any) -> str | None:
    """What is wrong with a 200 answer to a list (a Status, another kind, `items` not a list), or None.
    Why: read as a list, such an answer has no items, and no items reads as nothing wrong."""
    resource = path.rstrip("/").rsplit("/", 1)[-1]
    item_kind = LIST_KINDS.get(resource)
    wanted = f"{item_kind}List" if item_kind else "list"
    if not isinstance(page, dict):
        return f"the server answered a JSON {_json_type(page)}, not a {wanted}"
    kind = page.get("kind")
    if kind == "Status":
        said = page.get("message")
        detail = f" ({said})" if isinstance(said, str) and said else ""
        return f"the server answered 200 with a Status{detail}, not a {wanted}"
    if not isinstance(kind, str) or not kind.endswith("List") or (item_kind and kind not in (wanted, "List")):
        found = f"a {kind}" if isinstance(kind, str) and kind else "an object without kind"
        return f"the server answered {found}, not a {wanted}"
    items = page.get("items")
    if items is not None and not isinstance(items, list):
        return f"the server answered a {kind} whose items are a JSON {_json_type(items)}, not an array"
    return None


def _json_type(value: Any) -> str:
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool):
        return "boolean"
    if value is None:
        return "null"
    return "number"
