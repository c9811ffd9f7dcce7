"""The selector cost estimate agrees with the API server's (issue 23).

Why: a selector past the limit is reported, not evaluated; a wrong estimate either refuses a selector
the cluster accepts (a false finding) or lets a runaway one run. The expected costs are those of
k8s.io/dynamic-resource-allocation cel/compile_test.go (`expectCost`, v0.35.0): the API server's
estimate for each expression, with the DRA sizes.
"""

from __future__ import annotations

import random

import pytest

from kubectl_rbln.dra.cel import CelError, compile_selector
from kubectl_rbln.dra.cel_cost import API_SIZES, SELECTOR_MAX_COST, Sizes, estimate

TEN = "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]"
ATTRS = 'device.attributes["dra.example.com"]'
CAPS = 'device.capacity["dra.example.com"]'
ALL = f"""
{CAPS}.quantity.isGreaterThan(quantity("1Ki")) &&
{ATTRS}.bool &&
{ATTRS}.int > 0 &&
{ATTRS}.string == "fish" &&
{ATTRS}.version.isGreaterThan(semver("0.0.1")) &&
{CAPS}["quantity"].isGreaterThan(quantity("1Ki")) &&
{ATTRS}["bool"] &&
{ATTRS}["int"] > 0 &&
{ATTRS}["string"] == "fish" &&
{ATTRS}["version"].isGreaterThan(semver("0.0.1"))
"""
EXPENSIVE = (
    f"{TEN}.all(x, {TEN}.all(y, {TEN}.all(z, {TEN}.all(z2, {TEN}.all(z3, {TEN}.all(z4, "
    f"{TEN}.all(z5, int('1'.find('[0-9]*')) < 100)))))))"
)

UPSTREAM = [
    ('device.attributes["no-such-domain"].noSuchAttr.isGreaterThan(quantity("0"))', 6),
    ('device.attributes["no-such-domain"]["noSuchAttr"].isGreaterThan(quantity("0"))', 6),
    ('"no-such-domain" in device.attributes', 3),
    ('device.driver == ""', 2),
    ('device.driver == "dra.example.com"', 4),
    (f"{ATTRS}.name", 4),
    (f'{ATTRS}["name"]', 4),
    (f"cel.bind(dra, {ATTRS}, dra.name)", 15),
    (f"{ATTRS}.name > 0", 5),
    (f'{ATTRS}.name == "fish"', 5),
    (f'{ATTRS}.name.isGreaterThan(semver("0.0.1"))', 6),
    (f'{ATTRS}.name.isGreaterThan(semver("v0.0.1", true)) && isSemver("v1.0.0", true)', 7),
    (f'{CAPS}.name.isGreaterThan(quantity("1Ki"))', 6),
    (f'"name" in {CAPS} && {CAPS}.name.isGreaterThan(quantity("1Ki"))', 10),
    (f'!("name" in {CAPS}) || {CAPS}.name.isGreaterThan(quantity("1Ki"))', 11),
    (ALL, 52),
    (f"{ATTRS}.a && {ATTRS}.b && {ATTRS}.c", 12),
    ('device.attributes.exists_one(x, x == "dra.example.com")', 164),
    (f'{ATTRS}.exists_one(x, x == "services")', 133),
    (f'{ATTRS}.services.split("example").size() >= 2', 19),
    (f'{ATTRS}.services.matches("[^a]?sym")', 18),
    ('device.capacity.exists_one(x, x == "dra.example.com")', 164),
    (f'{CAPS}.exists_one(x, x == "memory")', 133),
    (EXPENSIVE, 85_555_551),
    ("device.allowMultipleAllocations == true", 3),
]


@pytest.mark.parametrize(("expression", "cost"), UPSTREAM, ids=[str(i) for i in range(len(UPSTREAM))])
def test_the_estimate_is_the_api_servers(expression: str, cost: int) -> None:
    found = estimate(expression)
    assert found is not None and found.cost == cost


def test_doubling_a_string_30_times_is_past_the_limit_and_20_times_is_not() -> None:
    def doubling(times: int) -> str:
        body = f"size(s{times}) > 0"
        for i in range(times, 0, -1):
            body = f"cel.bind(s{i}, s{i - 1} + s{i - 1}, {body})"
        return f'cel.bind(s0, "xx", {body})'

    assert estimate(doubling(20)).cost < SELECTOR_MAX_COST < estimate(doubling(30)).cost


def test_list_concatenation_is_charged_for_what_it_builds() -> None:
    """cel-go concatenates lists lazily (cost 1); the libraries here copy them: 2^30 elements would
    take gigabytes, so the work estimate counts the elements built."""
    body = "size(l30) > 0"
    for i in range(30, 0, -1):
        body = f"cel.bind(l{i}, l{i - 1} + l{i - 1}, {body})"
    found = estimate(f"cel.bind(l0, [1, 2], {body})")
    assert found is not None and found.cost < SELECTOR_MAX_COST < found.work


def test_a_larger_device_than_the_api_server_accepts_gets_its_own_estimate() -> None:
    expression = f'{ATTRS}.s.split("").all(a, {ATTRS}.s.split("").all(b, a != b || true))'
    assert not estimate(expression, API_SIZES).exceeds()
    assert estimate(expression, Sizes(value=100_000)).exceeds()


def test_past_the_limit_is_a_runtime_selector_error_before_any_evaluation() -> None:
    with pytest.raises(CelError, match="cost limit exceeded: the estimated worst-case cost 85,555,551"):
        compile_selector(EXPENSIVE)
    with pytest.raises(CelError, match="Too long"):
        compile_selector("(" * 6000 + "true" + ")" * 6000)


def test_the_estimate_never_raises() -> None:
    """On any token soup it answers a cost or None (the caller's library decides what compiles)."""
    tokens = list("()[]{}.,:?!-+*/%<>") + ["&&", "||", "==", ".?", "[?", "in", "x", "device", "all"]
    tokens += ["map", "cel", "bind", "has", '"s"', "1", "1u", "true", "size", "attributes", "filter"]
    rng = random.Random(7)
    for _ in range(3000):
        estimate(" ".join(rng.choice(tokens) for _ in range(rng.randint(0, 30))))


def test_a_hand_made_device_past_the_api_sizes_is_estimated_again_when_evaluated() -> None:
    """A bundle need not respect the API server's 64-character values: a quadratic selector that is
    cheap on API-sized devices stops on a device with a 100,000-character value, and still runs on
    the others."""
    from kubectl_rbln.dra.model import Device

    def device(value: str) -> Device:
        return Device(
            name="d", driver="dra.example.com", pool="p", slice_name="s", node_name="n",
            attributes={"dra.example.com/s": value}, capacity={},
        )  # fmt: skip

    selector = compile_selector(f'{ATTRS}.s.split("").all(a, {ATTRS}.s.split("").exists(b, a == b))')
    assert selector.matches(device("abc"))
    with pytest.raises(CelError, match="cost limit exceeded"):
        selector.matches(device("x" * 100_000))
