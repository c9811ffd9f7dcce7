"""Real kubectl through `kubectl rbln serve` shows a bundle's owners, Leases, quotas and limit ranges, as it
would against the cluster the bundle came from; a bundle without any still answers their lists, empty."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from testing.synthetic.builder import ClusterBuilder, write_bundle
from tests.e2e.conftest import KUBECTL, kubectl_rbln_serve, plugin_env

KINDS = "deployments,replicasets,statefulsets,daemonsets,jobs,cronjobs,leases,resourcequotas,limitranges"


def _objects() -> list[dict]:
    objects = ClusterBuilder(11).build()
    meta = {"namespace": "serving"}
    objects += [
        {
            "apiVersion": "v1",
            "kind": "ResourceQuota",
            "metadata": {"name": "npu-quota", **meta},
            "spec": {"hard": {"pods": "8"}},
            "status": {"hard": {"pods": "8"}, "used": {"pods": "3"}},
        },
        {
            "apiVersion": "v1",
            "kind": "LimitRange",
            "metadata": {"name": "defaults", **meta},
            "spec": {"limits": [{"type": "Container", "default": {"memory": "1Gi"}}]},
        },
    ]
    return objects


def _kubectl(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(KUBECTL), *args], capture_output=True, text=True, env=env, timeout=30, check=False
    )


def test_kubectl_gets_owners_leases_quotas_and_limit_ranges_of_a_served_bundle(tmp_path: Path) -> None:
    bundle, kubeconfig = tmp_path / "bundle.json", tmp_path / "kubeconfig"
    objects = _objects()
    write_bundle(str(bundle), objects)
    env = plugin_env(tmp_path, KUBECONFIG=str(kubeconfig))
    with kubectl_rbln_serve(bundle, kubeconfig, env):
        listed = _kubectl(env, "get", KINDS, "-A", "-o", "json")
        table = _kubectl(env, "get", "deployments,leases", "-A")
        one = _kubectl(env, "get", "lease", "kube-scheduler", "-n", "kube-system", "-o", "json")
        short = _kubectl(env, "get", "deploy,rs,quota,limits", "-n", "serving", "-o", "name")
        nothing = _kubectl(env, "get", "statefulsets,jobs,cronjobs,daemonsets", "-n", "serving")
    assert listed.returncode == 0, listed.stderr
    items = json.loads(listed.stdout)["items"]
    served = {(i["kind"], i["metadata"].get("namespace"), i["metadata"]["name"]) for i in items}
    wanted = {
        (o["kind"], o["metadata"].get("namespace"), o["metadata"]["name"])
        for o in objects
        if o["kind"] in ("Deployment", "ReplicaSet", "Lease", "ResourceQuota", "LimitRange")
    }
    assert served == wanted and len(wanted) == 7  # 2 Deployments, 2 ReplicaSets, a Lease, a quota, a range
    assert table.returncode == 0, table.stderr
    rows = [line.split() for line in table.stdout.splitlines()]
    assert ["serving", "deployment.apps/coder-decode"] in [r[:2] for r in rows]
    assert ["kube-system", "lease.coordination.k8s.io/kube-scheduler"] in [r[:2] for r in rows]
    assert one.returncode == 0, one.stderr
    assert json.loads(one.stdout)["spec"]["holderIdentity"].startswith("cp-01_")
    assert short.returncode == 0, short.stderr
    assert "resourcequota/npu-quota" in short.stdout.split() and "limitrange/defaults" in short.stdout.split()
    assert nothing.returncode == 0 and "No resources found in serving namespace." in nothing.stderr
