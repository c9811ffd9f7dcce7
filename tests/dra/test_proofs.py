"""Counting proofs (dra/proofs.py) against exhaustive search on thousands of small random shapes.

Why: a proof replaces the search; one wrong proof would call a Pod that fits impossible. Every
shape is searched to the end with the proof left out (the allocator's own search, uncapped), and
shapes simple enough for it also by a naive enumeration of device subsets: whenever the proof says
impossible, neither finds an allocation. The worst cases of issue 26 are proven with no search step.
"""

from __future__ import annotations

import itertools
import random

import pytest

from kubectl_rbln.dra.allocator import AllocatorError, Features, _Allocation, allocate
from kubectl_rbln.dra.pools import gather_pools, slice_totals
from kubectl_rbln.dra.proofs import prove_impossible
from tests.dra.dra_factories import (
    claim,
    classes,
    device,
    distinct,
    exact,
    first_available,
    match,
    node,
    request,
    slice_,
)

NUMA = "resource.kubernetes.io/numaNode"
INDEX = "driver-a/index"


def _selector(rng: random.Random) -> list[str]:
    pick = rng.random()
    if pick < 0.4:
        return []
    if pick < 0.7:
        return [f'device.attributes["driver-a"].index < {rng.randint(1, 6)}']
    if pick < 0.85:
        return [f'device.attributes["driver-a"].index >= {rng.randint(0, 4)}']
    return [f'device.attributes["resource.kubernetes.io"].numaNode == {rng.randint(0, 2)}']


def _shape(rng: random.Random) -> tuple:
    version = rng.choice([33, 34, 35, 36])
    consumable = version >= 34 and rng.random() < 0.5
    features = Features(version=version, consumable_capacity=consumable)
    devices = []
    for i in range(rng.randint(1, 6)):
        attrs: dict = {"index": i}
        if rng.random() < 0.9:
            attrs[NUMA] = rng.randint(0, 2)
        d = device(f"d{i}", attrs=attrs)
        d.allow_multiple_allocations = consumable and rng.random() < 0.25
        devices.append(d)
    sl = slice_("s", devices)
    allocated = {d.key for d in devices if rng.random() < 0.15 and not d.allow_multiple_allocations}
    claims = []
    simple = not consumable
    for ci in range(rng.randint(1, 2)):
        requests = []
        names = [f"r{k}" for k in range(rng.randint(1, 3))]
        for name in names:
            admin = rng.random() < 0.1
            simple = simple and not admin
            if rng.random() < 0.2:
                subs = [
                    exact("class-a", rng.randint(1, 2), *_selector(rng), name=f"s{j}", admin=admin)
                    for j in range(2)
                ]
                requests.append(first_available(name, *subs))
                simple = False
            elif rng.random() < 0.08:
                requests.append(request(name, "class-a", 1, *_selector(rng), mode="All"))
                simple = False
            else:
                requests.append(request(name, "class-a", rng.randint(1, 3), *_selector(rng), admin=admin))
        constraints = []
        for _ in range(rng.randint(0, 2)):
            over = rng.sample(names, rng.randint(1, len(names))) if rng.random() < 0.6 else []
            if consumable and rng.random() < 0.5:
                constraints.append(distinct(rng.choice([NUMA, INDEX]), *over))
                simple = False
            else:
                constraints.append(match(NUMA, *over))
        claims.append(claim(f"claim-{ci}", *requests, constraints=constraints))
    return features, sl, allocated, claims, simple


def _state(features: Features, sl, allocated, claims) -> _Allocation:
    n = node()
    pools = gather_pools(
        n, [sl], version=features.version, partitionable=features.partitionable, totals=slice_totals([sl])
    )
    return _Allocation(n, claims, pools, classes(), allocated, features, 10**9)


def _naive_fits(state: _Allocation) -> bool:
    """Every subset of candidates per request, devices used once, every matchAttribute one value."""
    alts = [alts[0] for per_claim in state.alts for alts in per_claim]
    options = [itertools.combinations(a.free, a.count) for a in alts]
    for picks in itertools.product(*options):
        used = [p for chosen in picks for p in chosen]
        if len(used) != len(set(used)):
            continue
        ok = True
        for ci, constraints in enumerate(state.constraints):
            for c in constraints:
                seen = set()
                for alt, chosen in zip(alts, picks, strict=True):
                    if alt.claim == ci and (not c.requests or alt.base in c.requests):
                        for p in chosen:
                            v = state.devices[p].attributes.get(c.attribute)
                            seen.add(None if v is None else (type(v), v))
                ok = ok and None not in seen and len(seen) <= 1
        if ok:
            return True
    return False


@pytest.mark.parametrize("seed", range(4))
def test_a_proof_never_says_impossible_where_the_search_finds_an_allocation(seed: int) -> None:
    rng = random.Random(seed)
    proven = searched = naive = 0
    for _ in range(3000):
        features, sl, allocated, claims, simple = _shape(rng)
        state = _state(features, sl, allocated, claims)
        try:
            state.prepare()
        except AllocatorError:
            continue
        if not state.prunable() or state.hopeless():
            continue
        proof = prove_impossible(state)
        try:
            fits = state.search()
        except AllocatorError:
            continue
        searched += 1
        if simple:  # the naive oracle agrees with the search where it applies
            naive += proof is not None
            assert _naive_fits(state) == fits, claims
        if proof is None:
            continue
        proven += 1
        assert not fits, (proof, claims)
        # allocate() with the proof: no search step, the same answer
        result = allocate(node(), claims, [sl], classes(), allocated, features)
        assert not result.fits and result.steps == 0 and result.failure is not None
        assert result.failure.proof is not None
    # the test must exercise proofs, not only unknowns
    assert proven >= 150 and naive >= 30 and searched >= 600, (proven, naive, searched)


def _numa64() -> list:
    return [device(f"npu-{i}", attrs={NUMA: i // 8, "index": i}) for i in range(64)]


def test_nine_requests_on_distinct_numa_nodes_of_eight_are_proven_without_search() -> None:
    sl = slice_("s", _numa64())
    c = claim("claim-0", *[request(f"r{i}") for i in range(9)], constraints=[distinct(NUMA)])
    state = _state(Features.defaults(36), sl, set(), [c])
    state.prepare()
    proof = prove_impossible(state)
    assert proof is not None and proof.kind == "distinct"
    assert (len(proof.requests), proof.needed, proof.available) == (9, 9, 8)
    result = allocate(node(), [c], [sl], classes(), set(), Features.defaults(36))
    assert result.steps == 0 and result.failure is not None and result.failure.kind != "search-capped"


def test_seventeen_requests_over_sixteen_npus_are_proven_without_search() -> None:
    sl = slice_("s", _numa64())
    requests = [
        request(
            f"r{i}",
            "class-a",
            1,
            f'device.attributes["driver-a"].index < 16 && device.attributes["driver-a"].index != {i}',
        )
        for i in range(17)
    ]
    c = claim("claim-0", *requests)
    result = allocate(node(), [c], [sl], classes(), set(), Features.defaults(36))
    assert result.steps == 0 and result.failure is not None and result.failure.kind != "search-capped"
    proof = result.failure.proof
    assert proof is not None and proof.kind == "devices"
    assert (proof.needed, proof.available) == (17, 16)


def test_one_numa_value_short_for_every_request_is_a_match_proof() -> None:
    # 15 requests of 2 over overlapping windows, one NUMA node: each value's devices give 19 of 30
    devices = [device(f"npu-{i}", attrs={NUMA: i % 2, "index": i}) for i in range(64)]
    sl = slice_("s", devices)
    requests = [
        request(
            f"r{k}",
            "class-a",
            2,
            f'device.attributes["driver-a"].index >= {k} && device.attributes["driver-a"].index < {k + 24}',
        )
        for k in range(15)
    ]
    c = claim("claim-0", *requests, constraints=[match(NUMA)])
    result = allocate(node(), [c], [sl], classes(), set(), Features.defaults(36))
    assert result.steps == 0 and result.failure is not None
    assert result.failure.kind == "proven-impossible"
    proof = result.failure.proof
    assert proof is not None and proof.kind == "match" and proof.values == {"0": 19, "1": 19}
    assert "proven impossible" in result.failure.summary and "19" in result.failure.summary


def test_a_shared_device_serves_several_requests_so_no_device_proof() -> None:
    # two requests, one device that allows multiple allocations: Hall's bound must not count it once
    d = device("d0", attrs={NUMA: 0})
    d.allow_multiple_allocations = True
    sl = slice_("s", [d])
    c = claim("claim-0", request("r0"), request("r1"))
    features = Features(version=36, consumable_capacity=True)
    state = _state(features, sl, set(), [c])
    state.prepare()
    assert prove_impossible(state) is None
    assert allocate(node(), [c], [sl], classes(), set(), features).fits


def test_first_available_is_impossible_only_when_every_choice_is() -> None:
    sl = slice_("s", _numa64()[:8])
    # r0 takes 8 or 1; r1 takes 1: the second choice of r0 fits
    c = claim(
        "claim-0",
        first_available("r0", exact(count=8, name="all"), exact(count=1, name="one")),
        request("r1"),
    )
    state = _state(Features.defaults(36), sl, set(), [c])
    state.prepare()
    assert prove_impossible(state) is None
    assert allocate(node(), [c], [sl], classes(), set(), Features.defaults(36)).fits
