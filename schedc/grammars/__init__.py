"""Output grammars: the answer format of an instance as a prompt stanza, a Lark grammar, a GBNF grammar
or a JSON Schema for structured output.

A stage (see ``tests/test_import_graph.py``). Takes in an instance, its family and a rendering's names;
gives out the answer format as text, Lark, GBNF or JSON Schema. Imports the stages below (the verifier's
reading of names, the renderings); never the backends.

All four are built from one :class:`AnswerSpec`: the family's answer template (``<job> step <step>:
start=<start>``), its optional header (``ASSIGNMENTS=<count>``) and the closed vocabulary of one
rendering — the display names of jobs, activities, machines, agents and values under a names mapping
(canonical names, or themed ones such as ``Sourdough`` for ``J1``) — with the integer ranges the
instance fixes:

* names are literal alternatives (one rule per vocabulary, not one rule per line, so that a grammar
  stays small for 100 jobs); a name is written exactly as displayed (no case or blank tolerance);
  a mapping that shows two entities of a role alike, or a name holding a field separator (``|,;:=``)
  or blanks at an end, is refused (ValueError): the verifier could not read such answers back;
* ``<start>`` and ``<count>`` are non-negative integers without leading zeros, unbounded above;
* ``<step>`` is ``1..n`` for a job of ``n`` operations and ``<mode>`` ``1..k`` for an activity of ``k``
  modes: jobs (activities) are grouped by their number of steps (modes) and each group is one
  alternative of the line rule, so the range follows the name;
* ``<day>`` is the displayed day range (0-based, 1-based or the day of the month, as the family's
  ``day_names`` says) and ``<period>`` ``0..periods-1``, compiled into digit classes;
* lines are separated by ``\\n``, at least one line (``lines="exact"``: exactly the instance's number,
  where the family fixes it), a trailing newline is optional, no blank lines; a header comes first.

The Lark and GBNF forms are written so that every decoding engine reads them alike (tested byte by byte
in ``tests/test_engines.py``): a name and the literal after it are one terminal (``"Iron step "``), since
a greedy lexer such as llguidance's could otherwise never end ``Iron`` beside ``Iron Gate``; no GBNF rule
is named ``start`` (llguidance would read the grammar as Lark); the Lark form has no ``!`` rules, regular
expressions or repetition counts, and writes quotes, ``#`` and ``/`` as ``\\xNN``, so that vLLM's
Lark→EBNF conversion for xgrammar keeps it intact.

Grammars check the *format*, not the schedule: which machine may process an operation, whether every
operation has exactly one line, precedences, capacities and coverage are the verifier's job (an answer
the grammar accepts may still be infeasible, or incomplete). The JSON Schema adds the number of items
where the instance fixes it; what it cannot express is listed in its ``$comment`` (:func:`schema_limits`).

:func:`structured_to_text` turns a structured answer back into answer text, so that the verifier can
check it like any other answer.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from schedc.grammars.formal import digit_pieces, gbnf_grammar, gbnf_string, lark_grammar, lark_string
from schedc.grammars.spec import FORMATS, AnswerSpec, IntRange, LineGroup, answer_spec
from schedc.grammars.stanza import text_stanza
from schedc.grammars.structured import (
    answer_text,
    decode_structured,
    json_schema,
    schema_limits,
    structured_to_text,
)
from schedc.ir import Family, Instance


def answer_grammar(instance: Instance, family: Family | None, names: Mapping[str, str] | None,
                   fmt: str, lines: str = "any") -> str:
    """The answer format of ``instance`` under ``names`` as ``fmt``: text, lark, gbnf or json-schema.

    ``family`` None loads the instance's family; ``names`` maps IR names to display names (None:
    canonical names); ``lines="exact"`` makes the Lark and GBNF grammars accept exactly the instance's
    number of lines. Raises ValueError for an unknown format, a family without an answer format, a
    mapping that shows two entities of one role under the same name, or ``exact`` lines where the
    instance does not fix their number.
    """
    spec = answer_spec(instance, family, names)
    if fmt == "text":
        return text_stanza(spec)
    if fmt == "lark":
        return lark_grammar(spec, lines)
    if fmt == "gbnf":
        return gbnf_grammar(spec, lines)
    if fmt == "json-schema":
        return json.dumps(json_schema(spec), indent=2, ensure_ascii=False) + "\n"
    raise ValueError(f"unknown grammar format {fmt!r} (expected one of {', '.join(FORMATS)})")


__all__ = ["FORMATS", "AnswerSpec", "IntRange", "LineGroup", "answer_grammar", "answer_text", "answer_spec",
           "digit_pieces", "gbnf_grammar", "gbnf_string", "json_schema", "lark_grammar", "lark_string", "schema_limits",
           "structured_to_text", "text_stanza", "decode_structured"]
