"""The after-scheduling family: a bound Pod whose node cannot start it (kubelet plugin not registered,
NodePrepareResources errors, CDI specs gone after a reboot, dranet's NRI hook), from the upstream
reports of testing/synthetic/upstream_after_scheduling.py."""

from __future__ import annotations

from typing import Any

import pytest

from kubectl_rbln.cluster.live import ApiRefusal
from kubectl_rbln.cluster.source import LiveCollector, waiting_nodes
from testing.synthetic.builder import ClusterBuilder
from testing.synthetic.scenarios import SCENARIOS
from testing.synthetic.upstream_after_scheduling import KNOBS, SEED, _prepare_error, _target, plugin_pod
from tests.rules.rules_kit import Cluster, assert_named, only


def scenario(name: str) -> Cluster:
    s = SCENARIOS[name]
    return Cluster(ClusterBuilder(SEED, "v1", KNOBS), s.build("v1"), s.pending_pod)


def without_events(c: Cluster) -> Cluster:
    c.objects = [o for o in c.objects if o["kind"] != "Event"]
    return c


# ---------------------------------------------------------------- nri-sandbox-failed


def test_host_network_pod_with_dranet_nics_names_the_hook_error():
    c = scenario("nri-host-network")
    finding = only(c.findings(), "nri-sandbox-failed")
    assert finding.case == "host-network" and finding.severity == "error"
    assert "using host network can not claim host devices" in finding.values["error"]
    assert finding.evidence["count"] == 41 and finding.evidence["hostNetwork"] is True
    assert finding.values["claims"] and all(d.startswith("npu-node-") for d in finding.values["devices"])
    # the owner's template drops hostNetwork (its Pods roll out again), after a server-side preview
    patch = (
        f"kubectl -n serving patch {finding.values['restart']} --type=merge"
        """ -p '{"spec":{"template":{"spec":{"hostNetwork":false}}}}'"""
    )
    assert_named(finding, "hostNetwork: true", finding.values["node"], f"{patch} --dry-run=server")
    lines = finding.words("en").remediation
    assert lines.index(f"{patch} --dry-run=server") < lines.index(patch)
    assert not any("delete pod" in line for line in lines)  # the same template would make it again
    assert "kubelet-prepare-failed" not in c.slugs()


def test_host_network_is_found_from_the_objects_when_events_expired():
    finding = only(without_events(scenario("nri-host-network")).findings(), "nri-sandbox-failed")
    assert finding.case == "host-network" and finding.evidence["spec.hostNetwork"] is True


def test_other_nri_errors_have_the_generic_words():
    c = scenario("nri-host-network")
    pod = c.raw("Pod", c.pod)
    pod["spec"].pop("hostNetwork")
    ev = next(o for o in c.objects if o["kind"] == "Event" and o["reason"] == "FailedCreatePodSandBox")
    ev["message"] = (
        "Failed to create pod sandbox: rpc error: code = Unknown desc = NRI RunPodSandbox failed: "
        "error moving network device pci-0000-d4-00-0 to namespace /var/run/netns/cni-1: file exists"
    )
    finding = only(c.findings(), "nri-sandbox-failed")
    assert finding.case is None
    assert_named(finding, "error moving network device", "app=dranet")


def test_a_host_network_pod_without_dranet_nics_is_not_blamed():
    c = without_events(scenario("nri-host-network"))
    claim = next(
        o for o in c.objects if o["kind"] == "ResourceClaim" and o["metadata"]["name"].startswith(c.pod)
    )
    results = claim["status"]["allocation"]["devices"]["results"]
    results[:] = [r for r in results if r["driver"] != "dra.net"]
    assert "nri-sandbox-failed" not in c.slugs()


# ---------------------------------------------------------------- kubelet plugin not registered


def test_oomkilled_plugin_is_named_with_its_last_state():
    c = scenario("kubelet-plugin-oomkilled")
    finding = only(c.findings(), "kubelet-prepare-failed")
    assert finding.case == "plugin-crashing"
    values = finding.values
    assert values["driver"] == "npu.rebellions.ai" and values["driver_namespace"] == "rbln-system"
    assert values["driver_pod"].startswith("rbln-dra-kubelet-plugin-")
    assert (values["last_reason"], values["exit_code"], values["restarts"]) == ("OOMKilled", 137, 9)
    assert finding.evidence["kubeletPluginEvents"]
    # no memory limit read, no RBLNClusterPolicy known: the policies are shown, nothing is edited blind
    read = (
        "kubectl get rblnclusterpolicy"
        " -o custom-columns=NAME:.metadata.name,RESOURCES:.spec.draKubeletPlugin.resources"
    )
    assert_named(finding, values["driver_pod"], "OOMKilled", "137", read, "spec.draKubeletPlugin.resources")
    assert not any(" edit " in line or "patch" in line for line in finding.words("en").remediation)


def _limit_memory(pod: dict[str, Any], limit: str) -> None:
    pod["spec"]["containers"][0]["resources"] = {"limits": {"memory": limit}}


def test_oomkilled_npu_plugin_gets_twice_its_limit_through_its_rblnclusterpolicy():
    c = scenario("kubelet-plugin-oomkilled")
    node = c.raw("Pod", c.pod)["spec"]["nodeName"]
    crashing = next(
        o
        for o in c.objects
        if o["kind"] == "Pod"
        and o["metadata"]["name"].startswith("rbln-dra")
        and o["spec"]["nodeName"] == node
    )
    _limit_memory(crashing, "256Mi")
    daemonset = next(
        o
        for o in c.objects
        if o["kind"] == "DaemonSet" and o["metadata"]["name"] == "rbln-dra-kubelet-plugin"
    )
    daemonset["metadata"]["ownerReferences"] = [
        {
            "apiVersion": "rebellions.ai/v1",
            "kind": "RBLNClusterPolicy",
            "name": "rbln-policy",
            "controller": True,
            "uid": "u1",
        }
    ]
    finding = only(c.findings(), "kubelet-prepare-failed")
    assert (finding.values["memory_limit"], finding.values["memory"], finding.values["policy"]) == (
        "256Mi",
        "512Mi",
        "rbln-policy",
    )
    patch = (
        "kubectl patch rblnclusterpolicy/rbln-policy --type=merge -p"
        """ '{"spec":{"draKubeletPlugin":{"resources":{"limits":{"memory":"512Mi"}}}}}'"""
    )
    assert_named(finding, f"{patch} --dry-run=server", patch, "256Mi")
    for lang in ("en", "ko"):
        lines = finding.words(lang).remediation
        assert lines.index(f"{patch} --dry-run=server") < lines.index(patch)


def test_crashing_plugin_is_found_after_the_events_expired():
    finding = only(without_events(scenario("kubelet-plugin-oomkilled")).findings(), "kubelet-prepare-failed")
    assert finding.case == "plugin-crashing" and "no kubelet event left" in finding.values["message"]


def test_dranet_plugin_crash_points_at_its_daemonset():
    c = scenario("kubelet-plugin-oomkilled")
    ev = next(o for o in c.objects if o["kind"] == "Event" and o["reason"] == "FailedPrepareDynamicResources")
    ev["message"] = ev["message"].replace("npu.rebellions.ai", "dra.net")
    node = c.raw("Pod", c.pod)["spec"]["nodeName"]
    c.objects = [
        o for o in c.objects if not (o["kind"] == "Pod" and o["metadata"]["name"].startswith("dranet-"))
    ]
    crashing = plugin_pod("dra.net", node, 2, oom_restarts=4)
    c.objects.append(crashing)
    finding = only(c.findings(), "kubelet-prepare-failed")
    assert finding.case == "plugin-crashing" and finding.values["driver_namespace"] == "kube-system"
    read = (
        "kubectl -n kube-system get daemonset dranet"
        " -o jsonpath='{.spec.template.spec.containers[*].resources}'"
    )
    assert_named(finding, read)  # no limit read: where to raise it, nothing patched blind
    _limit_memory(crashing, "1Gi")
    finding = only(c.findings(), "kubelet-prepare-failed")
    patch = (
        "kubectl -n kube-system patch daemonset/dranet -p"
        """ '{"spec":{"template":{"spec":{"containers":[{"name":"dranet","""
        """"resources":{"limits":{"memory":"2048Mi"}}}]}}}}'"""
    )
    assert_named(finding, f"{patch} --dry-run=server", patch)


def test_plugin_without_a_pod_on_the_node_is_missing():
    c = scenario("kubelet-plugin-oomkilled")
    node = c.raw("Pod", c.pod)["spec"]["nodeName"]
    c.objects = [
        o
        for o in c.objects
        if not (
            o["kind"] == "Pod"
            and o["metadata"]["name"].startswith("rbln-dra")
            and o["spec"]["nodeName"] == node
        )
    ]
    finding = only(c.findings(), "kubelet-prepare-failed")
    assert finding.case == "plugin-missing"
    assert_named(finding, node, "rebellions.ai/npu.deploy.dra-kubelet-plugin=true")


def test_not_registered_without_plugin_pods_read_gives_the_commands_to_look():
    c = scenario("kubelet-plugin-oomkilled")
    c.objects = [o for o in c.objects if o["metadata"].get("namespace") not in ("rbln-system", "kube-system")]
    finding = only(c.findings(), "kubelet-prepare-failed")
    assert finding.case == "not-registered"
    assert_named(finding, "is not registered", "-l app=rbln-dra-kubelet-plugin")


# ---------------------------------------------------------------- NodePrepareResources errors


def test_node_prepare_error_names_claim_driver_and_error():
    c = scenario("kubelet-plugin-oomkilled")
    c.objects = ClusterBuilder(SEED, "v1", KNOBS).build()
    _prepare_error(c.objects, _target(c.objects))
    finding = only(c.findings(), "kubelet-prepare-failed")
    assert finding.case == "prepare-error"
    claim = finding.values["claim"]
    assert claim.startswith(c.pod) and "dra.net" in finding.values["driver"]
    assert finding.values["error"] == "failed to get netlink to interface ens7f0np0: Link not found"
    assert_named(finding, claim, "Link not found", f"get resourceclaim {claim}")


# ---------------------------------------------------------------- CDI specs gone


@pytest.mark.parametrize("events", [True, False])
def test_unresolvable_cdi_devices_after_reboot(events: bool):
    c = scenario("cdi-missing-after-reboot")
    if not events:
        without_events(c)  # the container's waiting message keeps the runtime's error
    finding = only(c.findings(), "kubelet-prepare-failed")
    assert finding.case == "cdi-missing"
    devices = finding.values["cdi_devices"]
    assert devices and all(d.startswith("k8s.npu.rebellions.ai/npu=") for d in devices)
    assert finding.values["driver"] == "npu.rebellions.ai"
    assert_named(finding, devices[0], "/var/run/cdi", f"delete pod {c.pod}")


# ---------------------------------------------------------------- reads: the live source


def test_waiting_nodes_are_bound_pending_device_pods():
    assert waiting_nodes([(True, "Pending", "n1"), (True, "Running", "n2"), (False, "Pending", "n3")]) == {
        "n1"
    }
    assert waiting_nodes([(True, "Pending", None)]) == set()


class _Client:
    def __init__(self, forbid: set[str], pods: dict[str, list[dict[str, Any]]]):
        self.forbid, self.pods, self.paths = forbid, pods, []

    def list(self, path: str, query: dict[str, Any] | None = None, keep: Any = None) -> list[Any]:
        self.paths.append((path, query))
        namespace = path.split("/")[4]
        if namespace in self.forbid:
            raise ApiRefusal(
                403, "list", "pods", f'pods is forbidden: cannot list resource "pods" in "{namespace}"'
            )
        if path.endswith("/events"):
            return []
        return self.pods.get(namespace, [])

    def get_text(self, path: str, query: dict[str, Any] | None = None) -> str:
        return "E0914 kubelet plugin: out of memory"


def _collector(client: _Client) -> LiveCollector:
    collector = LiveCollector.__new__(LiveCollector)
    collector.client = client  # type: ignore[assignment]
    collector.namespace = "serving"
    collector.problems = []
    return collector


def test_live_reads_plugin_pods_their_events_and_crash_logs_on_waiting_nodes():
    crashing = plugin_pod("npu.rebellions.ai", "npu-node-01", 0, oom_restarts=3)
    elsewhere = plugin_pod("npu.rebellions.ai", "npu-node-02", 1)
    client = _Client(set(), {"rbln-system": [crashing, elsewhere]})
    objects = _collector(client).kubelet_plugin_objects({"npu-node-01"}, set())
    kinds = [(o["kind"], o["metadata"]["name"]) for o in objects]
    assert kinds == [("Pod", crashing["metadata"]["name"]), ("PodLog", crashing["metadata"]["name"])]
    assert (
        "/api/v1/namespaces/rbln-system/pods",
        {"labelSelector": "app=rbln-dra-kubelet-plugin"},
    ) in client.paths
    assert ("/api/v1/namespaces/kube-system/pods", {"labelSelector": "app=dranet"}) in client.paths
    assert any(
        p.endswith("/events")
        and q == {"fieldSelector": f"involvedObject.name={crashing['metadata']['name']}"}
        for p, q in client.paths
    )


def test_forbidden_plugin_namespace_degrades_to_a_pod_problem():
    collector = _collector(_Client({"kube-system"}, {}))
    assert collector.kubelet_plugin_objects({"npu-node-01"}, set()) == []
    assert [p["kind"] for p in collector.problems] == ["Pod"]
    assert "dra.net's kubelet plugin in kube-system" in collector.problems[0]["message"]


def test_no_waiting_node_reads_nothing():
    client = _Client(set(), {})
    assert _collector(client).kubelet_plugin_objects(set(), set()) == [] and client.paths == []
