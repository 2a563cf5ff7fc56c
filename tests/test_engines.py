"""The answer grammars in the real decoding engines (:mod:`tests.engines`), byte by byte.

For one instance of every family under the names of v1 and v4: every grammar form compiles in every
installed engine, the solver's answer is accepted, and every bad answer of :func:`tests.engines.bad_texts`
(:func:`~tests.engines.bad_objects` for the JSON Schema) is rejected; the ``--lines exact`` forms also
reject one line too few or too many. jsonschema judges the JSON Schema as the reference implementation.
llguidance and jsonschema are test dependencies; xgrammar pulls in torch and transformers, so it is in
the optional ``engines`` extra and its tests skip when it is absent.
"""

from __future__ import annotations

import importlib.util

import jsonschema
import pytest

from schedc.grammars import answer_spec, gbnf_grammar, lark_grammar
from schedc.lang.load import load_instance
from tests.engines import (
    FAMILY_EXAMPLES,
    ROOT,
    VARIANTS,
    LlguidanceMatcher,
    as_json,
    bad_exact_texts,
    bad_objects,
    bad_texts,
    case,
    lark_to_ebnf,
)
from tests.test_grammars import gbnf_regex

CASES = [(example, variant) for example in FAMILY_EXAMPLES.values() for variant in VARIANTS]
IDS = [f"{example}-{variant}" for example, variant in CASES]
NO_XGRAMMAR = "xgrammar is not installed (it pulls in torch and transformers: pip install 'schedc[engines]')"


@pytest.fixture(scope="module")
def llguidance() -> LlguidanceMatcher:
    return LlguidanceMatcher()


@pytest.mark.parametrize("form", ["gbnf", "lark"])
@pytest.mark.parametrize(("example", "variant"), CASES, ids=IDS)
def test_llguidance_text_grammars(llguidance: LlguidanceMatcher, example: str, variant: str, form: str) -> None:
    c = case(example, variant)
    compiled = llguidance.compile(form, c.grammar(form))
    assert llguidance.accepts(compiled, c.answer) and llguidance.accepts(compiled, c.answer.rstrip("\n"))
    accepted = [name for name, text in bad_texts(c).items() if llguidance.accepts(compiled, text)]
    assert accepted == []
    if c.spec.max_lines == c.spec.min_lines:
        exact = llguidance.compile(form, c.grammar(form, lines="exact"))
        assert llguidance.accepts(exact, c.answer)
        assert [n for n, text in bad_exact_texts(c).items() if llguidance.accepts(exact, text)] == []
        assert all(llguidance.accepts(compiled, text) for text in bad_exact_texts(c).values())  # "any" lines


@pytest.mark.parametrize(("example", "variant"), CASES, ids=IDS)
def test_json_schema_in_llguidance_and_jsonschema(llguidance: LlguidanceMatcher, example: str, variant: str) -> None:
    c = case(example, variant)
    schema = c.grammar("json")
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    compiled = llguidance.compile("json", schema)
    assert validator.is_valid(c.structured()) and llguidance.accepts(compiled, as_json(c.structured()))
    for name, value in bad_objects(c).items():
        assert not validator.is_valid(value), name
        assert not llguidance.accepts(compiled, as_json(value)), name


@pytest.mark.parametrize(("example", "variant"), CASES, ids=IDS)
def test_lark_form_survives_vllms_conversion(example: str, variant: str) -> None:
    """vLLM's Lark→EBNF rewriting yields a GBNF grammar that accepts and rejects the same answers."""
    c = case(example, variant)
    for lines in ("any", "exact") if c.spec.max_lines == c.spec.min_lines else ("any",):
        pattern = gbnf_regex(lark_to_ebnf(c.grammar("lark", lines)))
        assert pattern.fullmatch(c.answer)
        assert [n for n, text in bad_texts(c).items() if pattern.fullmatch(text)] == []


def test_prefix_names_and_a_time_field_named_start(llguidance: LlguidanceMatcher) -> None:
    """The two faults found in llguidance: ``Iron`` beside ``Iron Gate``, and a GBNF rule named ``start``."""
    instance = load_instance(ROOT / "examples" / "ft06.sched")
    spec = answer_spec(instance, None, {"J1": "Iron", "J2": "Iron Gate", "J3": "Iron Gate East"})
    text = "Iron step 1: start=0\nIron Gate step 1: start=3\nIron Gate East step 6: start=12\n"
    for form, grammar in (("gbnf", gbnf_grammar(spec)), ("lark", lark_grammar(spec))):
        compiled = llguidance.compile(form, grammar)
        assert llguidance.accepts(compiled, text), form
        assert not llguidance.accepts(compiled, "Iron Gat step 1: start=0\n"), form
    assert "start ::=" not in gbnf_grammar(spec) and "start-time ::=" in gbnf_grammar(spec)


@pytest.mark.skipif(importlib.util.find_spec("xgrammar") is None, reason=NO_XGRAMMAR)
@pytest.mark.parametrize(("example", "variant"), CASES, ids=IDS)
def test_xgrammar(example: str, variant: str) -> None:
    from tests.engines import XgrammarMatcher

    xgrammar = XgrammarMatcher()
    c = case(example, variant)
    for form in xgrammar.forms:
        compiled = xgrammar.compile(form, c.grammar(form))
        good = as_json(c.structured()) if form == "json" else c.answer
        bad = {n: as_json(v) for n, v in bad_objects(c).items()} if form == "json" else bad_texts(c)
        assert xgrammar.accepts(compiled, good), form
        assert [n for n, text in bad.items() if xgrammar.accepts(compiled, text)] == [], form
