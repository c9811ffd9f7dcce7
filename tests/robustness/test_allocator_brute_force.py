"""The allocator's `fits` against brute force on tiny random nodes (hypothesis).

Why: pruning by counts, by value groups and by interchangeable candidates must never turn a node
that has a solution into "does not fit", nor invent one. Exhaustive search over a handful of
devices is the reference: exact counts, used devices excluded, one matchAttribute.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kubectl_rbln.dra.allocator import Features, allocate
from tests.dra.dra_factories import claim, classes, device, match, node, request, slice_

NUMA = "driver-a/numa"
KIND = "driver-a/kind"
SELECTORS = {
    "any": None,
    "npu": 'device.attributes["driver-a"].kind == "npu"',
    "nic": 'device.attributes["driver-a"].kind == "nic"',
}

device_specs = st.lists(
    st.tuples(st.sampled_from(["npu", "nic"]), st.one_of(st.none(), st.integers(0, 1)), st.booleans()),
    min_size=0,
    max_size=6,
)  # (kind, numa or missing, already allocated)
request_specs = st.lists(
    st.tuples(st.sampled_from(list(SELECTORS)), st.integers(1, 3)), min_size=1, max_size=3
)


def _reference(
    devices: list[tuple[str, int | None, bool]], requests: list[tuple[str, int]], aligned: bool
) -> bool:
    """Is there any assignment of distinct free devices to every request (and one shared numa)?"""

    def candidates(selector: str) -> list[int]:
        return [i for i, (kind, _, used) in enumerate(devices) if not used and selector in ("any", kind)]

    def search(index: int, taken: frozenset[int], numa: Any) -> bool:
        if index == len(requests):
            return True
        selector, count = requests[index]
        pool = [i for i in candidates(selector) if i not in taken]
        for chosen in combinations(pool, count):
            values = {devices[i][1] for i in chosen}
            if aligned:
                if None in values or len(values) > 1 or (numa is not None and values != {numa}):
                    continue
                if search(index + 1, taken | set(chosen), values.pop()):
                    return True
            elif search(index + 1, taken | set(chosen), None):
                return True
        return False

    return search(0, frozenset(), None)


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(device_specs, request_specs, st.booleans())
def test_fits_agrees_with_brute_force(
    devices: list[tuple[str, int | None, bool]], requests: list[tuple[str, int]], aligned: bool
) -> None:
    built = []
    for index, (kind, numa, _) in enumerate(devices):
        attrs: dict[str, Any] = {"kind": kind}
        if numa is not None:
            attrs["numa"] = numa
        built.append(device(f"dev-{index}", attrs=attrs))
    slices = [slice_("slice-1", built)] if built else []
    used = {d.key for d, (_, _, taken) in zip(built, devices, strict=True) if taken}
    wanted = [
        request(f"req-{i}", "class-a", count, *([SELECTORS[sel]] if SELECTORS[sel] else []))
        for i, (sel, count) in enumerate(requests)
    ]
    to_allocate = claim("claim-0", *wanted, constraints=[match(NUMA)] if aligned else [], namespace="ns")
    result = allocate(node(), [to_allocate], slices, classes(), used, Features())
    assert result.error is None
    assert result.fits == _reference(devices, requests, aligned)
    if result.fits:
        picked = [r.device for results in result.results.values() for r in results]
        assert len(picked) == len(set(picked)) == sum(count for _, count in requests)
        assert not {("driver-a", "pool-1", name) for name in picked} & used
    else:
        assert result.failure is not None and result.failure.summary
