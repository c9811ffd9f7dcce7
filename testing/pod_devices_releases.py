"""`pod-devices` cases for every probe script that shipped: one bundle, one running Pod per case, each
probe recorded under the exact argv its release sent (`["sh", "-c", <tests/data/probes/*.sh>]`, the texts
testing/probe_history.py extracts from the git history), not under today's constants.

The cluster is testing/pod_devices_cases.py's (RBLN NPUs, dranet NICs without `dra.net/rdmaDevice`).
Besides a healthy Pod per released text, it holds the facts the v1 probe can see about uverbs
devices, each once in the v1 format and once in v3's, so a test holds v1's verdict against v3's:
- `second-hca-no-uverbs`: both HCAs moved in (exclusive mode), only the first has /dev/infiniband/uverbs0;
- `no-uverbs`: both HCAs moved in, no uverbs device at all;
- `no-uverbs-mode-unread`: as `no-uverbs`, ib_core's netns_mode not readable;
- `shared-second-no-uverbs`: shared mode, the host's 4 HCAs visible, one uverbs device for 2 NICs;
- `second-no-uverbs-unnamed` (v1 only): 2 HCAs, 1 uverbs device that sysfs does not name (no ibdev).
What v1 prints for these Pods is checked against the released v1 script run by `sh` on a fake tree
(testing/probe_sim.py; tests/pod_devices/test_probe_releases.py).
"""

from __future__ import annotations

import re
from typing import Any

from kubectl_rbln.cluster.exec_probe import format_probe_output
from testing.pod_devices_cases import Cases, capture
from testing.probe_history import RELEASED, Released, fixture_text

NS = "serving"
BY_FIXTURE = {r.fixture: r for r in RELEASED}
# case -> (the released script that recorded it, the finding slugs it must show)
CASES: dict[str, tuple[str, list[str]]] = {
    "v3-healthy": ("v3.sh", []),
    "v2-healthy": ("v2.sh", []),
    "v1-healthy": ("v1.sh", []),
    "v1-kept-healthy": ("v1-kept.sh", []),
    "v1-second-hca-no-uverbs": ("v1.sh", ["uverbs-missing"]),
    "v3-second-hca-no-uverbs": ("v3.sh", ["uverbs-missing"]),
    "v1-no-uverbs": ("v1.sh", ["uverbs-missing"]),
    "v3-no-uverbs": ("v3.sh", ["uverbs-missing"]),
    "v1-no-uverbs-mode-unread": ("v1.sh", ["uverbs-missing"]),
    "v3-no-uverbs-mode-unread": ("v3.sh", ["uverbs-missing"]),
    "v1-shared-second-no-uverbs": ("v1.sh", ["uverbs-missing"]),
    "v3-shared-second-no-uverbs": ("v3.sh", ["uverbs-missing"]),
    "v1-second-no-uverbs-unnamed": ("v1.sh", ["uverbs-missing"]),
}
# the v1 case and the v3 case that hold the same fact: same slugs, same severities
SAME_FACT = [(c, "v3" + c[2:]) for c in CASES if c.startswith("v1-") and "v3" + c[2:] in CASES]


def released(case: str) -> Released:
    return BY_FIXTURE[CASES[case][0]]


def version(case: str) -> int:
    return int(released(case).header[1:])


def argv(case: str) -> list[str]:
    """The exact argv the case's release sent: its script text as the history holds it."""
    return ["sh", "-c", fixture_text(released(case))]


def facts(cases: Cases, case: str, pod: str) -> dict[str, Any]:
    """format_probe_output() arguments for the case's Pod (without its version)."""
    healthy = cases.healthy(pod)
    fact = re.sub(r"^v\d(-kept)?-", "", case)
    one_uverbs = healthy["uverbs"][:1]
    if fact == "healthy":
        return healthy
    if fact == "second-hca-no-uverbs":
        return {**healthy, "uverbs": one_uverbs}
    if fact == "no-uverbs":
        return {**healthy, "uverbs": []}
    if fact == "no-uverbs-mode-unread":
        return {**healthy, "uverbs": [], "netns": ""}
    if fact == "shared-second-no-uverbs":  # the host's other two HCAs are visible in shared mode
        host = [
            ("bnxt_re6", "ACTIVE", "Ethernet", "0000:b1:00.0", ""),
            ("bnxt_re7", "ACTIVE", "Ethernet", "", ""),
        ]
        return {
            **healthy,
            "netns": "Y",
            "rdma": healthy["rdma"] + host,
            "infiniband": [*healthy["infiniband"], "bnxt_re6", "bnxt_re7"],
            "uverbs": one_uverbs,
        }
    if fact == "second-no-uverbs-unnamed":  # /sys/class/infiniband_verbs not readable: no ibdev
        return {**healthy, "uverbs": [(one_uverbs[0][0], "")]}
    raise KeyError(case)


def build_release_cases() -> tuple[list[dict[str, Any]], dict[str, str], dict[str, dict[str, Any]]]:
    """The bundle's objects, case -> Pod name, and case -> the facts its probe printed."""
    cases = Cases()
    running = cases.pods()
    names = dict(zip(CASES, running, strict=False))
    objects = cases.objects
    for pod in running:
        cases.network_status(pod)
    recorded = {}
    for case, pod in names.items():
        recorded[case] = facts(cases, case, pod)
        stdout = format_probe_output(**recorded[case], version=version(case))
        objects.append(capture(pod, stdout, command=argv(case)))
    return objects, names, recorded
