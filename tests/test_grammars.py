"""Output grammars (:mod:`schedc.grammars`): the answer format as Lark, GBNF, JSON Schema and prompt text.

For every example instance, with canonical names and with a themed mapping (made-up words, with blanks,
quotes, a backslash and accents): the Lark grammar (LALR and Earley) accepts the CP-SAT solution as the
verifier writes it and rejects malformed answers; the GBNF grammar passes a structural check and — with
the small GBNF recognizer below (no GBNF matcher is installed: the grammars are not recursive, so each
compiles to a regular expression) — accepts and rejects the same answers; the JSON Schema is a valid
draft 2020-12 schema of the subset checked by :func:`validate`, the structured solution conforms, and
:func:`structured_to_text` turns it back into the very answer, which verifies feasible. The four formats
of every example are snapshots (update with ``pytest --snapshot-update``, then read the diff).
"""

from __future__ import annotations

import json
import re
from functools import cache
from typing import Any

import pytest
from lark import Lark
from lark.exceptions import LarkError

from schedc.backends.cpsat import SolveOptions, solve
from schedc.core.solution import Assignment, Solution
from schedc.grammars import (
    FORMATS,
    IntRange,
    answer_grammar,
    answer_spec,
    digit_pieces,
    gbnf_string,
    json_schema,
    lark_string,
    structured_to_text,
)
from schedc.importers import import_paths
from schedc.ir import Activity, Family, Instance, Mode, Objective, Resource, Use
from schedc.lang.family import load_family
from schedc.lang.load import load_instance
from schedc.verify.answers import LIST_FIELDS, AnswerFormat, extract, split_list
from schedc.verify.verifier import Verifier
from tests.conftest import DATA, ROOT

EXAMPLES = sorted(p.stem for p in (ROOT / "examples").glob("*.sched"))
CASES = [(example, themed) for example in EXAMPLES for themed in (False, True)]
CASE_IDS = [f"{example}-{'themed' if themed else 'canonical'}" for example, themed in CASES]

# ---------------------------------------------------------------------------------------- instances and themes

#: Made-up display names: blanks, double and single quotes, a backslash, accents.
UNIT_WORDS = ["Sourdough", "Rye bread", 'Pain "au" levain', "Crème brûlée", "O'Hara", "Back\\slash", "Focaccia",
              "Pretzel", "Bagel"]
MACHINE_WORDS = ["Oven", "Stone mill", 'The "big" mixer', "Proofer", "Grill", "Fryer"]
AGENT_WORDS = ["Amélie", "Bo Jensen", 'Dana "Dee" Ross', "O'Brien", "Zed"]
VALUE_WORDS = ["Dawn", "Dusk shift", "Rest day"]


@cache
def load(example: str) -> tuple[Instance, Family]:
    path = ROOT / "examples" / f"{example}.sched"
    instance = load_instance(path)
    return instance, load_family(instance.family, [path.parent])


def theme(example: str) -> dict[str, str]:
    """A themed names mapping: every job or activity, machine, agent and value gets a made-up name."""
    instance, family = load(example)
    names: dict[str, str] = {}
    units = list(dict.fromkeys(a.job or a.name for a in instance.activities))
    names.update(zip(units, UNIT_WORDS, strict=False))
    names.update(zip([r.name for r in instance.resources], MACHINE_WORDS, strict=False))
    decision = family.decision
    if decision is not None:
        names.update(zip([e.name for e in instance.entities if e.cls == decision.agent], AGENT_WORDS, strict=False))
        names.update(zip([e.name for e in instance.entities if e.cls == decision.value], VALUE_WORDS, strict=False))
    return names


def mapping(example: str, themed: bool) -> dict[str, str] | None:
    return theme(example) if themed else None


@cache
def solution(example: str) -> Solution:
    instance, family = load(example)
    result = solve(instance, family, SolveOptions(time_limit=20, workers=2, seed=1))
    assert result.solution is not None
    return result.solution


@cache
def verifier(example: str, themed: bool) -> Verifier:
    instance, family = load(example)
    return Verifier(instance, family, mapping(example, themed))


def answer(example: str, themed: bool) -> str:
    """The solver's solution as the verifier writes it (a feasible, well-formed answer)."""
    return verifier(example, themed).write(solution(example))


@cache
def grammar(example: str, themed: bool, fmt: str) -> str:
    instance, family = load(example)
    return answer_grammar(instance, family, mapping(example, themed), fmt)


@cache
def lark_parser(example: str, themed: bool, parser: str) -> Lark:
    return Lark(grammar(example, themed, "lark"), parser=parser)


def lark_accepts(example: str, themed: bool, parser: str, text: str) -> bool:
    try:
        lark_parser(example, themed, parser).parse(text)
    except LarkError:
        return False
    return True


def test_themes_are_complete_and_verify() -> None:
    for example in EXAMPLES:
        names = theme(example)
        assert any(" " in shown for shown in names.values())
        report = verifier(example, True).check(answer(example, True))
        assert report.feasible, example


# ---------------------------------------------------------------------------------------- malformed answers


def items(example: str, themed: bool) -> list[dict[str, Any]]:
    """The answer's lines as structured items (numbers as ints), read back by the extractor."""
    _, family = load(example)
    extraction = extract(answer(example, themed), AnswerFormat(family))
    return [{k: int(v) if k in ("step", "start", "mode", "day", "period") else split_list(v) if k in LIST_FIELDS
             else v for k, v in line.fields.items()} for line in extraction.lines]


def rewrite(example: str, themed: bool, **changes: object) -> str:
    """The answer with the first line's fields changed to any text (the header, if any, kept)."""
    _, family = load(example)
    rows = items(example, themed)
    rows[0] = {**rows[0], **changes}
    lines = [fill(family.answer, row) for row in rows]
    header = [family.answer_header.replace("<count>", str(len(rows)))] if family.answer_header else []
    return "\n".join(header + lines) + "\n"


def fill(template: str, row: dict[str, object]) -> str:
    """A template with its placeholders replaced by any text."""
    def text(value: object) -> str:  # a team (a list of names) is written as the answer line writes it
        return (", ".join(map(str, value)) or "-") if isinstance(value, list) else str(value)

    return re.sub(r"<([a-z_]+)>", lambda m: text(row[m.group(1)]), template)


def malformed(example: str, themed: bool) -> dict[str, str]:
    """Answers that are not well formed, by what is wrong with them."""
    instance, family = load(example)
    text = answer(example, themed)
    lines = text.splitlines()
    spec = answer_spec(instance, family, mapping(example, themed))
    group = spec.groups[0]
    first = items(example, themed)[0]
    bad = {
        "garbage line": text + "Here is my schedule.\n",
        "prose first": "Sure! The schedule:\n" + text,
        "blank line": text.replace("\n", "\n\n", 1),
        "bullet": "- " + text,
        "trailing blank": text.rstrip("\n") + " \n",
        "crlf": text.replace("\n", "\r\n"),
        "empty": "",
        "wrong separator": _wrong_separator(text, spec.header),
    }
    for field in ("job", "activity", "machine", "agent", "value"):
        if field in first:
            bad[f"unknown {field}"] = rewrite(example, themed, **{field: "Nobody"})
            bad[f"{field} in other case"] = rewrite(example, themed, **{field: str(first[field]).swapcase()})
    if "start" in first:
        bad["negative start"] = rewrite(example, themed, start=-3)
        bad["leading zero"] = rewrite(example, themed, start="07")
        bad["decimal start"] = rewrite(example, themed, start="1.5")
    for field in ("step", "mode", "day", "period"):
        domain = group.domains.get(field)
        if isinstance(domain, IntRange) and domain.hi is not None:
            bad[f"{field} above range"] = rewrite(example, themed, **{field: domain.hi + 1})
            bad[f"{field} below range"] = rewrite(example, themed, **{field: domain.lo - 1})
    if spec.header:
        bad["missing header"] = "\n".join(lines[1:]) + "\n"
        bad["header only"] = lines[0] + "\n"
        bad["header misspelt"] = text.replace("ASSIGNMENTS=", "ASSIGNMENTS: ", 1)
        bad["header last"] = "\n".join(lines[1:] + lines[:1]) + "\n"
    return bad


def _wrong_separator(text: str, header: str) -> str:
    """The answer with the first separator of its first assignment line replaced."""
    lines = text.splitlines()
    index = 1 if header else 0
    for old, new in ((":", " -"), ("|", "/"), (",", ";")):
        if old in lines[index]:
            lines[index] = lines[index].replace(old, new, 1)
            return "\n".join(lines) + "\n"
    raise AssertionError(f"no separator in {lines[index]!r}")


# ---------------------------------------------------------------------------------------- Lark


@pytest.mark.parametrize("parser", ["lalr", "earley"])
@pytest.mark.parametrize(("example", "themed"), CASES, ids=CASE_IDS)
def test_lark_accepts_solver_answers(example: str, themed: bool, parser: str) -> None:
    text = answer(example, themed)
    assert verifier(example, themed).check(text).feasible
    assert lark_accepts(example, themed, parser, text)
    assert lark_accepts(example, themed, parser, text.rstrip("\n"))  # the trailing newline is optional
    head = 2 if load(example)[1].answer_header else 1
    assert lark_accepts(example, themed, parser, "\n".join(text.splitlines()[:head]))  # partial: well formed


@pytest.mark.parametrize("parser", ["lalr", "earley"])
@pytest.mark.parametrize(("example", "themed"), CASES, ids=CASE_IDS)
def test_lark_rejects_malformed_answers(example: str, themed: bool, parser: str) -> None:
    accepted = [what for what, text in malformed(example, themed).items()
                if lark_accepts(example, themed, parser, text)]
    assert not accepted


def test_lark_parse_tree_keeps_the_names() -> None:
    """A name is a terminal together with the literal after it (``Sourdough step ``): see _line_sequence."""
    tree = lark_parser("ft06", True, "lalr").parse(answer("ft06", True))
    jobs = {str(token).removesuffix(" step ") for token in tree.scan_values(lambda t: t.type == "JOB")}
    assert jobs == set(UNIT_WORDS[:6])


@pytest.mark.parametrize("name", UNIT_WORDS + ["a\\", "\\\"", "tab\there", "x'''y", "日本"])
def test_string_escapes_match_exactly_the_name(name: str) -> None:
    lark = Lark(f"start: {lark_string(name)}", parser="lalr")
    lark.parse(name)
    with pytest.raises(LarkError):
        lark.parse(name + "x")
    assert gbnf_regex(f"root ::= {gbnf_string(name)}").fullmatch(name)


# ---------------------------------------------------------------------------------------- GBNF


@pytest.mark.parametrize(("example", "themed"), CASES, ids=CASE_IDS)
def test_gbnf_is_well_formed(example: str, themed: bool) -> None:
    rules = parse_gbnf(grammar(example, themed, "gbnf"))
    assert "root" in rules
    referenced = {name for node in rules.values() for name in references(node)}
    assert referenced <= set(rules)
    assert set(rules) - {"root"} <= referenced  # no unused rule


@pytest.mark.parametrize(("example", "themed"), CASES, ids=CASE_IDS)
def test_gbnf_accepts_solver_answers_and_rejects_malformed(example: str, themed: bool) -> None:
    pattern = gbnf_regex(grammar(example, themed, "gbnf"))
    text = answer(example, themed)
    assert pattern.fullmatch(text) and pattern.fullmatch(text.rstrip("\n"))
    accepted = [what for what, bad in malformed(example, themed).items() if pattern.fullmatch(bad)]
    assert not accepted


def test_gbnf_checker_catches_broken_grammars() -> None:
    for broken in ['root ::= "a', "root ::= [0-9", "root ::= (a", "root ::= a", 'line ::= "a"', 'root ::= "a" )']:
        with pytest.raises(ValueError):
            rules = parse_gbnf(broken)
            missing = {n for node in rules.values() for n in references(node)} - set(rules)
            if missing or "root" not in rules:
                raise ValueError(missing)


# ---------------------------------------------------------------------------------------- JSON Schema


def structured(example: str, themed: bool) -> dict[str, Any]:
    return {"assignments": items(example, themed)}


@pytest.mark.parametrize(("example", "themed"), CASES, ids=CASE_IDS)
def test_json_schema_is_a_valid_schema(example: str, themed: bool) -> None:
    schema = json.loads(grammar(example, themed, "json-schema"))
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    check_schema(schema)
    try:
        from jsonschema import Draft202012Validator  # only if installed (it is not a dependency)
    except ImportError:
        return
    Draft202012Validator.check_schema(schema)


@pytest.mark.parametrize(("example", "themed"), CASES, ids=CASE_IDS)
def test_structured_solution_validates_and_verifies(example: str, themed: bool) -> None:
    instance, family = load(example)
    schema = json.loads(grammar(example, themed, "json-schema"))
    data = structured(example, themed)
    assert validate(data, schema) == []
    text = structured_to_text(instance, family, mapping(example, themed), json.dumps(data))
    assert text == answer(example, themed)
    assert verifier(example, themed).check(text).feasible


@pytest.mark.parametrize(("example", "themed"), CASES, ids=CASE_IDS)
def test_json_schema_rejects_malformed_items(example: str, themed: bool) -> None:
    instance, family = load(example)
    schema = json.loads(grammar(example, themed, "json-schema"))
    group = answer_spec(instance, family, mapping(example, themed)).groups[0]
    data = structured(example, themed)
    first = data["assignments"][0]
    bad: list[dict[str, Any]] = [{**first, "extra": 1}, {k: v for k, v in list(first.items())[1:]}]
    bad += [{**first, field: "Nobody"} for field in ("job", "activity", "machine", "agent", "value") if field in first]
    bad += [{**first, field: 2.5} for field in ("start", "day") if field in first]
    bad += [{**first, "start": -1}] if "start" in first else []
    for field in ("step", "mode", "day", "period"):
        domain = group.domains.get(field)
        if isinstance(domain, IntRange) and domain.hi is not None:
            bad += [{**first, field: domain.hi + 1}, {**first, field: domain.lo - 1}]
    for item in bad:
        assert validate({"assignments": [item] + data["assignments"][1:]}, schema), item
    assert validate({"assignments": data["assignments"][1:]}, schema)  # one item short of a complete answer
    assert validate({"items": data["assignments"]}, schema)


def test_json_schema_ties_steps_to_their_job() -> None:
    instance = synthetic_jobshop([3, 5, 3])
    spec = answer_spec(instance, None, None)
    schema = json_schema(spec)
    variants = schema["properties"]["assignments"]["items"]["anyOf"]
    assert [v["properties"]["step"]["maximum"] for v in variants] == [3, 5]
    rows = [{"job": f"Job {j}", "step": s, "start": 0} for j, n in ((1, 3), (2, 5), (3, 3)) for s in range(1, n + 1)]
    assert validate({"assignments": rows}, schema) == []
    assert validate({"assignments": rows + rows[:1]}, schema)  # 12 items: one too many
    assert validate({"assignments": [{**rows[0], "step": 4}] + rows[1:]}, schema)  # Job 1 has 3 steps
    assert validate({"assignments": rows[:-1] + [{**rows[-1], "job": "Job 2", "step": 5}]}, schema) == []


def test_structured_to_text_writes_the_header_and_refuses_bad_objects() -> None:
    instance, family = load("inrc2010_small")
    text = structured_to_text(instance, family, None, {"assignments": [{"day": 4, "agent": "Ann", "value": "E"}]})
    assert text == "ASSIGNMENTS=1\n4,Ann,E;\n"
    for data in ([], {"assignments": {}}, {"assignments": [1]}, {"assignments": [{"day": 4, "agent": "Ann"}]},
                 {"assignments": [{"day": "4", "agent": "Ann", "value": "E"}]},
                 {"assignments": [{"day": True, "agent": "Ann", "value": "E"}]}):
        with pytest.raises(ValueError):
            structured_to_text(instance, family, None, data)


# ---------------------------------------------------------------------------------------- text, snapshots, API


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("example", EXAMPLES)
def test_grammar_snapshots(example: str, fmt: str, snapshot) -> None:
    assert grammar(example, False, fmt) == snapshot


@pytest.mark.parametrize(("example", "themed"), CASES, ids=CASE_IDS)
def test_text_stanza_shows_the_format_and_a_real_example(example: str, themed: bool) -> None:
    _, family = load(example)
    text = grammar(example, themed, "text")
    assert family.answer in text
    example_lines = text.split("for example\n", 1)[1].split("where\n", 1)[0]
    assert lark_accepts(example, themed, "lalr", example_lines)  # the example is well formed
    if family.answer_header:
        assert family.answer_header in text and text.index(family.answer_header) < text.index(family.answer)
    spec = answer_spec(*load(example), mapping(example, themed))
    assert all(name in text for group in spec.groups for domain in group.domains.values()
               if isinstance(domain, tuple) for name in domain)


def test_unknown_format_and_ambiguous_names_are_refused() -> None:
    instance, family = load("ft06")
    with pytest.raises(ValueError, match="unknown grammar format"):
        answer_grammar(instance, family, None, "regex")
    with pytest.raises(ValueError, match="both as"):
        answer_grammar(instance, family, {"J1": "Bread", "J2": "bread"}, "lark")
    with pytest.raises(ValueError, match="separate the fields"):
        answer_grammar(instance, family, {"J1": "Bread: white"}, "gbnf")
    with pytest.raises(ValueError, match="blank"):
        answer_grammar(instance, family, {"J1": " Bread"}, "text")


def test_large_instance_grammars_stay_compact() -> None:
    instance = synthetic_jobshop([20] * 100)
    lark = answer_grammar(instance, None, None, "lark")
    gbnf = answer_grammar(instance, None, None, "gbnf")
    assert len(lark.splitlines()) < 30 and len(gbnf.splitlines()) < 30  # names wrapped, no rule per line
    assert len(lark) < 2500 and len(gbnf) < 2500
    text = Verifier(instance).write(synthetic_schedule(instance))
    assert len(text.splitlines()) == 2000
    Lark(lark, parser="lalr").parse(text)
    assert gbnf_regex(gbnf).fullmatch(text)


@pytest.mark.parametrize(("instance", "lines"), [
    (lambda: synthetic_jobshop([3, 5]), {"Job 1 step 3: start=0": True, "Job 1 step 4: start=0": False,
                                         "Job 2 step 5: start=10": True, "Job 2 step 6: start=0": False}),
    (lambda: synthetic_multimode([1, 3]), {"Activity 1: start=0, mode=1": True, "Activity 1: start=0, mode=2": False,
                                           "Activity 2: start=4, mode=3": True, "Activity 2: start=4, mode=4": False}),
], ids=["steps", "modes"])
def test_ranges_follow_the_job_or_activity(instance, lines: dict[str, bool]) -> None:
    instance = instance()
    lark = Lark(answer_grammar(instance, None, None, "lark"), parser="lalr")
    gbnf = gbnf_regex(answer_grammar(instance, None, None, "gbnf"))
    for line, ok in lines.items():
        assert bool(gbnf.fullmatch(line)) == ok, line
        try:
            lark.parse(line)
            assert ok, line
        except LarkError:
            assert not ok, line


IMPORTED = [("jsplib", ("jsplib", "ta01.txt"), None), ("psplib-sm", ("psplib-sm", "j301_1.sm"), None),
            ("psplib-mm", ("psplib-mm", "j203_2.mm"), None), ("fjsp", ("fjsp", "brandimarte", "Mk01.fjs"), None),
            ("inrc2010", ("inrc2010", "sprint01.xml"), None), ("itc2007", ("itc2007", "comp01.ctt"), None),
            ("nsplib", ("nsplib", "N25", "1.nsp"), ("nsplib", "Cases", "6.gen"))]


@pytest.mark.parametrize(("fmt", "parts", "case"), IMPORTED, ids=[fmt for fmt, _, _ in IMPORTED])
def test_imported_instances(fmt: str, parts: tuple[str, ...], case: tuple[str, ...] | None) -> None:
    """Real instances: every grammar accepts a complete answer in the format (feasible or not)."""
    [instance] = import_paths(fmt, [DATA.joinpath(*parts)], cases=[DATA.joinpath(*case)] if case else [])
    check = Verifier(instance)
    text = check.write(format_only_schedule(check))
    Lark(answer_grammar(instance, None, None, "lark"), parser="lalr").parse(text)
    assert gbnf_regex(answer_grammar(instance, None, None, "gbnf")).fullmatch(text)
    data = {"assignments": [{k: int(v) if k in ("step", "start", "mode", "day", "period") else v
                             for k, v in line.fields.items()} for line in extract(text, check.format).lines]}
    schema = json.loads(answer_grammar(instance, None, None, "json-schema"))
    check_schema(schema)
    assert validate(data, schema) == []
    assert structured_to_text(instance, None, None, data) == text


def format_only_schedule(check: Verifier) -> Solution:
    """A complete schedule in the answer format (not necessarily feasible): every mode and value used."""
    instance, ctx = check.instance, check.ctx
    if instance.activities:
        return Solution(starts={a.name: i for i, a in enumerate(instance.activities)},
                        modes={a.name: len(a.modes) for a in instance.activities})
    count = check.coverage(Solution())[1]  # the number of lines a complete answer has
    rows = [Assignment(ctx.agents[k % len(ctx.agents)], k % ctx.days, k % ctx.periods, ctx.values[k % len(ctx.values)])
            for k in range(count)]
    return Solution(assignments=tuple(rows))


@pytest.mark.parametrize(("lo", "hi"), [(0, 0), (0, 9), (1, 7), (4, 10), (1, 28), (7, 131), (0, 1000), (95, 105),
                                        (19, 21), (100, 999), (123, 4567)])
def test_digit_pieces_cover_exactly_the_range(lo: int, hi: int) -> None:
    pattern = re.compile("|".join("".join(f"[{a}-{b}]" for a, b in piece) for piece in digit_pieces(lo, hi)))
    accepted = {n for n in range(0, 5000) if pattern.fullmatch(str(n))}
    assert accepted == set(range(lo, hi + 1))
    assert not any(pattern.fullmatch(f"0{n}") for n in range(lo, min(hi, 100) + 1))


def synthetic_jobshop(steps: list[int]) -> Instance:
    """A job shop with a job per entry of ``steps`` (its number of operations), all on one machine."""
    mode = Mode(duration=1, uses=(Use(resource="M1"),))
    activities = tuple(Activity(name=f"J{j}.{s}", job=f"J{j}", step=s, modes=(mode,))
                       for j, n in enumerate(steps, start=1) for s in range(1, n + 1))
    return Instance(name="synthetic", family="jobshop", resources=(Resource(name="M1", kind="unary"),),
                    activities=activities, objective=Objective(measure="makespan"))


def synthetic_multimode(modes: list[int]) -> Instance:
    """A multi-mode project with an activity per entry of ``modes`` (its number of modes)."""
    activities = tuple(Activity(name=f"A{i}", modes=tuple(Mode(duration=d) for d in range(1, n + 1)))
                       for i, n in enumerate(modes, start=1))
    return Instance(name="synthetic", family="mrcpsp", activities=activities, objective=Objective(measure="makespan"))


def synthetic_schedule(instance: Instance) -> Solution:
    return Solution(starts={a.name: i for i, a in enumerate(instance.activities)})


# ---------------------------------------------------------------------------------------- a small GBNF recognizer

_GBNF_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", "\\": "\\", '"': '"', "[": "[", "]": "]"}


def parse_gbnf(text: str) -> dict[str, tuple]:
    """GBNF (llama.cpp syntax) → {rule: node}; a ValueError on unbalanced quotes, brackets or parentheses.

    Nodes: ("lit", str), ("cls", negated, [(lo, hi)]), ("ref", name), ("alt", [seq]), ("seq", [node]),
    ("rep", node, min, max | None). As in llama.cpp, a rule ends at a newline unless after ``|`` or inside
    parentheses.
    """
    parser = _Gbnf(text)
    rules: dict[str, tuple] = {}
    parser.space(newlines=True)
    while parser.pos < len(text):
        name = parser.word()
        parser.space()
        parser.expect("::=")
        parser.space(newlines=True)
        if name in rules:
            raise ValueError(f"rule {name} defined twice")
        rules[name] = parser.alternates(nested=False)
        if parser.pos < len(text) and text[parser.pos] not in "\r\n":
            raise ValueError(f"unexpected {text[parser.pos]!r} at {parser.pos}")
        parser.space(newlines=True)
    return rules


class _Gbnf:
    def __init__(self, text: str):
        self.text = text
        self.pos = 0

    def peek(self) -> str:
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def space(self, newlines: bool = False) -> None:
        while self.pos < len(self.text):
            char = self.text[self.pos]
            if char == "#":
                while self.pos < len(self.text) and self.text[self.pos] not in "\r\n":
                    self.pos += 1
            elif char in " \t" or (newlines and char in "\r\n"):
                self.pos += 1
            else:
                return

    def expect(self, token: str) -> None:
        if not self.text.startswith(token, self.pos):
            raise ValueError(f"expected {token!r} at {self.pos}")
        self.pos += len(token)

    def word(self) -> str:
        match = re.compile(r"[A-Za-z0-9-]+").match(self.text, self.pos)
        if match is None:
            raise ValueError(f"expected a rule name at {self.pos}")
        self.pos = match.end()
        return match.group()

    def char(self, end: str) -> str:
        """One (possibly escaped) character of a string or a class."""
        if self.pos >= len(self.text) or self.text[self.pos] in "\r\n":
            raise ValueError(f"unterminated literal, expected {end!r}")
        char = self.text[self.pos]
        self.pos += 1
        if char != "\\":
            return char
        code = self.peek()
        self.pos += 1
        widths = {"x": 2, "u": 4, "U": 8}
        if code in widths:
            digits = self.text[self.pos:self.pos + widths[code]]
            self.pos += widths[code]
            return chr(int(digits, 16))
        if code not in _GBNF_ESCAPES:
            raise ValueError(f"unknown escape \\{code}")
        return _GBNF_ESCAPES[code]

    def alternates(self, nested: bool) -> tuple:
        options = [self.sequence(nested)]
        while self.peek() == "|":
            self.pos += 1
            self.space(newlines=True)
            options.append(self.sequence(nested))
        return ("alt", options)

    def sequence(self, nested: bool) -> tuple:
        items: list[tuple] = []
        while True:
            element = self.element()
            if element is None:
                break
            items.append(self.postfix(element))
            self.space(newlines=nested)
        if not items:
            raise ValueError(f"empty alternative at {self.pos}")
        return ("seq", items)

    def element(self) -> tuple | None:
        char = self.peek()
        if char == '"':
            self.pos += 1
            text = ""
            while self.peek() != '"':
                text += self.char('"')
            self.pos += 1
            return ("lit", text)
        if char == "[":
            return self.char_class()
        if char == "(":
            self.pos += 1
            self.space(newlines=True)
            node = self.alternates(nested=True)
            self.expect(")")
            return node
        if char and re.match(r"[A-Za-z0-9-]", char):
            return ("ref", self.word())
        return None

    def char_class(self) -> tuple:
        self.pos += 1
        negated = self.peek() == "^"
        self.pos += negated
        ranges = []
        while self.peek() != "]":
            lo = self.char("]")
            hi = lo
            if self.peek() == "-" and self.text[self.pos + 1:self.pos + 2] not in ("]", ""):
                self.pos += 1
                hi = self.char("]")
            ranges.append((lo, hi))
        self.pos += 1
        return ("cls", negated, ranges)

    def postfix(self, node: tuple) -> tuple:
        char = self.peek()
        if char in ("*", "+", "?"):
            self.pos += 1
            return ("rep", node, 1 if char == "+" else 0, 1 if char == "?" else None)
        match = re.compile(r"\{(\d+)(,(\d*))?\}").match(self.text, self.pos)
        if match:
            self.pos = match.end()
            low = int(match.group(1))
            high = low if match.group(2) is None else (int(match.group(3)) if match.group(3) else None)
            return ("rep", node, low, high)
        return node


def references(node: tuple) -> list[str]:
    """The rule names a node refers to."""
    kind = node[0]
    if kind == "ref":
        return [node[1]]
    if kind in ("alt", "seq"):
        return [name for child in node[1] for name in references(child)]
    if kind == "rep":
        return references(node[1])
    return []


def gbnf_regex(text: str) -> re.Pattern[str]:
    """A non-recursive GBNF grammar as an equivalent regular expression (fullmatch = the grammar accepts)."""
    rules = parse_gbnf(text)

    def compile_node(node: tuple, active: tuple[str, ...]) -> str:
        kind = node[0]
        if kind == "lit":
            return re.escape(node[1])
        if kind == "cls":
            body = "".join(re.escape(a) if a == b else f"{re.escape(a)}-{re.escape(b)}" for a, b in node[2])
            return f"[{'^' if node[1] else ''}{body}]"
        if kind == "ref":
            if node[1] in active:
                raise ValueError(f"recursive rule {node[1]}")
            return f"(?:{compile_node(rules[node[1]], active + (node[1],))})"
        if kind == "alt":
            return "|".join(compile_node(child, active) for child in node[1])
        if kind == "seq":
            return "".join(f"(?:{compile_node(child, active)})" for child in node[1])
        low, high = node[2], node[3]
        return f"(?:{compile_node(node[1], active)}){{{low},{'' if high is None else high}}}"

    return re.compile(compile_node(("ref", "root"), ()), re.DOTALL)


# ---------------------------------------------------------------------------------------- a minimal JSON Schema check

#: The keywords the emitted schemas use, by where they may appear.
_KEYWORDS = {"$schema", "title", "description", "$comment", "type", "properties", "required",
             "additionalProperties", "items", "minItems", "maxItems", "anyOf", "enum", "minimum", "maximum"}
_TYPES = {"object", "array", "string", "integer"}


def check_schema(schema: Any, top: bool = True) -> None:
    """The schema uses only the supported keywords, well typed (a meta-schema check of that subset)."""
    assert isinstance(schema, dict) and set(schema) <= _KEYWORDS, set(schema) - _KEYWORDS
    assert top or "$schema" not in schema
    if "type" in schema:
        assert schema["type"] in _TYPES
    for key in ("title", "description", "$comment"):
        assert isinstance(schema.get(key, ""), str)
    if "properties" in schema:
        assert schema["type"] == "object" and isinstance(schema["properties"], dict)
        for sub in schema["properties"].values():
            check_schema(sub, top=False)
        assert set(schema["required"]) <= set(schema["properties"]) and len(set(schema["required"])) == len(
            schema["required"])
        assert schema["additionalProperties"] is False
    if "items" in schema:
        assert schema["type"] == "array"
        check_schema(schema["items"], top=False)
    for key in ("minItems", "maxItems", "minimum", "maximum"):
        assert isinstance(schema.get(key, 0), int) and not isinstance(schema.get(key, 0), bool)
    assert schema.get("minItems", 0) <= schema.get("maxItems", schema.get("minItems", 0))
    assert schema.get("minimum", 0) <= schema.get("maximum", schema.get("minimum", 0))
    if "enum" in schema:
        enum = schema["enum"]
        kind = {"string": str, "integer": int}[schema["type"]]
        assert enum and len(set(enum)) == len(enum) and all(isinstance(v, kind) for v in enum)
        if kind is int:  # bounds stated twice (min/max and enum) must agree
            assert enum == list(range(schema["minimum"], schema["maximum"] + 1))
    if "anyOf" in schema:
        assert schema["anyOf"]
        for sub in schema["anyOf"]:
            check_schema(sub, top=False)


def validate(value: Any, schema: dict[str, Any], path: str = "$") -> list[str]:
    """The errors of ``value`` against a schema of the subset :func:`check_schema` allows (empty: valid)."""
    if "anyOf" in schema:
        if all(validate(value, sub, path) for sub in schema["anyOf"]):
            return [f"{path}: matches no alternative"]
        return []
    errors = _type_errors(value, schema.get("type"), path)
    if errors:
        return errors
    if "enum" in schema and value not in schema["enum"]:
        errors.append(f"{path}: {value!r} not in enum")
    if "minimum" in schema and value < schema["minimum"] or "maximum" in schema and value > schema["maximum"]:
        errors.append(f"{path}: {value} out of range")
    if isinstance(value, dict):
        errors += _object_errors(value, schema, path)
    if isinstance(value, list):
        if not schema.get("minItems", 0) <= len(value) <= schema.get("maxItems", len(value)):
            errors.append(f"{path}: {len(value)} items")
        for index, item in enumerate(value):
            errors += validate(item, schema.get("items", {}), f"{path}[{index}]")
    return errors


def _type_errors(value: Any, kind: str | None, path: str) -> list[str]:
    checks = {"object": lambda v: isinstance(v, dict), "array": lambda v: isinstance(v, list),
              "string": lambda v: isinstance(v, str),
              "integer": lambda v: isinstance(v, int | float) and not isinstance(v, bool) and v == int(v)}
    return [] if kind is None or checks[kind](value) else [f"{path}: not {kind}"]


def _object_errors(value: dict[str, Any], schema: dict[str, Any], path: str) -> list[str]:
    properties = schema.get("properties", {})
    errors = [f"{path}: lacks {key}" for key in schema.get("required", []) if key not in value]
    if schema.get("additionalProperties") is False:
        errors += [f"{path}: unexpected {key}" for key in value if key not in properties]
    for key, sub in properties.items():
        if key in value:
            errors += validate(value[key], sub, f"{path}.{key}")
    return errors



def test_int_ranges_are_checked() -> None:
    for lo, hi in ((3, None), (-1, 4), (5, 4)):
        with pytest.raises(ValueError):
            IntRange(lo, hi)
    with pytest.raises(ValueError):
        digit_pieces(5, 4)
