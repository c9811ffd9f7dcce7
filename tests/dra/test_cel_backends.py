"""Both CEL backends (Rust `cel`, pure-Python `celpy`) give the same DRA selector results.

Why: python 3.10 has no Rust wheel and falls back to celpy; CI runs on 3.11, so the
fallback is exercised here explicitly, on the dra-facts §3.5 table and by
differential comparison with the Rust backend.
"""

from __future__ import annotations

import importlib.util

import pytest
from dra_factories import device
from test_cel import COMPILE_TEST, dev

from kubectl_rbln.dra import cel
from kubectl_rbln.dra.cel import CelError, compile_selector_with
from kubectl_rbln.dra.model import Version

HAS_RUST = importlib.util.find_spec("cel") is not None
BACKENDS = ["celpy", pytest.param("rust", marks=pytest.mark.skipif(not HAS_RUST, reason="no Rust cel"))]


@pytest.fixture(params=BACKENDS)
def backend(request):
    return cel.get_backend(request.param)


def outcome(backend, expr, device_, consumable_capacity=False):
    """True/False, or (kind, message) of the CelError."""
    try:
        return compile_selector_with(backend, expr, consumable_capacity=consumable_capacity).matches(device_)
    except CelError as err:
        return err.kind, err.message


@pytest.mark.parametrize(("name", "expr", "device_", "want"), COMPILE_TEST, ids=[c[0] for c in COMPILE_TEST])
def test_compile_table(backend, name, expr, device_, want):
    got = outcome(backend, expr, device_)
    if isinstance(want, bool):
        assert got is want
    else:
        assert got[0] == want[0] and want[1] in got[1]


def test_missing_domain(backend):
    assert outcome(backend, '"nodom" in device.attributes', dev()) is False
    assert outcome(backend, '!("x" in device.attributes["nodom"])', dev()) is True
    assert outcome(backend, 'device.attributes["nodom"].x', dev()) == ("runtime", "no such key: x")
    assert outcome(backend, 'device.attributes["nodom"]["x"] == 1', dev()) == ("runtime", "no such key: x")


def test_consumable_capacity_and_memoization(backend):
    d = dev()
    d.allow_multiple_allocations = True
    assert outcome(backend, "device.allowMultipleAllocations == true", d, consumable_capacity=True) is True
    sel = compile_selector_with(backend, 'device.attributes["dra.net"].rdma == true')
    devices = [device(f"n{i}", "dra.net", {"rdma": i % 2 == 0, "ifName": f"e{i}"}) for i in range(2000)]
    before = sel.evaluations
    assert sum(sel.matches(x) for x in devices) == 1000
    assert sel.evaluations - before <= 2


def test_selection_follows_the_backend_variable(monkeypatch):
    monkeypatch.setenv("RBLN_CEL_BACKEND", "celpy")
    assert cel._select_backend() is cel.get_backend("celpy")
    monkeypatch.setenv("RBLN_CEL_BACKEND", "nonsense")
    with pytest.raises(ValueError):
        cel._select_backend()


A = 'device.attributes["dra.example.com"]'
K = 'device.capacity["dra.example.com"]'
DIFFERENTIAL = [
    "$A.name > 0",
    "$A.name == 1.0",
    "$A.name < 1.5",
    "$A.name == 1u",
    "$A.name == 'x'",
    "$A.name != 'a'",
    "$A.s > 0",
    "$A.s.startsWith('fi') && $A.s.endsWith('sh') && $A.s.contains('is')",
    "$A.s.matches('^f.*h$')",
    "$A.s.size() == 4",
    "$A.s.split('i').size() == 2",
    "$A.s.split('', 2)[1] == 'ish'",
    "$A.s.lowerAscii() == 'fish'",
    "$A.s.upperAscii() == 'FISH'",
    "$A.s.replace('f', 'd') == 'dish'",
    "$A.s.indexOf('s') == 2",
    "$A.s.substring(1, 2) == 'i'",
    "$A.s.charAt(0) == 'f'",
    "['a','b'].join('-') == 'a-b'",
    "$A.b",
    "!$A.b",
    "$A.v.isGreaterThan(semver('1.0.0'))",
    "$A.v.compareTo(semver('1.2.3')) == 0",
    "$A.v == semver('1.2.3')",
    "$A.v.major() == 1 && $A.v.minor() == 2 && $A.v.patch() == 3",
    "semver('v1.0.0').major() == 1",
    "semver('v1.0.0', true).major() == 1",
    "isSemver('v1', true) && !isSemver('x')",
    "$K.mem.isGreaterThan(quantity('1Ki'))",
    "$K.mem == quantity('1024Mi')",
    "$K.mem.compareTo(quantity('1G')) == 1",
    "$K.mem.asInteger() == 1073741824",
    "$K.c.asInteger() == 0",
    "$K.c.isInteger()",
    "$K.mem.sign() == 1",
    "$K.c.asApproximateFloat() == 0.5",
    "$K.mem.add(quantity('1Gi')) == quantity('2Gi')",
    "$K.mem.sub(1).sign() == 1",
    "quantity('x').sign() == 0",
    "isQuantity('1Ki') && !isQuantity('x')",
    "$K.mem.isGreaterThan(semver('1.0.0'))",
    "$A.nope",
    "$A['nope'] == 1",
    "'name' in $A",
    "has($A.name)",
    "has($A.nope)",
    "has(device.attributes['nodom'].x)",
    "'other.example.com' in device.attributes",
    "device.attributes['other.example.com'].x == 5",
    "!('mem' in $K) || $K.mem.isGreaterThan(quantity('1Ki'))",
    "device.driver == 'dra.example.com'",
    "cel.bind(dra, $A, dra.name == 1)",
    "cel.bind(x, 1, cel.bind(y, 2, x + y == 3))",
    "cel.bind(x, $A.name, x > 0)",
    "$A.exists(k, k == 'name')",
    "$A.all(k, k != 'zzz')",
    "$A.exists_one(k, k == 'name')",
    "$A.filter(k, k.startsWith('n')).size() == 1",
    "device.attributes.exists(d, d == 'dra.example.com')",
    "device.foo == 1",
    "noSuchVar",
    "noSuchFunc(1)",
    "1",
    "'x'",
    "?!",
    ".x",
    "$A.name / 0 == 1",
    "$A.big * 4 > 0",
    "$A.name == 1 || 1/0 == 1",
    "1/0 == 1 || $A.name == 1",
    "$A.nope == 1 || true",
    "$A.nope && $A.zz",
    "$A.nope || $A.zz",
    "$A.name && $A.nope",
    "true && $A.name",
    "$A.nope ? true : false",
    "[1,2,3][5] == 1",
    "'abc'[0] == 'a'",
    "{1: true}[1u]",
    "1u in {1: 2}",
    "1.0 in {1: 2}",
    "[1] == [1.0]",
    "{'a': 1} == {'a': 1.0}",
    "1 == 'a'",
    "$A.name == null",
    "$A.b == 1",
    "'é'.size() == 2",
    "$A.s + 'y' == 'fishy'",
    "[$A.nope].size() == 1",
    "{'a': $A.nope}.size() == 1",
    "$A.name / 2.0 == 0.5",
    "1u - 2u > 0u",
]
DEVICES = [
    device(
        "d",
        "dra.example.com",
        {"name": 1, "s": "fish", "b": True, "v": Version("1.2.3"), "other.example.com/x": 5, "big": 2**62},
        {"mem": "1Gi", "c": "500m"},
    ),
    device("e", "dra.example.com", {}, {}),
    device("f", "", {"name": "x", "v": Version("bad")}, {}),
]


@pytest.mark.skipif(not HAS_RUST, reason="no Rust cel to compare with")
@pytest.mark.parametrize("template", DIFFERENTIAL)
def test_backends_agree(template):
    expr = template.replace("$A", A).replace("$K", K)
    rust, celpy = cel.get_backend("rust"), cel.get_backend("celpy")
    for d in DEVICES:
        want, got = outcome(rust, expr, d), outcome(celpy, expr, d)
        if isinstance(want, tuple) and want[0] == "compile":  # parse error details are each parser's own
            assert got[0] == "compile" and got[1].split(":")[:3] == want[1].split(":")[:3], (
                d.name,
                want,
                got,
            )
        else:
            assert got == want, (d.name, want, got)
