"""Decoding engines as byte-level matchers, and the answers they are judged on (shared by the engine tests
and ``benchmarks/grammar_engines.py``).

Each engine compiles one grammar form and feeds an answer **one byte per token** (a 256-token byte
vocabulary plus an end token, so that no tokenizer or model is needed): an answer is accepted when every
byte is allowed and the matcher may end after the last one.

* :class:`LlguidanceMatcher` — llguidance (vLLM's ``guidance`` backend, also SGLang's): GBNF, Lark, JSON Schema.
* :class:`XgrammarMatcher` — xgrammar (vLLM's default backend): GBNF/EBNF, JSON Schema, and the Lark form
  after :func:`lark_to_ebnf`; only where xgrammar is installed (``pip install 'schedc[engines]'``).
* :func:`lark_to_ebnf` — the rewriting vLLM applies to a Lark grammar before xgrammar sees it, as its
  documentation describes it: comments dropped, ``name: body`` → ``name ::= body`` with ``|``
  continuation lines joined, and ``root ::= start`` added. A Lark form that survives this and reads as
  GBNF is one vLLM's xgrammar backend accepts.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from schedc.backends.cpsat import SolveOptions, solve
from schedc.grammars import AnswerSpec, IntRange, answer_spec, gbnf_grammar, json_schema, lark_grammar
from schedc.ir import Family, Instance
from schedc.lang.family import load_family
from schedc.lang.load import load_instance
from schedc.render import display_names
from schedc.verify.answers import AnswerFormat, extract
from schedc.verify.verifier import Verifier

ROOT = Path(__file__).resolve().parent.parent
#: One instance of every family (the hand-written examples).
FAMILY_EXAMPLES = {"jobshop": "ft06", "fjsp": "fjsp_small", "rcpsp": "rcpsp_small", "mrcpsp": "mrcpsp_small",
                   "itc2007": "itc2007_small", "inrc2010": "inrc2010_small", "nsplib": "nsplib_small",
                   "dfjsp": "dfjsp_small"}
VARIANTS = ("v1", "v4")
_NUMBER_FIELDS = ("step", "start", "mode", "day", "period")


@dataclass(frozen=True)
class Case:
    """One instance under one rendering's names: its answer spec and the solver's answer."""

    instance: Instance
    family: Family
    spec: AnswerSpec
    answer: str

    def grammar(self, form: str, lines: str = "any") -> Any:
        """The grammar text (``gbnf``, ``lark``) or the schema dict (``json``)."""
        if form == "json":
            return json_schema(self.spec)
        return (gbnf_grammar if form == "gbnf" else lark_grammar)(self.spec, lines)

    def rows(self) -> list[dict[str, str]]:
        """The fields of every answer line, as written."""
        return [dict(line.fields) for line in extract(self.answer, AnswerFormat(self.family)).lines]

    def structured(self) -> dict[str, Any]:
        """The answer as the JSON Schema's object."""
        return {"assignments": [{k: int(v) if k in _NUMBER_FIELDS else v for k, v in row.items()}
                                for row in self.rows()]}


@cache
def case(example: str, variant: str, path: Path | None = None) -> Case:
    """The case of ``example`` (or the instance file ``path``) under ``variant``'s names, seed 42."""
    spec_path = path or ROOT / "examples" / f"{example}.sched"
    instance = load_instance(spec_path)
    family = load_family(instance.family, [spec_path.parent])
    names = display_names(instance, family, variant, 42, [spec_path.parent])
    result = solve(instance, family, SolveOptions(time_limit=20, workers=1, seed=1))
    assert result.solution is not None, example
    answer = Verifier(instance, family, names).write(result.solution)
    return Case(instance, family, answer_spec(instance, family, names), answer)


def _fill(template: str, row: dict[str, str]) -> str:
    return re.sub(r"<([a-z_]+)>", lambda m: row[m.group(1)], template)


def bad_texts(c: Case) -> dict[str, str]:
    """Answers every grammar must reject (named by what is wrong)."""
    lines = c.answer.rstrip("\n").split("\n")
    head, body = (lines[:1], lines[1:]) if c.spec.header else ([], lines)
    row = c.rows()[0]
    name_field = next(f for f in c.spec.fields if isinstance(c.spec.groups[0].domains[f], tuple))
    out = {"empty": "", "prose before": "Here is the schedule:\n" + c.answer,
           "blank line": "\n".join(head + body[:1] + [""] + body[1:]),
           "trailing text": c.answer.rstrip("\n") + "\nDone.",
           "CRLF": c.answer.replace("\n", "\r\n"),
           "unknown name": "\n".join(head + [_fill(c.spec.template, {**row, name_field: row[name_field] + "x"})]
                                     + body[1:]),
           "name prefix only": "\n".join(head + [_fill(c.spec.template, {**row, name_field: row[name_field][:-1]})]
                                         + body[1:])}
    if "start" in row:
        out["leading zero"] = "\n".join(head + [_fill(c.spec.template, {**row, "start": "0" + row["start"]})]
                                        + body[1:])
    bounded = [f for f in c.spec.fields if isinstance(c.spec.groups[0].domains[f], IntRange)
               and c.spec.groups[0].domains[f].hi is not None]
    if bounded:
        field = bounded[0]
        high = max(g.domains[field].hi for g in c.spec.groups)  # type: ignore[union-attr]
        out["number out of range"] = "\n".join(head + [_fill(c.spec.template, {**row, field: str(high + 1)})]
                                               + body[1:])
    if c.spec.header:
        out["no header"] = "\n".join(body)
    return out


def bad_exact_texts(c: Case) -> dict[str, str]:
    """Answers with one line too few or too many (rejected by the ``--lines exact`` form only)."""
    lines = c.answer.rstrip("\n").split("\n")
    return {"one line too few": "\n".join(lines[:-1]), "one line too many": "\n".join(lines + lines[-1:])}


def bad_objects(c: Case) -> dict[str, Any]:
    """Structured answers the JSON Schema must reject."""
    good = c.structured()
    items = good["assignments"]
    first = dict(items[0])
    name_field = next(f for f in c.spec.fields if isinstance(c.spec.groups[0].domains[f], tuple))
    number_field = next(f for f in c.spec.fields if f in _NUMBER_FIELDS)
    out: dict[str, Any] = {
        "unknown name": {"assignments": [{**first, name_field: first[name_field] + "x"}, *items[1:]]},
        "number as a string": {"assignments": [{**first, number_field: str(first[number_field])}, *items[1:]]},
        "missing field": {"assignments": [{k: v for k, v in first.items() if k != name_field}, *items[1:]]},
        "extra property": {"assignments": [{**first, "note": "x"}, *items[1:]]},
        "negative number": {"assignments": [{**first, number_field: -1}, *items[1:]]},
        "not an object": {"schedule": items},
    }
    if c.spec.max_lines is not None:
        out["one item too many"] = {"assignments": [*items, items[-1]]}
    if c.spec.min_lines > 0:
        out["one item too few"] = {"assignments": items[:-1]}
    bounded = [f for f in c.spec.fields if isinstance(c.spec.groups[0].domains[f], IntRange)
               and c.spec.groups[0].domains[f].hi is not None]
    if bounded:
        high = max(g.domains[bounded[0]].hi for g in c.spec.groups)  # type: ignore[union-attr]
        out["number out of range"] = {"assignments": [{**first, bounded[0]: high + 1}, *items[1:]]}
    return out


def as_json(value: Any) -> str:
    """The compact JSON text a model would write."""
    return json.dumps(value, ensure_ascii=False)


# ---------------------------------------------------------------------------------------------- engines


class _ByteTokenizer:
    """A 257-token vocabulary: one token per byte, then an end token (llguidance's TokenizerWrapper protocol)."""

    eos_token_id = 256
    bos_token_id = None
    tokens = [bytes([i]) for i in range(256)] + [b"<|end|>"]
    special_token_ids = [256]

    def __call__(self, text: bytes | str) -> list[int]:
        return list(text if isinstance(text, bytes) else text.encode("utf-8"))


class LlguidanceMatcher:
    """llguidance over a byte vocabulary."""

    name = "llguidance"
    forms = ("gbnf", "lark", "json")

    def __init__(self) -> None:
        import llguidance

        self.llg = llguidance
        self.tokenizer = llguidance.LLTokenizer(llguidance.TokenizerWrapper(_ByteTokenizer()), slices=[])

    def compile(self, form: str, grammar: Any) -> Any:
        """A compiled grammar (a ValueError with the engine's message if it does not compile)."""
        text = {"gbnf": lambda: self.llg.grammar_from("grammar", grammar),
                "lark": lambda: self.llg.grammar_from("lark", grammar),
                "json": lambda: self.llg.grammar_from("json_schema", json.dumps(grammar))}[form]()
        is_error, messages = self.llg.LLMatcher.validate_grammar_with_warnings(text, self.tokenizer)
        if is_error:
            raise ValueError(messages[0])
        self.warnings = messages
        return text

    def accepts(self, compiled: Any, text: str, mask: bool = False) -> bool:
        """Whether ``text`` is accepted byte by byte and may end there (``mask``: also compute each
        next-token mask, as a decoder does)."""
        matcher = self.llg.LLMatcher(self.tokenizer, compiled, log_level=0)
        for byte in text.encode("utf-8"):
            if mask:
                matcher.compute_bitmask()
            if not matcher.consume_token(byte):
                return False
        return matcher.is_accepting()


class XgrammarMatcher:
    """xgrammar over a byte vocabulary (raw vocabulary type, 257 tokens)."""

    name = "xgrammar"
    forms = ("gbnf", "lark", "json")

    def __init__(self) -> None:
        import xgrammar

        self.xgr = xgrammar
        info = xgrammar.TokenizerInfo(_ByteTokenizer.tokens, vocab_type=xgrammar.VocabType.RAW,
                                      stop_token_ids=[256])
        self.compiler = xgrammar.GrammarCompiler(info, max_threads=1)

    def compile(self, form: str, grammar: Any) -> Any:
        """A compiled grammar (the Lark form through :func:`lark_to_ebnf`, as vLLM does)."""
        try:
            if form == "json":
                return self.compiler.compile_json_schema(json.dumps(grammar), strict_mode=True)
            return self.compiler.compile_grammar(lark_to_ebnf(grammar) if form == "lark" else grammar)
        except RuntimeError as exc:
            raise ValueError(str(exc)) from None

    def accepts(self, compiled: Any, text: str, mask: bool = False) -> bool:
        """Whether ``text`` is accepted byte by byte and the end token may follow (``mask``: also fill each
        next-token bitmask)."""
        matcher = self.xgr.GrammarMatcher(compiled)
        # an int32 array of one bit per token, as xgrammar.allocate_token_bitmask makes (numpy: no torch needed)
        bitmask = np.full((1, (len(_ByteTokenizer.tokens) + 31) // 32), -1, dtype=np.int32) if mask else None
        for byte in text.encode("utf-8"):
            if bitmask is not None:
                matcher.fill_next_token_bitmask(bitmask)
            if not matcher.accept_token(byte):
                return False
        return matcher.accept_token(256)


def lark_to_ebnf(grammar: str) -> str:
    """The Lark → EBNF rewriting vLLM documents for its xgrammar backend (see the module docstring)."""
    rules: list[tuple[str, list[str]]] = []
    for raw in grammar.split("\n"):
        line = re.sub(r"(#|//).*$", "", raw).strip()
        if not line:
            continue
        if line.startswith("|"):
            rules[-1][1].append(line[1:].strip())
            continue
        if ":" not in line or line.count('"') % 2 or "'" in line:
            raise ValueError(f"not a rule line vLLM's conversion reads: {raw!r}")
        name, body = line.split(":", 1)
        rules.append((name.strip(), [body.strip()]))
    first = next((name for name, _ in rules if name == "start"), rules[0][0])
    return "\n".join([f"root ::= {first}"] + [f"{name} ::= {' | '.join(body)}" for name, body in rules])


def engines() -> list[Any]:
    """The engines that are installed."""
    found: list[Any] = [LlguidanceMatcher()]
    try:
        found.append(XgrammarMatcher())
    except ImportError:
        pass
    return found
