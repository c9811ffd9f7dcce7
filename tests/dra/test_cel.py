"""The DRA CEL environment, checked against `cel/compile_test.go` (dra-facts.md §3.5)."""

from __future__ import annotations

from fractions import Fraction

import pytest
from dra_factories import device

from kubectl_rbln.dra.cel import CelError, compile_selector
from kubectl_rbln.dra.model import Version
from kubectl_rbln.dra.quantity import compare_semver, normalize_semver, parse_quantity

D = "dra.example.com"


def dev(attrs=None, caps=None, driver=D):
    return device("d", driver, attrs or {}, caps or {})


# (test name, expression, device, expected: bool | ("compile"|"runtime", text contained))
COMPILE_TEST = [
    ("true", "true", dev(), True),
    ("false", "false", dev(), False),
    ("syntax-error", "?!", dev(), ("compile", "Syntax error")),
    ("type-error", "1", dev(), ("compile", "must evaluate to bool or the unknown type, not int")),
    (
        "runtime-error-lookup-identifier",
        'device.attributes["no-such-domain"].noSuchAttr.isGreaterThan(quantity("0"))',
        dev(),
        ("runtime", "no such key: noSuchAttr"),
    ),
    ("domain-check-negative", '"no-such-domain" in device.attributes', dev(), False),
    ("domain-check-positive", '"dra.example.com" in device.attributes', dev({"something": True}), True),
    ("empty-driver-name", 'device.driver == ""', dev(driver=""), True),
    ("driver-name-qualifier", 'device.attributes["dra.example.com"].name', dev({"name": True}), True),
    (
        "qualified-attribute-name",
        'device.attributes["other.example.com"].name',
        dev({"other.example.com/name": True}),
        True,
    ),
    ("int", 'device.attributes["dra.example.com"].name > 0', dev({"name": 1}), True),
    ("string", 'device.attributes["dra.example.com"].name == "fish"', dev({"name": "fish"}), True),
    (
        "version",
        'device.attributes["dra.example.com"].name.isGreaterThan(semver("0.0.1"))',
        dev({"name": Version("1.0.0")}),
        True,
    ),
    (
        "version_v",
        'device.attributes["dra.example.com"].name.isGreaterThan(semver("v0.0.1", true)) '
        '&& isSemver("v1.0.0", true)',
        dev({"name": Version("1.0.0")}),
        True,
    ),
    (
        "quantity",
        'device.capacity["dra.example.com"].name.isGreaterThan(quantity("1Ki"))',
        dev(caps={"name": "1Mi"}),
        True,
    ),
    (
        "check-negative",
        '!("name" in device.capacity["dra.example.com"]) || '
        'device.capacity["dra.example.com"].name.isGreaterThan(quantity("1Ki"))',
        dev(),
        True,
    ),
    ("bind", 'cel.bind(dra, device.attributes["dra.example.com"], dra.name)', dev({"name": True}), True),
    (
        "split_attribute",
        'device.attributes["dra.example.com"].services.split("example").size() >= 2',
        dev({"services": "some_example_value"}),
        True,
    ),
    (
        "regexp_attribute",
        'device.attributes["dra.example.com"].services.matches("[^a]?sym")',
        dev({"services": "asymetric"}),
        True,
    ),
    (
        "allow_multiple_allocations_disabled",
        "device.allowMultipleAllocations == true",
        dev(),
        ("compile", "undefined field 'allowMultipleAllocations'"),
    ),
    ("undeclared", "noSuchVar", dev(), ("compile", "undeclared reference to 'noSuchVar'")),
    ("unknown-function", "noSuchFunc(1)", dev(), ("compile", "undeclared reference to 'noSuchFunc'")),
    (
        "wrong-type",
        'device.attributes["dra.example.com"].name > 0',
        dev({"name": "x"}),
        ("runtime", "no such overload"),
    ),
]


@pytest.mark.parametrize(("name", "expr", "device_", "want"), COMPILE_TEST, ids=[c[0] for c in COMPILE_TEST])
def test_compile_table(name, expr, device_, want):
    if isinstance(want, bool):
        assert compile_selector(expr).matches(device_) is want
        return
    kind, text = want
    with pytest.raises(CelError) as err:
        compile_selector(expr).matches(device_)
    assert err.value.kind == kind and text in err.value.message
    assert str(err.value).startswith(f"CEL {kind} error: ")


def test_allow_multiple_allocations_with_consumable_capacity():
    d = dev()
    d.allow_multiple_allocations = True
    assert compile_selector("device.allowMultipleAllocations == true", consumable_capacity=True).matches(d)


def test_missing_domain_is_an_empty_map():
    assert compile_selector('!("x" in device.attributes["nodom"])').matches(dev())
    with pytest.raises(CelError, match="no such key: x"):
        compile_selector('device.attributes["nodom"]["x"] == 1').matches(dev())


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("1Ki", 1024),
        ("1Mi", 2**20),
        ("1.5Gi", 3 * 2**29),
        ("100m", Fraction(1, 10)),
        ("1e3", 1000),
        ("1E-3", Fraction(1, 1000)),
        ("2k", 2000),
        ("-1", -1),
        (".5", Fraction(1, 2)),
        ("1n", Fraction(1, 10**9)),
    ],
)
def test_quantity_parsing(text, value):
    assert parse_quantity(text) == value


def test_quantity_rejects_garbage():
    with pytest.raises(ValueError):
        parse_quantity("1Gb")


def test_quantity_functions():
    d = dev(caps={"mem": "1Gi"})
    for expr in [
        'device.capacity["dra.example.com"].mem == quantity("1024Mi")',
        'device.capacity["dra.example.com"].mem.compareTo(quantity("1G")) == 1',
        'device.capacity["dra.example.com"].mem.isLessThan(quantity("2Gi"))',
        'device.capacity["dra.example.com"].mem.asInteger() == 1073741824',
        'device.capacity["dra.example.com"].mem.sign() == 1',
        'quantity("500m").asApproximateFloat() == 0.5',
        'isQuantity("1Ki") && !isQuantity("x")',
    ]:
        assert compile_selector(expr).matches(d), expr


def test_semver():
    assert compare_semver("1.0.0-alpha", "1.0.0") == -1
    assert compare_semver("1.0.0-alpha.1", "1.0.0-alpha.beta") == -1
    assert compare_semver("1.10.0", "1.9.0") == 1
    assert normalize_semver("v01.2") == "1.2.0"
    assert compile_selector('semver("1.2.3").major() == 1 && semver("1.2.3").patch() == 3').matches(dev())
    with pytest.raises(CelError, match="could not parse"):
        compile_selector('semver("v1.0.0").major() == 1').matches(dev())


def test_bad_version_attribute_is_a_runtime_error():
    with pytest.raises(CelError, match="parse semantic version"):
        compile_selector('device.attributes["dra.example.com"].v.major() == 1').matches(
            dev({"v": Version("x")})
        )


@pytest.mark.slow  # 120,000 devices
def test_evaluation_is_memoized_per_distinct_signature():
    sel = compile_selector(
        'device.attributes["dra.net"].rdma == true && device.attributes["dra.net"].pciSubsystem == "9140"'
    )
    devices = [
        device(f"nic-{i}", "dra.net", {"rdma": i % 2 == 0, "pciSubsystem": "9140", "ifName": f"eth{i}"})
        for i in range(120_000)
    ]
    before = sel.evaluations
    matched = sum(sel.matches(d) for d in devices)
    assert matched == 60_000
    assert sel.evaluations - before <= 2  # two distinct (rdma, pciSubsystem) tuples, two real evaluations


def test_incomplete_references_fall_back_to_full_evaluation():
    sel = compile_selector('device.attributes["dra.example.com"].exists(k, k == "name")')
    assert not sel.references.complete
    assert sel.matches(dev({"name": 1})) and not sel.matches(dev({"other": 1}))
