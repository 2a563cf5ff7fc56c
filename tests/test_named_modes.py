"""Modes named by their resources per role (issue 28): ``S3: start=45, room=OR3, surgeon=Hale``.

An interval family whose answer line has a placeholder named after one of its classes (``<room>``
with ``class room ()``) names each activity's mode by the resource of that class it uses. The example
``examples/operating_rooms.sched`` (family ``operating_room``) is solved by both backends, written in that
form, read back by the verifier (which maps the names back to the mode), accepted by the grammars of
the rendering, and stated so by the prompt; a combination that is no mode, a ``mode=`` line and a spec
whose modes cannot be named so are refused with a precise message.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from lark import Lark, LarkError

import schedc
from schedc.backends import cpsat
from schedc.backends import pyomo as milp
from schedc.core.diagnostics import SchedcError
from schedc.grammars import answer_grammar, answer_spec, json_schema
from schedc.lang.family import load_family
from schedc.lang.family_parser import parse_family_text
from schedc.lang.load import load_instance
from schedc.lang.parser import parse_instance_text
from schedc.render import display_names
from schedc.verify.answers import AnswerFormat, extract
from schedc.verify.verifier import Verifier
from tests.engines import LlguidanceMatcher

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "operating_rooms.sched"
LINE = re.compile(r"^(S\d): start=(\d+), room=(OR\d), surgeon=(\w+)$")


def modes_of(answer: str) -> dict[str, tuple[int, str, str]]:
    """activity → (start, room, surgeon) of a v1 answer, every line in the named form."""
    lines = answer.strip().splitlines()
    matches = [LINE.match(line) for line in lines]
    assert all(matches), answer
    return {m.group(1): (int(m.group(2)), m.group(3), m.group(4)) for m in matches if m}


# ---------------------------------------------------------------------------- round trip


@pytest.mark.parametrize("backend", [cpsat, milp], ids=["cpsat", "pyomo"])
def test_both_backends_solve_and_their_answer_names_room_and_surgeon(backend) -> None:  # noqa: ANN001
    instance = load_instance(EXAMPLE)
    family = load_family(instance.family)
    result = backend.solve(instance, family, backend.SolveOptions(time_limit=30, workers=1, seed=0))
    assert (result.status, result.objective) == ("optimal", 225)
    verifier = Verifier(instance, family)
    answer = verifier.write(result.solution)
    written = modes_of(answer)
    assert set(written) == {a.name for a in instance.activities}
    for activity in instance.activities:  # the names written are those of the mode the solver chose
        mode = activity.modes[result.solution.modes[activity.name] - 1]
        _, room, surgeon = written[activity.name]
        assert {u.resource for u in mode.uses} == {room, surgeon}
    report = verifier.check(answer)
    assert report.feasible and report.objective == 225
    assert verifier.decisions(extract(answer, verifier.format), []).modes == result.solution.modes


@pytest.mark.parametrize("backend", ["cpsat", "pyomo"])
@pytest.mark.parametrize("variant", ["v1", "v4"])
def test_the_cli_solve_output_is_read_back_by_check(tmp_path: Path, backend: str, variant: str) -> None:
    from typer.testing import CliRunner

    from schedc.cli import app

    out = tmp_path / "answer.txt"
    runner = CliRunner()
    solved = runner.invoke(app, ["solve", str(EXAMPLE), "--backend", backend, "--variant", variant, "-o", str(out)])
    assert solved.exit_code == 0, solved.output
    text = out.read_text(encoding="utf-8")
    assert "room=" in text and "surgeon=" in text and "mode=" not in text
    checked = runner.invoke(app, ["check", str(EXAMPLE), str(out), "--variant", variant, "--json"])
    assert checked.exit_code == 0, checked.output
    assert json.loads(checked.output)["feasible"] is True


# ---------------------------------------------------------------------------- wrong combinations


def solved_answer() -> str:
    return schedc.solve(EXAMPLE, time_limit=10).answer


def test_a_surgeon_not_paired_with_the_room_is_rejected_at_its_column() -> None:
    """S3 allows (OR1, Hale) and (OR3, Okafor): OR1 with Okafor is no mode of S3."""
    lines = solved_answer().splitlines()
    index = next(i for i, line in enumerate(lines) if line.startswith("S3:"))
    start = modes_of(lines[index])["S3"][0]
    lines[index] = f"S3: start={start}, room=OR1, surgeon=Okafor"
    report = schedc.check(EXAMPLE, "\n".join(lines) + "\n")
    assert not report.feasible
    [issue] = [i for i in report.issues if i.kind == "out_of_domain"]
    column = lines[index].index("Okafor") + 1
    assert issue.line == index + 1
    assert issue.message == (f"S3 has no mode with room=OR1 and surgeon=Okafor (column {column}); expected surgeon "
                             "Hale; its modes: (room=OR1, surgeon=Hale), (room=OR3, surgeon=Okafor)")
    assert issue.counted and report.hard_violations == 1


def test_a_room_the_activity_never_uses_is_rejected_at_the_room() -> None:
    lines = solved_answer().splitlines()
    index = next(i for i, line in enumerate(lines) if line.startswith("S5:"))
    start = modes_of(lines[index])["S5"][0]
    lines[index] = f"S5: start={start}, room=OR2, surgeon=Moreau"
    [issue] = [i for i in schedc.check(EXAMPLE, "\n".join(lines) + "\n").issues if i.kind == "out_of_domain"]
    assert issue.message.startswith(f"S5 has no mode with room=OR2 (column {lines[index].index('OR2') + 1}); "
                                    "expected room one of OR1, OR3;")


def test_an_unknown_surgeon_is_an_unknown_entity() -> None:
    lines = solved_answer().splitlines()
    lines[0] = re.sub(r"surgeon=\w+", "surgeon=House", lines[0])
    [issue] = [i for i in schedc.check(EXAMPLE, "\n".join(lines) + "\n").issues if i.kind == "unknown_entity"]
    assert issue.line == 1 and issue.message.startswith("unknown surgeon 'House' (column ")
    assert issue.message.endswith("expected one of Hale, Moreau, Okafor")


def test_a_mode_number_line_is_not_read_for_a_spec_that_names_modes() -> None:
    numbered = re.sub(r"room=\w+, surgeon=\w+", "mode=1", solved_answer())
    report = schedc.check(EXAMPLE, numbered)
    assert not report.extracted and report.produced == 0
    assert "room=<room>, surgeon=<surgeon>" in (report.extraction_error or "")


def test_mode_numbers_stay_the_answer_of_families_that_do_not_opt_in() -> None:
    family = load_family("mrcpsp")
    assert AnswerFormat(family).roles == ()
    answer = schedc.solve(ROOT / "examples" / "mrcpsp_small.sched", time_limit=10).answer
    assert all(re.fullmatch(r"Activity \d+: start=\d+, mode=\d+", line) for line in answer.splitlines())


# ---------------------------------------------------------------------------- grammars


@pytest.fixture(scope="module")
def llguidance() -> LlguidanceMatcher:
    return LlguidanceMatcher()


@pytest.mark.parametrize("variant", ["v1", "v4"])
def test_the_grammars_accept_the_solver_answer_and_reject_a_mode_line(variant: str,
                                                                      llguidance: LlguidanceMatcher) -> None:
    instance = load_instance(EXAMPLE)
    family = load_family(instance.family)
    names = display_names(instance, family, variant, 42)
    answer = schedc.solve(EXAMPLE, time_limit=10, variant=variant, variant_seed=42).answer
    first = answer.splitlines()[0]
    numbered = answer.replace(first, re.sub(r"room=.*$", "mode=1", first))
    unknown = answer.replace(first, re.sub(r"surgeon=.*$", "surgeon=Nobody", first))
    lark = Lark(answer_grammar(instance, family, names, "lark"), parser="lalr")
    lark.parse(answer)
    for bad in (numbered, unknown):
        with pytest.raises(LarkError):
            lark.parse(bad)
    for form in ("lark", "gbnf"):
        compiled = llguidance.compile(form, answer_grammar(instance, family, names, form))
        assert llguidance.accepts(compiled, answer)
        assert not llguidance.accepts(compiled, numbered) and not llguidance.accepts(compiled, unknown)
    schema = llguidance.compile("json", json_schema(answer_spec(instance, family, names)))
    rows = [line.fields for line in extract(answer, AnswerFormat(family)).lines]
    structured = {"assignments": [{**row, "start": int(row["start"])} for row in rows]}
    assert llguidance.accepts(schema, json.dumps(structured))
    del structured["assignments"][0]["surgeon"]
    assert not llguidance.accepts(schema, json.dumps(structured))


def test_a_structured_answer_is_read_back_by_role() -> None:
    answer = solved_answer()
    rows = [line.fields for line in extract(answer, AnswerFormat(load_family("operating_room"))).lines]
    structured = {"assignments": [{**row, "start": int(row["start"])} for row in rows]}
    report = schedc.check(EXAMPLE, json.dumps(structured))
    assert report.feasible and report.objective == 225


# ---------------------------------------------------------------------------- the prompt


@pytest.mark.parametrize("variant", ["v1", "v2", "v3a", "v3b", "v4"])
def test_the_prompt_asks_for_the_room_and_the_surgeon(variant: str) -> None:
    text = schedc.render(EXAMPLE, variant=variant, seed=42).text
    assert "Each line names the room and the surgeon you choose for that surgery." in text
    assert "<surgery>: start=<start>, room=<room>, surgeon=<surgeon>" in text
    assert "the room and surgeon of a line must be one of the pairs listed for its surgery" in text
    assert "mode" not in text.split("Answer format")[1]
    assert "pairs of room and surgeon" in text  # the mode_choice rule sentence


def test_the_activities_are_listed_by_their_pairs() -> None:
    text = schedc.render(EXAMPLE, variant="v1").text
    assert "The 3 rooms are OR1, OR2 and OR3. The 3 surgeons are Hale, Moreau and Okafor." in text
    assert ("S3 can be performed in one of 2 ways: with room OR1 and surgeon Hale it takes 120 time units; with "
            "room OR3 and surgeon Okafor it takes 135 time units.") in text


# ---------------------------------------------------------------------------- the language


SURGERY = '''family surgery {
  structure interval
  objective makespan
  kinds [unary_no_overlap mode_choice]
  class room ()
  class surgeon ()
  answer "<activity>: start=<start>, room=<room>, surgeon=<surgeon>"
}
'''


def instance_text(rows: list[str], extra: str = "") -> str:
    return "\n".join(["instance t family surgery", "resources table", "  R1 unary", "  R2 unary", "  D1 unary",
                      "  N1 renewable 2", "end", "activities (R1 R2 D1 N1) table", *rows, "end",
                      "room () table", "  R1 R2", "end", "surgeon () table", "  D1" + extra, "end",
                      "hard unary_no_overlap u", "hard mode_choice m", "minimize makespan", ""])


def parse(tmp_path: Path, rows: list[str], extra: str = "") -> object:
    (tmp_path / "surgery.sched").write_text(SURGERY, encoding="utf-8")
    return parse_instance_text(instance_text(rows, extra), search=[tmp_path])


def test_modes_that_name_each_role_once_parse(tmp_path: Path) -> None:
    instance = parse(tmp_path, ["  S1 1 3 1 0 1 0", "  S1 2 4 0 1 1 1"])
    assert [m.duration for m in instance.activities[0].modes] == [3, 4]  # type: ignore[attr-defined]


@pytest.mark.parametrize(("rows", "extra", "message"), [
    (["  S1 1 3 0 0 1 0"], "", "activity S1 mode 1 uses 0 room resources (none); the answer names the one room"),
    (["  S1 1 3 1 1 1 0"], "", "activity S1 mode 1 uses 2 room resources (R1, R2)"),
    (["  S1 1 3 1 0 1 0", "  S1 2 5 1 0 1 0"], "", "activity S1 modes 1 and 2 both use room=R1, surgeon=D1: an answer "
                                                  "naming them could not tell them apart"),
    (["  S1 1 3 1 0 1 0"], " N1", "surgeon 'N1' is a renewable resource: the answer names each mode's surgeon"),
])
def test_modes_that_an_answer_could_not_name_are_refused(tmp_path: Path, rows: list[str], extra: str,
                                                         message: str) -> None:
    with pytest.raises(SchedcError) as caught:
        parse(tmp_path, rows, extra)
    assert [d.code for d in caught.value.diagnostics] == ["E214"]
    assert message in caught.value.diagnostics[0].message


@pytest.mark.parametrize(("answer", "message"), [
    ("<activity>: start=<start>, room=<room>, mode=<mode>", "names the mode by its resources (<room>) and by <mode>"),
    ("<activity>: start=<start>, theatre=<theatre>", "unknown answer placeholder <theatre>"),
])
def test_a_family_answer_line_with_a_bad_placeholder_is_refused(answer: str, message: str) -> None:
    text = SURGERY.replace('"<activity>: start=<start>, room=<room>, surgeon=<surgeon>"', f'"{answer}"')
    with pytest.raises(SchedcError) as caught:
        parse_family_text(text)
    assert [d.code for d in caught.value.diagnostics] == ["E124"]
    assert message in caught.value.diagnostics[0].message


def test_a_themed_answer_read_without_its_variant_gets_the_naming_hint() -> None:
    answer = schedc.solve(EXAMPLE, time_limit=10, variant="v4", variant_seed=42).answer
    report = schedc.check(EXAMPLE, answer)
    assert not report.feasible and report.naming_hint is not None and "--variant-seed 42" in report.naming_hint
    assert schedc.check(EXAMPLE, answer, variant="v4", seed=42).feasible


def test_the_naming_hint_reads_the_names_of_roles_too() -> None:
    from schedc.pipeline.hints import NamingHints

    instance = load_instance(EXAMPLE)
    written = NamingHints(instance, load_family(instance.family)).written("S3: start=0, room=OR1, surgeon=Hale\n")
    assert written == {"s3", "or1", "hale"}


def test_an_ir_past_the_semantic_pass_is_judged_without_a_traceback() -> None:
    """A program may build modes the semantic pass refuses (E214): S3 using no surgeon in any mode. An answer
    naming one is an out-of-domain value, not a crash."""
    import msgspec

    from schedc.ir import Mode, Use

    instance = load_instance(EXAMPLE)
    modes = (Mode(duration=120, uses=(Use(resource="OR1"),)), Mode(duration=135, uses=(Use(resource="OR3"),)))
    activities = tuple(msgspec.structs.replace(a, modes=modes) if a.name == "S3" else a for a in instance.activities)
    verifier = Verifier(msgspec.structs.replace(instance, activities=activities))
    report = verifier.check("S3: start=0, room=OR1, surgeon=Hale\n")
    [issue] = [i for i in report.issues if i.kind == "out_of_domain"]
    assert issue.message == "S3 has no mode that uses one room and one surgeon (column 19): no answer can name its mode"
