"""attrs and suggest-rct against the replay server, checked with the real kubectl and the seed's jq.

- Equivalence with seed 001 item (5): the documented `kubectl get resourceslices -o json | jq ...`
  runs verbatim (jq through the `jq` package); every key it prints, qualified with the slice's
  driver as the allocator qualifies it, is among the keys `attrs` reports for that driver.
- Every suggested RCT is an object of the served API version: `kubectl apply --dry-run=client`
  maps and accepts it. The replay server serves no OpenAPI document (GET /openapi/v3 and /v2 answer
  404), so kubectl's client-side schema validation cannot run (`--validate=false`); the schema is
  checked instead by a strict round trip through the official client's model of that version.
- `why --with-rct` on the suggestion, against the same server, finds a node where the Pod fits.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import jq
import pytest
import yaml
from kubernetes import client

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "attrs"))
from attrs_bundles import BY_NAME, Story, mgmt_nic_first  # noqa: E402

SEED_JQ = """.items[]
  | {driver: .spec.driver, attrs: (.spec.devices[0].attributes | keys)}"""
MODELS = {
    "v1": "V1ResourceClaimTemplate",
    "v1beta2": "V1beta2ResourceClaimTemplate",
    "v1beta1": "V1beta1ResourceClaimTemplate",
}


@pytest.fixture
def rbln(inprocess_rbln):
    return inprocess_rbln


@pytest.fixture
def live(replay_server, kubeconfig_for, kubectl_for):
    """objects -> (kubectl, the kubectl-rbln args that reach the same server)."""

    def start(objects):
        server = replay_server(objects)
        return kubectl_for(server), ["--kubeconfig", str(kubeconfig_for(server)), "-n", "serving"]

    return start


def qualify(name: str, driver: str) -> str:
    return name if "/" in name else f"{driver}/{name}"


EQUIVALENCE = {
    "all-present": BY_NAME["all-present"].objects,
    "unqualified-names": BY_NAME["unqualified-names"].objects,
    "nics-on-one-node": BY_NAME["nics-on-one-node"].objects,
    "mgmt-nic-first": lambda: mgmt_nic_first(BY_NAME["all-present"].objects()),
}


@pytest.mark.parametrize("name", list(EQUIVALENCE))
def test_attrs_reports_a_superset_of_the_documented_check(rbln, live, name: str) -> None:
    kubectl, args = live(EQUIVALENCE[name]())
    listed = kubectl("get", "resourceslices", "-o", "json")
    assert listed.returncode == 0, listed.stderr
    documented = jq.compile(SEED_JQ).input_text(listed.stdout).all()
    assert documented, "the documented check printed nothing"
    code, out, _ = rbln("attrs", *args, "-o", "json")
    report = json.loads(out)
    reported = {driver: {row["attribute"] for row in rows} for driver, rows in report["advertised"].items()}
    seen_by_jq: dict[str, set[str]] = {}
    for item in documented:
        keys = {qualify(k, item["driver"]) for k in item["attrs"]}
        assert keys <= reported[item["driver"]], keys - reported[item["driver"]]
        seen_by_jq.setdefault(item["driver"], set()).update(keys)
    if name == "mgmt-nic-first":  # devices[0] is the management NIC: jq never sees rdmaDevice
        assert "dra.net/rdmaDevice" not in seen_by_jq["dra.net"]
        assert "dra.net/rdmaDevice" in reported["dra.net"]
    if name == "unqualified-names":  # jq prints `rdma`; the allocator (and attrs) read dra.net/rdma
        assert "rdma" in {k for item in documented for k in item["attrs"]}
        assert next(r for r in report["required"] if r["attribute"] == "dra.net/rdma")["verdict"] == "present"


def test_documented_check_breaks_on_v1beta1_attrs_does_not(rbln, live) -> None:
    kubectl, args = live(BY_NAME["all-present"].objects("v1beta1"))
    listed = kubectl("get", "resourceslices", "-o", "json")
    with pytest.raises(ValueError, match="has no keys"):
        jq.compile(SEED_JQ).input_text(listed.stdout).all()  # v1beta1 nests attributes under `basic`
    code, out, _ = rbln("attrs", *args, "-o", "json")
    assert code == 0 and "dra.net/rdma" in {r["attribute"] for r in json.loads(out)["advertised"]["dra.net"]}


def assert_valid_object(kubectl, text: str, api_version: str) -> None:
    applied = subprocess.run(
        [kubectl.binary, "apply", "--dry-run=client", "--validate=false", "-f", "-", "-o", "json"],
        input=text,
        capture_output=True,
        text=True,
        env=kubectl.env,
        timeout=20,
        check=False,
    )
    assert applied.returncode == 0, applied.stderr
    assert json.loads(applied.stdout)["apiVersion"] == f"resource.k8s.io/{api_version}"
    obj = yaml.safe_load(text)
    api = client.ApiClient()
    model = api._ApiClient__deserialize(obj, MODELS[api_version])  # noqa: SLF001 - the client's own decoder
    assert api.sanitize_for_serialization(model) == obj, "a field the served version does not have"


CASES = [(s.name, "v1", ()) for s in BY_NAME.values() if s.recipe] + [
    ("mellanox-nics", "v1beta1", ()),
    ("mellanox-nics", "v1beta2", ()),
    ("pcieroot-missing", "v1beta1", ()),
    ("no-rdma-nic", "v1", ("--recipe", "npu-only")),
]


@pytest.mark.parametrize(("name", "api_version", "extra"), CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_suggestion_is_valid_and_fits(
    rbln, live, name: str, api_version: str, extra: tuple[str, ...]
) -> None:
    story: Story = BY_NAME[name]
    kubectl, args = live(story.objects(api_version))
    code, out, err = rbln("suggest-rct", *args, *extra)
    assert code == 0, err
    assert_valid_object(kubectl, out, api_version)
    recipe = "npu-only" if extra else story.recipe
    assert err.startswith(f"suggest-rct: {recipe} ")
    pods = json.loads(kubectl("get", "pods", "-n", "serving", "-o", "json").stdout)["items"]
    decode = next(p["metadata"]["name"] for p in pods if "-decode-" in p["metadata"]["name"])
    path = Path(kubectl.env["HOME"]) / "suggested.yaml"
    path.write_text(out, encoding="utf-8")
    _, why_out, _ = rbln("why", *args, decode, "--with-rct", str(path), "-o", "json")
    fitting = [n["name"] for n in json.loads(why_out)["pods"][0]["nodes"] if n["fits"] is True]
    assert fitting == list(story.fits_on)


@pytest.mark.parametrize("name", sorted(BY_NAME))
def test_live_attrs_reads_only_dra_objects_and_answers_as_the_whole_bundle(
    rbln, live, tmp_path: Path, name: str
) -> None:
    """Live `attrs` reads devices, classes and RCTs only (issue 16); a bundle is read whole: one answer."""
    objects = BY_NAME[name].objects()
    _, args = live(objects)
    bundle = tmp_path / "bundle.json"
    bundle.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objects}), encoding="utf-8")
    code_live, out_live, _ = rbln("attrs", *args, "-o", "json")
    code_file, out_file, _ = rbln("attrs", "-f", str(bundle), "-n", "serving", "-o", "json")
    assert code_live == code_file
    from_live, from_file = json.loads(out_live), json.loads(out_file)
    from_live.pop("source"), from_file.pop("source")
    assert from_live == from_file
