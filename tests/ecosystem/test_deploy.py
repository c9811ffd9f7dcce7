"""deploy/: the scheduled `check` runs as a ServiceAccount bound to the read-only role, with a command
line the CLI accepts, from an image whose recipe (deploy/Containerfile) is the release archive unpacked.

No registry is reachable in tests, so the image itself is not built; its steps are: the archive that
`scripts/release --local` builds is unpacked as ADD does, the RUN script runs with the image's paths
moved under a temporary root, and the entrypoint with the Job's arguments reads the replay server as
the Job's ServiceAccount, whose RBAC the server enforces (replay/rbac.py).
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import json
import os
import re
import shlex
import subprocess
import tarfile
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml
from conftest import base_python

from kubectl_rbln import __version__
from kubectl_rbln.cluster.files import load_objects
from kubectl_rbln.replay.rbac import Rbac, request_attributes
from kubectl_rbln.replay.server import Faults, ReplayServer

REPO = Path(__file__).resolve().parents[2]
DEPLOY = REPO / "deploy"
CONTAINERFILE = DEPLOY / "Containerfile"
READER = yaml.safe_load((REPO / "docs" / "rbac" / "clusterrole.yaml").read_text(encoding="utf-8"))
EXAMPLE = REPO / "examples" / "pending-decode.json"
ABI = "import sys; print('cp{}{}'.format(*sys.version_info[:2]))"
# The kubernetes client's model of each kind: it refuses a missing required field, and what it does
# not know is dropped, so a misspelt field shows as a difference after the round trip.
MODELS = {
    ("v1", "Namespace"): "V1Namespace",
    ("v1", "ServiceAccount"): "V1ServiceAccount",
    ("rbac.authorization.k8s.io/v1", "ClusterRoleBinding"): "V1ClusterRoleBinding",
    ("rbac.authorization.k8s.io/v1", "ClusterRole"): "V1ClusterRole",
    ("rbac.authorization.k8s.io/v1", "Role"): "V1Role",
    ("batch/v1", "Job"): "V1Job",
    ("batch/v1", "CronJob"): "V1CronJob",
}


def manifests() -> list[dict[str, Any]]:
    docs: list[dict[str, Any]] = []
    for path in sorted(DEPLOY.glob("*.yaml")):
        docs += [d for d in yaml.safe_load_all(path.read_text(encoding="utf-8")) if d]
    return docs


def one(kind: str) -> dict[str, Any]:
    (found,) = [d for d in manifests() if d["kind"] == kind]
    return found


def pod_specs() -> list[dict[str, Any]]:
    return [
        one("Job")["spec"]["template"]["spec"],
        one("CronJob")["spec"]["jobTemplate"]["spec"]["template"]["spec"],
    ]


def service_account_user() -> str:
    account = one("ServiceAccount")["metadata"]
    return f"system:serviceaccount:{account['namespace']}:{account['name']}"


def test_every_manifest_is_a_kubernetes_object_of_its_kind() -> None:
    from kubernetes.client import ApiClient

    client = ApiClient()
    docs = manifests() + list(yaml.safe_load_all((REPO / "docs" / "rbac" / "exec-role.yaml").read_text()))
    assert {d["kind"] for d in docs} >= {
        "Namespace",
        "ServiceAccount",
        "ClusterRoleBinding",
        "Job",
        "CronJob",
    }
    for doc in [*docs, READER]:
        model = MODELS[(doc["apiVersion"], doc["kind"])]
        obj = client.deserialize(json.dumps(doc), model, "application/json")  # raises on a missing field
        assert client.sanitize_for_serialization(obj) == doc, f"{doc['kind']}: a field the API does not know"
        assert doc["metadata"]["name"]
    namespaced = [d for d in manifests() if d["kind"] in ("ServiceAccount", "Job", "CronJob")]
    assert {d["metadata"]["namespace"] for d in namespaced} == {one("Namespace")["metadata"]["name"]}
    assert len(one("CronJob")["spec"]["schedule"].split()) == 5


def test_the_job_runs_as_a_service_account_bound_to_the_read_only_role_alone() -> None:
    account = one("ServiceAccount")["metadata"]
    for spec in pod_specs():
        assert spec["serviceAccountName"] == account["name"] and spec["restartPolicy"] == "Never"
    binding = one("ClusterRoleBinding")
    assert binding["roleRef"] == {
        "apiGroup": "rbac.authorization.k8s.io",
        "kind": "ClusterRole",
        "name": READER["metadata"]["name"],
    }
    rbac, user = Rbac([READER, *manifests()]), service_account_user()
    assert rbac.allows(request_attributes("GET", "/api/v1/pods"), user)
    assert rbac.allows(request_attributes("GET", "/apis/resource.k8s.io/v1/resourceslices"), user)
    exec_path = "/api/v1/namespaces/serving/pods/p/exec"
    assert rbac.refusal("GET", exec_path, "", "v1.37.0", user)  # check never execs: no exec granted
    assert rbac.refusal("GET", "/api/v1/namespaces/serving/secrets", "", "v1.37.0", user)


def test_job_and_cronjob_run_the_same_released_image_and_command() -> None:
    (job, cron) = [spec["containers"] for spec in pod_specs()]
    assert job == cron and len(job) == 1
    assert job[0]["image"] == f"ghcr.io/rebellions-sw/kubectl-rbln:v{__version__}"  # bumped with the version
    assert job[0]["args"][0] == "check" and "--exit-zero" in job[0]["args"]


def instructions() -> list[tuple[str, str]]:
    """The Containerfile's (INSTRUCTION, arguments), continuation lines joined, comments dropped."""
    text = re.sub(r"\\\n", " ", CONTAINERFILE.read_text(encoding="utf-8"))
    lines = [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    return [(line.split(None, 1)[0].upper(), line.split(None, 1)[1]) for line in lines]


def load_release() -> ModuleType:
    loader = importlib.machinery.SourceFileLoader("rbln_release_deploy", str(REPO / "scripts" / "release"))
    spec = importlib.util.spec_from_loader("rbln_release_deploy", loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def test_the_release_script_builds_the_recipe_with_the_archive_it_wrote() -> None:
    steps = instructions()
    assert ("ARG", "ARCHIVE") in steps and ("ADD", "${ARCHIVE} /opt/kubectl-rbln/") in steps
    assert [a for i, a in steps if i == "ENTRYPOINT"] == ['["kubectl-rbln"]']
    release = load_release()
    archive = Path("/dist") / f"{release.PROJECT}_v{__version__}_linux_arm64.tar.gz"
    (command,) = release.image_commands("podman", "ghcr.io/x/kubectl-rbln", __version__, {"arm64": archive})
    assert command[:2] == ["podman", "build"] and command[-1] == "/dist"  # the archives' folder: the context
    assert command[command.index("--file") + 1] == str(CONTAINERFILE)
    assert command[command.index("--build-arg") + 1] == f"ARCHIVE={archive.name}"
    assert command[command.index("--platform") + 1] == "linux/arm64"
    assert command[command.index("--tag") + 1] == f"ghcr.io/x/kubectl-rbln:v{__version__}-arm64"


def serve_as_the_job(objects: list[dict[str, Any]]) -> ReplayServer:
    rbac = Rbac([READER, *manifests()])
    return ReplayServer(objects, faults=Faults(rbac=rbac, user=service_account_user())).start()


@pytest.mark.slow  # a replay server
def test_the_jobs_command_line_reads_the_cluster_with_the_read_only_role_and_exits_zero(
    inprocess_rbln, tmp_path: Path
) -> None:
    args = pod_specs()[0]["containers"][0]["args"]
    server = serve_as_the_job(load_objects([str(EXAMPLE)]))
    try:
        kubeconfig = tmp_path / "kubeconfig"
        kubeconfig.write_text(server.kubeconfig_yaml(), encoding="utf-8")
        code, out, err = inprocess_rbln(*args, "--kubeconfig", str(kubeconfig))
        without = [a for a in args if a != "--exit-zero"]
        code_without, _, _ = inprocess_rbln(*without, "--kubeconfig", str(kubeconfig))
        refused = [(e.method, e.path) for e in server.audit if e.status == 403]
    finally:
        server.stop()
    assert code == 0, err
    assert code_without == 1  # the example has findings: --exit-zero is what made the run succeed
    assert "Checklist for namespace serving" in out and "FAIL" in out  # it still reports them
    assert refused == []  # the read-only role covers everything check reads


@pytest.mark.slow  # builds the release archive, compiles it, runs it
def test_the_containerfile_steps_install_the_release_archive_and_run_the_job(release, tmp_path: Path) -> None:
    root = tmp_path / "image"
    bin_dir = root / "usr" / "local" / "bin"
    bin_dir.mkdir(parents=True)
    (bin_dir / "python3").symlink_to(base_python())  # python:3.x-slim's python3 is in /usr/local/bin
    env = {"PATH": f"{bin_dir}{os.pathsep}/usr/bin{os.pathsep}/bin", "HOME": str(tmp_path), "LANG": "C.UTF-8"}
    entrypoint: list[str] = []
    for instruction, argument in instructions():
        moved = argument.replace("/opt/", f"{root}/opt/").replace("/usr/local/bin", str(bin_dir))
        if instruction == "ADD":  # a local .tar.gz is unpacked into the folder
            source, dest = shlex.split(moved)
            assert source == "${ARCHIVE}"
            with tarfile.open(release.archive) as archive:
                archive.extractall(dest, filter="data")
        elif instruction == "RUN":
            done = subprocess.run(["sh", "-c", moved], env=env, capture_output=True, text=True, timeout=600)
            assert done.returncode == 0, done.stderr
            assert done.stdout.strip().endswith(__version__)  # `kubectl-rbln --version`, the last step
        elif instruction == "ENV":
            env |= dict(pair.split("=", 1) for pair in shlex.split(argument))
        elif instruction == "ENTRYPOINT":
            entrypoint = json.loads(argument)
    abi = subprocess.check_output([base_python(), "-c", ABI], text=True).strip()
    assert [p.name for p in (root / "opt" / "kubectl-rbln" / "lib").glob("cp3*")] == [abi]  # only its own
    server = serve_as_the_job(load_objects([str(EXAMPLE)]))
    try:
        kubeconfig = tmp_path / "kubeconfig"
        kubeconfig.write_text(server.kubeconfig_yaml(), encoding="utf-8")
        run = subprocess.run(
            [str(bin_dir / entrypoint[0]), *pod_specs()[0]["containers"][0]["args"]],
            env={**env, "KUBECONFIG": str(kubeconfig)},
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    finally:
        server.stop()
    assert run.returncode == 0, run.stderr
    assert "Checklist for namespace serving" in run.stdout
