"""Korean as a first language (issue 25): what the catalog, the glossary and docs/ko promise.

- particles: a Korean template never types a particle after a value by hand (`{node}를`,
  `` `dra.net`가 ``): the particle form (`{node|를}`, `` `dra.net`{|가} ``) picks it by the value's sound;
  a particle typed after a Korean word or a product name fits how it is said (no 레플리카으로, no
  NIC를), and no template prints a value twice before its particle (`{count}{count|로}`);
- sentences: every finding title and every headline is a 합니다체 sentence, a headline says the Pod's
  state first ("Pending 상태입니다: ..."), and each docs/ko finding page shows the catalog's title;
- one term per concept: kubectl_rbln/catalog/glossary_ko.yaml names the term and the variants that
  say the same another way; no Korean text of the catalog and no page of docs/ko uses a variant;
- no English prose: a Latin word in a Korean sentence is code, a placeholder's value, a name
  (an identifier with a dot, slash, dash, underscore, digit or inner capital; an acronym; a single
  letter), a flag's value, or one of the words the glossary keeps (`kept:`: kinds, states, the
  product document's English terms, programs, product names).

The same rules hold for every Korean help text and error message (tests/cli/test_korean_cli.py).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path
from typing import Any

import pytest
import yaml
from korean_prose import KUBERNETES_MESSAGES, misfit_after_names, misfit_particles

from kubectl_rbln.catalog.fill import COMMAND_WORDS, fill

REPO = Path(__file__).resolve().parents[2]
CATALOG_DIR = REPO / "kubectl_rbln" / "catalog"
PARTICLE = "(?:이라는|라는|이나|으로|을|를|이|가|은|는|과|와|로)"
# A value, then a particle typed by hand: the particle is a word of its own (a space, punctuation or
# the end follows it), or 으로/로 goes on with 는/도/서/써.
TYPED_PARTICLE = re.compile(rf"(?:\}}\"?|`)(?:{PARTICLE}(?![가-힣])|(?:으로|로)(?=[는도서써]))")
HANGUL = re.compile(r"[가-힣]")


@lru_cache(maxsize=1)
def glossary() -> dict[str, Any]:
    return yaml.safe_load((CATALOG_DIR / "glossary_ko.yaml").read_text(encoding="utf-8"))


def korean_texts(data: Any, where: str = "", korean: bool = False) -> Iterator[tuple[str, str]]:
    """Every Korean text of a catalog-shaped document: the values under a `ko` key (not `when`/`each`,
    which name values)."""
    if isinstance(data, str):
        if korean:
            yield where, data
    elif isinstance(data, dict):
        for key, value in data.items():
            if key in ("when", "each"):
                continue
            yield from korean_texts(value, f"{where}.{key}", korean or key == "ko")
    elif isinstance(data, list):
        for index, value in enumerate(data):
            yield from korean_texts(value, f"{where}[{index}]", korean)


@lru_cache(maxsize=1)
def catalog_korean() -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for name in ("catalog.yaml", "cli_ko.yaml"):
        path = CATALOG_DIR / name
        if path.exists():
            out += korean_texts(yaml.safe_load(path.read_text(encoding="utf-8")), name)
    return out


def typed_particles(text: str) -> list[str]:
    return [text[max(0, m.start() - 20) : m.end()] for m in TYPED_PARTICLE.finditer(text)]


def test_the_particle_check_finds_a_typed_particle() -> None:
    assert typed_particles("노드 {node}를 비웁니다") == ["노드 {node}를"]
    assert typed_particles("`dra.net`가 없습니다") == ["`dra.net`가"]
    assert typed_particles("`kubectl rbln why ...`로는") == ["kubectl rbln why ...`로"]
    assert typed_particles('Pod "{pod}"를 찾을 수 없습니다') == ['Pod "{pod}"를']  # after a quoted value too
    assert typed_particles("노드 {node|를} 비웁니다, `dra.net`{|가} 없고 {count}개가 {x}의 값입니다") == []


def test_the_literal_particle_form_fits_the_text_before_it() -> None:
    assert fill("`kubectl rbln dump`{|로} 만드세요", {}) == "`kubectl rbln dump`로 만드세요"
    assert fill("`get`{|과} `create`{|가} 필요합니다", {}) == "`get`과 `create`가 필요합니다"
    assert fill("`npu-node-3`{|으로}", {}) == "`npu-node-3`으로"


def test_no_korean_template_types_a_particle_after_a_value() -> None:
    texts = catalog_korean()
    assert len(texts) > 500
    found = [f"{where}: {hit}" for where, text in texts for hit in typed_particles(text)]
    assert not found, "\n".join(found)


def test_the_sound_check_finds_a_particle_that_does_not_fit() -> None:
    assert misfit_particles("(새 레플리카으로)") == ["'(새 레플리카으로': 카으로 → 카로"]
    assert misfit_particles("파일으로 쓰고 값를 읽고 노드와 Pod") == [
        "'파일으로': 일으로 → 일로",
        "'파일으로 쓰고 값를': 값를 → 값을",
    ]
    assert misfit_particles("레플리카로, 파일로, 값을, 노드를, 디바이스와, 파일 경로, 가장 나은 노드") == []
    assert misfit_after_names("dranet NIC를 Pod이 kubelet가 RCT을") == [
        "NIC를 → NIC을",
        "Pod이 → Pod가",
        "kubelet가 → kubelet이",
        "RCT을 → RCT를",
    ]
    assert misfit_after_names("NIC을 Pod가 RCT를 kubelet이 YAML로 JSON으로 `NIC`를") == []


def test_every_particle_typed_after_a_word_fits_its_sound() -> None:
    """A particle typed by hand after a Korean word or a product name (the particle form covers
    values) fits how the word is said: no 레플리카으로, no NIC를, in the catalog and in docs/ko."""
    found = [
        f"{where}: {hit}"
        for where, text in catalog_korean()
        for hit in misfit_particles(text) + misfit_after_names(re.sub(r"`[^`]*`", "", text))
    ]
    for page in docs_ko_pages():
        prose = _outside_code(page.read_text(encoding="utf-8"))
        hits = misfit_particles(prose) + misfit_after_names(prose)
        found += [f"{page.relative_to(REPO)}: {hit}" for hit in hits]
    assert not found, "\n".join(found)


def test_no_template_says_a_value_twice_before_its_particle() -> None:
    """`{counter}{counter|이}` prints the value twice ("memorymemory가"), and so does
    `"{namespace}"{namespace|이}`: the particle form alone says it (`"{namespace}"{|이}` after a quote)."""
    doubled = [
        f"{where}: {m.group(0)}"
        for where, text in catalog_korean()
        for m in re.finditer(r"\{(\w+)\}[\"'`]?\{\1\|", text)
    ]
    assert not doubled, "\n".join(doubled)


def test_korean_titles_and_headlines_are_sentences() -> None:
    """A finding's title and a Pod's headline read as Korean sentences (합니다체), not labels: "Pod x는
    Pending 상태입니다: ResourceClaim을 할당할 수 없습니다", never "Pod x: Pending: ..." or a bare noun
    phrase such as "제약 조건: ..." (issue 25)."""
    from kubectl_rbln.catalog import load_catalog, load_sentences

    not_sentences = []
    for slug, entry in load_catalog().items():
        for case in [None, *entry.cases]:
            title = entry.words(case).title.get("ko", "")
            if "니다" not in re.sub(r"\{[^{}]*\}", "", title):
                not_sentences.append(f"{slug}/{case}: {title}")
    for key, texts in load_sentences().items():
        korean = texts.get("ko", "")
        verdict = key.startswith("verdict-") and not key.startswith("verdict-word-")
        if key == "verdict-stuck":  # its {state} is a headline, checked below
            verdict = not korean.startswith("Pod {pod|는} {state}")
        if (key.startswith("headline-") or verdict) and "니다" not in korean:
            not_sentences.append(f"{key}: {korean}")
        if key.startswith("headline-") and not korean.split(": ", 1)[0].endswith("상태입니다"):
            not_sentences.append(f"{key} (says the state first, as a sentence): {korean}")
    assert not not_sentences, "\n".join(not_sentences)


def test_each_docs_ko_finding_page_shows_the_catalog_title() -> None:
    """The title a page of docs/ko/findings says the output prints (출력 제목) is the catalog's Korean
    title, its values as `<name>` and the particles the same."""
    from kubectl_rbln.catalog import load_catalog

    def shape(text: str) -> str:
        text = re.sub(r"\{\w*\|([^{}]*)\}", r"X\1", text)  # {pod|를} -> X를
        return " ".join(re.sub(r"\{[^{}]*\}|<[^<>]+>", "X", text).split())

    drift = []
    for slug, entry in load_catalog().items():
        page = (REPO / "docs" / "ko" / "findings" / f"{slug}.md").read_text(encoding="utf-8")
        shown = re.search(r"출력 제목: \*\*(.*?)\*\*", page, re.DOTALL)
        title = entry.words(None).title["ko"]
        if shown is None or shape(shown.group(1)) != shape(title):
            drift.append(f"{slug}: {shown.group(1) if shown else '(no 출력 제목)'!r} != {title!r}")
    assert not drift, "\n".join(drift)


def _outside_code(text: str) -> str:
    """Markdown without fenced blocks and inline code: the prose a reader reads."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.DOTALL | re.MULTILINE)
    return re.sub(r"`[^`]*`", "", text)


def docs_ko_pages() -> list[Path]:
    return sorted((REPO / "docs" / "ko").rglob("*.md"))


def variants(text: str) -> list[str]:
    return [
        f"{term['use']} (not {m.group(0)!r})"
        for term in glossary()["terms"]
        for pattern in term["forbidden"]
        for m in re.finditer(pattern, text)
    ]


def test_the_glossary_names_one_term_and_its_variants() -> None:
    terms = glossary()["terms"]
    assert len(terms) >= 8
    assert {"ResourceClaim", "진단 결과", "게시", "증명", "레플리카", "샌드박스", "사용 중"} <= {
        t["use"] for t in terms
    }
    for term in terms:
        assert term["forbidden"], term["concept"]
        assert not variants(term["use"]), term  # the term itself is no variant
    assert variants("드라이버가 numaNode를 광고합니다, 클레임 3개") == [
        "ResourceClaim (not '클레임')",
        "게시 (not '광고')",
    ]


def test_the_catalog_says_each_concept_with_the_glossary_term() -> None:
    found = [
        f"{where}: {hit}"
        for where, text in catalog_korean()
        for hit in variants(re.sub(r"`[^`]*`", "", text))
    ]
    assert not found, "\n".join(found)


def test_docs_ko_say_each_concept_with_the_glossary_term() -> None:
    pages = docs_ko_pages()
    assert len(pages) > 50
    found = [
        f"{page.relative_to(REPO)}: {hit}"
        for page in pages
        for hit in variants(_outside_code(page.read_text(encoding="utf-8")))
    ]
    assert not found, "\n".join(found)


# What is not prose: code, placeholders, quoted texts (Kubernetes' messages, values), addresses,
# flags with their value (`-o wide`, `--rct NAME`), an inline command to the end of its clause.
NOT_PROSE = re.compile(
    "|".join(KUBERNETES_MESSAGES)
    + r"|`[^`]*`|\{[^{}]*\}|\"[^\"]*\"|(?<![A-Za-z])'[^'\n]*'|https?://\S+"
    + r"|(?<![\w-])--?[A-Za-z][\w-]*(?:[ =][A-Z_]+(?![A-Za-z])|[ =][a-z]+(?![a-z]))?"
    rf"|\b(?:{'|'.join(COMMAND_WORDS)}|rbln)\b[^)(;,。]*"
)
LATIN = re.compile(r"[/~$|.]?[A-Za-z][A-Za-z0-9._/:=*+'|-]*")


@lru_cache(maxsize=1)
def kept_words() -> tuple[frozenset[str], re.Pattern[str]]:
    kept = glossary()["kept"]
    words = frozenset(w for group, items in kept.items() if group != "names" for w in items)
    names = re.compile("|".join(re.escape(n) for n in sorted(kept["names"], key=len, reverse=True)))
    return words, names


def is_identifier(word: str) -> bool:
    """A name, not a word: a dot, slash, dash, underscore, digit or inner capital; an acronym; a letter."""
    return bool(
        re.search(r"[._/:=*+0-9|-]", word)
        or re.search(r"[a-z][A-Z]", word)
        or (word.isupper())
        or len(word) == 1
    )


def latin_words(text: str) -> list[str]:
    """The Latin words of Korean prose that are none of the allowed kinds (see the module's doc)."""
    if not HANGUL.search(text):
        return []  # not a Korean sentence: a command, a file's line
    words, names = kept_words()
    prose = NOT_PROSE.sub(" ", names.sub(" ", text))
    found = []
    for match in LATIN.finditer(prose):
        word = match.group(0).rstrip(".:,'")
        if word and not is_identifier(word) and word not in words:
            found.append(word)
    return found


@pytest.mark.parametrize(
    ("text", "english"),
    [
        ("노드 {node}에 `dra.net` 디바이스가 없습니다", []),
        ("Pod {pod|가} Pending 상태입니다(ResourceClaim {claim})", []),
        ("numa-aligned RCT에는 마지막 적용 설정이 없습니다", []),
        (
            "(numa-aligned has it; no last-applied-configuration to prove it was applied)가 없습니다",
            ["has", "it", "no", "to", "prove", "it", "was", "applied"],
        ),
        ("-o wide 또는 -o json으로 확인하세요", []),
        ("확인: kubectl get pods -n serving) 다음 단계", []),
        ("RBLN NPU Operator는 DRA 모드일 때만 게시합니다", []),
        ("스케줄러가 candidate 노드를 고릅니다", ["candidate"]),
    ],
)  # fmt: skip
def test_the_latin_word_check(text: str, english: list[str]) -> None:
    assert latin_words(text) == english


def test_no_latin_word_in_the_korean_prose_of_the_catalog() -> None:
    found = [
        f"{where}: {word}  <- {text.strip()[:120]}"
        for where, text in catalog_korean()
        for word in latin_words(text)
    ]
    assert not found, "\n".join(found)


# The attribute names the product document writes as they are (resource.kubernetes.io/<name>).
ATTRIBUTE_NAMES = frozenset({"pcieRoot", "numaNode", "pciSubsystem"})


def test_evidence_labels_read_as_korean() -> None:
    """A Korean evidence label is Korean words, not the `-o json` key (`nodesTotal`, `missingOn`):
    no lower-camel word outside code but the product document's attribute names."""
    from kubectl_rbln.catalog import load_sentences

    camel = [
        f"{key}: {texts['ko']}"
        for key, texts in load_sentences().items()
        if key.startswith("evidence-")
        for word in re.findall(r"\b[a-z]+[A-Z]\w*", re.sub(r"`[^`]*`", "", texts.get("ko", "")))
        if word not in ATTRIBUTE_NAMES
    ]
    assert not camel, "\n".join(camel)


def test_every_evidence_key_of_check_and_attrs_has_a_korean_label() -> None:
    from kubectl_rbln.app.attrs import AttrsRequest, attrs
    from kubectl_rbln.app.check import CheckRequest, run_check
    from kubectl_rbln.catalog import load_sentences
    from kubectl_rbln.dra.normalize import build_snapshot
    from testing.synthetic.scenarios import SCENARIOS

    keys: dict[str, str] = {}

    def walk(node: Any, where: str) -> None:
        if isinstance(node, dict):
            if "slug" in node and isinstance(node.get("evidence"), dict):
                for key in node["evidence"]:
                    keys.setdefault(key, where)
            for value in node.values():
                walk(value, where)
        elif isinstance(node, list):
            for value in node:
                walk(value, where)

    for name, scenario in SCENARIOS.items():
        snapshot = build_snapshot(scenario.build("v1"))
        walk(run_check(snapshot, CheckRequest("serving", "npu-rdma")).to_document("en"), f"check {name}")
        walk(attrs(snapshot, AttrsRequest("serving", "npu-rdma")).to_document("en"), f"attrs {name}")
    assert len(keys) > 20
    sentences = load_sentences()
    missing = sorted(
        f"{key} ({where})" for key, where in keys.items() if "ko" not in sentences.get(f"evidence-{key}", {})
    )
    assert not missing, "\n".join(missing)


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_explain_without_the_docs_tree_shows_each_value_by_name(lang: str) -> None:
    """`explain SLUG` from the catalog (no docs/ installed): `<condition>이`, never a raw `{condition|이}`."""
    from kubectl_rbln.catalog import load_catalog
    from kubectl_rbln.cli.explain import catalog_page

    raw = [
        f"{slug}: {hit}"
        for slug in load_catalog()
        for hit in re.findall(r"\{[A-Za-z_|]+\}", catalog_page(slug, lang))
    ]
    assert not raw, "\n".join(raw)
    page = catalog_page("binding-failed", lang)
    assert (
        ("<condition>이 True" in page)
        if lang == "ko"
        else ("<condition> is" in page or "<condition>" in page)
    )
