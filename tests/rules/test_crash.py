"""rules/crash.py: memlock-limit (the modelserver log says so) and pod-crashing (anything else)."""

from __future__ import annotations

from rules_kit import assert_named, cluster, only, scenario

from kubectl_rbln.diagnose.rules import crash


def test_declarations():
    assert set(crash.crashes.emits) == {"memlock-limit", "pod-crashing"}


def test_memlock_limit_quotes_the_log_and_picks_the_containerd_fix():
    c = scenario("memlock-crash")
    findings = c.findings()
    finding = only(findings, "memlock-limit")
    assert "pod-crashing" not in {f.slug for f in findings}
    assert finding.severity == "error"
    pod = c.raw("Pod", c.pod)
    status = pod["status"]["containerStatuses"][0]
    assert finding.values["container"] == status["name"] == "modelserver"
    assert finding.values["restarts"] == status["restartCount"]
    assert finding.values["node"] == pod["spec"]["nodeName"]
    assert (finding.values["runtime_containerd"], finding.values["runtime_crio"]) == (True, False)
    assert any("ulimit -l" in line for line in finding.evidence["log"])
    en = "\n".join(finding.words("en").remediation)
    assert "LimitMEMLOCK=infinity" in en and "default_ulimits" not in en
    assert_named(finding, "modelserver", "LimitMEMLOCK=infinity")


def test_memlock_limit_on_cri_o_picks_the_crio_fix():
    c = scenario("memlock-crash")
    node = c.raw("Node", c.raw("Pod", c.pod)["spec"]["nodeName"])
    node["status"]["nodeInfo"]["containerRuntimeVersion"] = "cri-o://1.30.4"
    finding = only(c.findings(), "memlock-limit")
    assert (finding.values["runtime_containerd"], finding.values["runtime_crio"]) == (False, True)
    assert finding.evidence["containerRuntime"] == "cri-o"
    en = "\n".join(finding.words("en").remediation)
    assert "default_ulimits" in en and "LimitMEMLOCK=infinity" not in en


def test_pod_crashing_when_the_log_says_nothing_about_memlock():
    c = scenario("memlock-crash")
    for log in c.of_kind("PodLog"):
        log["log"] = "INFO: starting modelserver\nERROR: model weights not found at /models/llama, exiting\n"
    findings = c.findings()
    finding = only(findings, "pod-crashing")
    assert "memlock-limit" not in {f.slug for f in findings}
    assert finding.severity == "warning"
    assert finding.values["container"] == "modelserver"
    assert finding.evidence["logRead"] is True
    assert_named(
        finding, "modelserver", str(finding.values["restarts"]), f"logs {c.pod} -c modelserver --previous"
    )


def test_pod_crashing_says_no_log_was_read():
    c = scenario("memlock-crash")
    c.drop("PodLog")
    finding = only(c.findings(), "pod-crashing")
    assert finding.evidence["logRead"] is False


def test_running_pods_without_restarts_raise_nothing():
    c = scenario("healthy")
    assert not {"memlock-limit", "pod-crashing"} & set(c.slugs())
    c = cluster(prefill_running=1, decode_running=1, decode_pending=0)
    c.pod = c.builder.running_pods()[-1][1]
    assert not {"memlock-limit", "pod-crashing"} & set(c.slugs())
