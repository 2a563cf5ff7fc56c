"""Answer grammars in the decoding engines: the engine × family matrix, then compile and per-token times.

Part 1 — for one instance of every family under the names of v1 and v4, each installed engine and form
(:mod:`tests.engines`: llguidance GBNF/Lark/JSON Schema, xgrammar GBNF/Lark-through-vLLM's-rewriting/JSON
Schema when installed, Lark's own LALR parser, jsonschema): does the grammar compile, is the solver's
answer accepted byte by byte, how many of the bad answers are rejected. A cell reads ``ok 9/9`` (compiled,
reference accepted, 9 of 9 bad answers rejected) or names the failure.

Part 2 — for the largest instance of each family (the shared data when present, else tests/data):
grammar compile time and matcher time per token (one byte per token; consume plus next-token mask) over a
complete answer in the format, per engine and form.

llama.cpp's own GBNF parser is not run: ``llama-cpp-python`` ships no Linux wheel on PyPI (it compiles
llama.cpp from source at install time), so it is not a dependency here.

    python benchmarks/grammar_engines.py [--part 1|2|all]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import jsonschema  # noqa: E402
from lark import Lark  # noqa: E402
from lark.exceptions import LarkError  # noqa: E402

from schedc.grammars import answer_spec, gbnf_grammar, json_schema, lark_grammar  # noqa: E402
from schedc.importers import import_paths  # noqa: E402
from schedc.verify.verifier import Verifier  # noqa: E402
from tests.engines import (  # noqa: E402
    FAMILY_EXAMPLES,
    VARIANTS,
    as_json,
    bad_objects,
    bad_texts,
    case,
    engines,
)

SHARED = ROOT.parent / "shared" / "data"
DATA = SHARED if SHARED.exists() else ROOT / "tests" / "data"
#: family → (importer format, glob of its files, glob of NSPLib cases); the largest file is taken.
SOURCES = {"jobshop": ("jsplib", "*.txt", None), "fjsp": ("fjsp", "**/*.fjs", None),
           "rcpsp": ("psplib-sm", "**/*.sm", None), "mrcpsp": ("psplib-mm", "**/*.mm", None),
           "itc2007": ("itc2007", "*.ctt", None), "inrc2010": ("inrc2010", "*.xml", None),
           "nsplib": ("nsplib", "N25/*.nsp", "Cases/*.gen")}


# ---------------------------------------------------------------------------------------------- part 1


def cell(engine: Any, form: str, grammar: Any, good: str, bad: dict[str, str]) -> str:
    """One matrix cell: compiled, reference accepted, bad answers rejected."""
    try:
        compiled = engine.compile(form, grammar)
    except ValueError as exc:
        return f"compile error: {str(exc).splitlines()[0][:60]}"
    if not engine.accepts(compiled, good):
        return "reference REJECTED"
    rejected = sum(not engine.accepts(compiled, text) for text in bad.values())
    return f"ok {rejected}/{len(bad)}"


class _LarkLalr:
    """Lark's own LALR parser as an engine (whole-text parse)."""

    name, forms = "lark-lalr", ("lark",)

    def compile(self, form: str, grammar: str) -> Lark:
        try:
            return Lark(grammar, parser="lalr")
        except LarkError as exc:
            raise ValueError(str(exc)) from None

    def accepts(self, compiled: Lark, text: str) -> bool:
        try:
            compiled.parse(text)
            return True
        except LarkError:
            return False


class _JsonSchema:
    """jsonschema (draft 2020-12) as the reference JSON Schema engine."""

    name, forms = "jsonschema", ("json",)

    def compile(self, form: str, schema: dict) -> Any:
        jsonschema.Draft202012Validator.check_schema(schema)
        return jsonschema.Draft202012Validator(schema)

    def accepts(self, compiled: Any, text: str) -> bool:
        return compiled.is_valid(json.loads(text))


def matrix() -> None:
    """Part 1: the engine × family matrix."""
    found = [*engines(), _LarkLalr(), _JsonSchema()]
    columns = [(engine, form) for engine in found for form in engine.forms]
    print("| family | variant | " + " | ".join(f"{e.name} {f}" for e, f in columns) + " |")
    print("|---|---|" + "---|" * len(columns))
    for family, example in FAMILY_EXAMPLES.items():
        for variant in VARIANTS:
            c = case(example, variant)
            cells = []
            for engine, form in columns:
                if form == "json":
                    bad = {n: as_json(v) for n, v in bad_objects(c).items()}
                    cells.append(cell(engine, form, c.grammar("json"), as_json(c.structured()), bad))
                else:
                    cells.append(cell(engine, form, c.grammar(form), c.answer, bad_texts(c)))
            print(f"| {family} | {variant} | " + " | ".join(cells) + " |")
    missing = {"xgrammar"} - {e.name for e in found}
    if missing:
        print(f"\nnot installed: {', '.join(sorted(missing))} (pip install 'schedc[engines]'; pulls in torch)")


# ---------------------------------------------------------------------------------------------- part 2


def largest(family: str) -> Any:
    """The largest source file of ``family`` imported as an instance (None when there is none)."""
    fmt, pattern, cases = SOURCES[family]
    files = sorted((DATA / fmt).glob(pattern), key=lambda p: p.stat().st_size)
    if not files:
        return None
    case_files = sorted((DATA / fmt).glob(cases))[:1] if cases else []
    [instance] = import_paths(fmt, [files[-1]], cases=case_files)
    return instance


def format_answer(check: Verifier) -> tuple[str, dict]:
    """A complete answer in the format (not necessarily feasible), as text and as the structured object."""
    from schedc.verify.answers import extract
    from tests.engines import _NUMBER_FIELDS
    from tests.test_grammars import format_only_schedule

    text = check.write(format_only_schedule(check))
    rows = [dict(line.fields) for line in extract(text, check.format).lines]
    return text, {"assignments": [{k: int(v) if k in _NUMBER_FIELDS else v for k, v in r.items()} for r in rows]}


def timing(engine: Any, form: str, grammar: Any, text: str) -> tuple[float, float, bool, bool]:
    """Compile seconds, seconds per token (consume + next mask), whether the text was accepted, and whether
    the next-token mask was computed (where an engine offers no usable mask call, only consuming is timed)."""
    started = time.perf_counter()
    compiled = engine.compile(form, grammar)
    compile_s = time.perf_counter() - started
    data = text.encode("utf-8")
    masked = True
    started = time.perf_counter()
    try:
        accepted = engine.accepts(compiled, text, mask=True)
    except (AttributeError, TypeError, ValueError, RuntimeError):  # an engine without a usable mask call
        masked = False
        started = time.perf_counter()
        accepted = engine.accepts(compiled, text)
    per_token = (time.perf_counter() - started) / max(1, len(data))
    return compile_s, per_token, accepted, masked


def speed() -> None:
    """Part 2: compile and per-token times on the largest instance of each family."""
    found = engines()
    print(f"\nlargest instances from {DATA}")
    print("| family | instance | lines | engine | form | grammar bytes | compile ms | µs/token | mask | accepted |")
    print("|---|---|---:|---|---|---:|---:|---:|---|---|")
    for family in SOURCES:
        instance = largest(family)
        if instance is None:
            continue
        check = Verifier(instance)
        spec = answer_spec(instance, None, None)
        text, structured = format_answer(check)
        grammars = {"gbnf": gbnf_grammar(spec), "lark": lark_grammar(spec), "json": json_schema(spec)}
        for engine in found:
            for form in engine.forms:
                answer = as_json(structured) if form == "json" else text
                compile_s, per_token, ok, masked = timing(engine, form, grammars[form], answer)
                size = len(json.dumps(grammars[form])) if form == "json" else len(grammars[form])
                print(f"| {family} | {instance.name} | {text.count(chr(10))} | {engine.name} | {form} | {size} | "
                      f"{compile_s * 1000:.1f} | {per_token * 1e6:.1f} | {'yes' if masked else 'no'} | {ok} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--part", choices=["1", "2", "all"], default="all")
    args = parser.parse_args()
    if args.part in ("1", "all"):
        matrix()
    if args.part in ("2", "all"):
        speed()


if __name__ == "__main__":
    main()
