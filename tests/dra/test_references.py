"""The CEL reference extractor and tokenizer."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kubectl_rbln.dra.references import find_references, split_conjuncts, tokenize


def test_both_access_forms_and_capacity():
    refs = find_references(
        'device.attributes["dra.net"].rdma == true && device.attributes["x.io"]["numa"] > 0 '
        '&& device.capacity["dra.net"].mem.isGreaterThan(quantity("1Gi")) '
        '&& device.capacity["x.io"]["bw"] == quantity("1")'
    )
    assert refs.attributes == {"dra.net/rdma", "x.io/numa"}
    assert refs.capacities == {"dra.net/mem", "x.io/bw"}
    assert refs.complete and not refs.guarded


def test_guards_are_not_requirements():
    refs = find_references(
        '"numaNode" in device.attributes["resource.kubernetes.io"] && '
        'device.attributes["resource.kubernetes.io"].numaNode == 0 && '
        'has(device.attributes["dra.net"].rdma) && "gpu.io" in device.attributes'
    )
    assert refs.guarded == {"resource.kubernetes.io/numaNode", "dra.net/rdma"}
    assert refs.attributes == {"resource.kubernetes.io/numaNode"}
    assert refs.attribute_domains >= {"gpu.io"}
    assert refs.complete


def test_driver_comparisons():
    refs = find_references('device.driver == "dra.net" || "npu.rebellions.ai" == device.driver')
    assert refs.driver_compared == {"dra.net", "npu.rebellions.ai"} and refs.uses_driver


def test_dynamic_access_is_incomplete():
    for expr in (
        'cel.bind(d, device.attributes["x"], d.y)',
        "device.attributes[name].y",
        'device.attributes.all(k, k == "a")',
        'device.attributes["x"].size() > 0',
        "device == null",
    ):
        assert not find_references(expr).complete, expr


def test_strings_and_comments_are_not_code():
    refs = find_references(
        '"device.attributes[\\"a\\"].b" == r\'device.driver\' // device.capacity["c"].d\n&& true'
    )
    assert not refs.attributes and not refs.capacities and not refs.uses_driver


def test_tokenizer_escapes_and_raw_strings():
    toks = tokenize(r'"a\"b" r"c\d" """x"y""" b"\x41"')
    assert [t.value for t in toks] == ['a"b', r"c\d", 'x"y', "A"]


def test_split_conjuncts():
    expr = 'device.attributes["dra.net"].rdma == true && (a || b) && f(x && y)'
    assert split_conjuncts(expr) == ['device.attributes["dra.net"].rdma == true', "(a || b)", "f(x && y)"]
    assert split_conjuncts("a && b || c") == ["a && b || c"]


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_never_raises_on_arbitrary_text(text):
    find_references(text)
    split_conjuncts(text)
    tokenize(text)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "device",
                ".",
                "attributes",
                "capacity",
                "[",
                "]",
                '"d"',
                '"x\\"',
                "in",
                "(",
                ")",
                "has",
                "&&",
                "driver",
                "==",
                "r'",
                "cel",
                "bind",
                ",",
            ]
        )
    )
)
def test_never_raises_on_token_soup(parts):
    find_references(" ".join(parts))
    find_references("".join(parts))
