"""The semantic pass rejects what a kind's annotations forbid, and repeated rows of keyed tables.

Minimums come from the field annotations (``NonNegative``, ``Positive``) and keys from the row
structs' ``KEY``, so the tests below walk every constraint of every example instance rather than
naming kinds: each annotated field set one below its minimum, and each keyed table with its first
row repeated, must give exactly the error that says so. Before these checks, a repeated row of a
dense ``assignment_cost`` table was counted twice, and ``min_days -1`` of an ITC course was accepted.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
import pytest

from schedc.core.diagnostics import SchedcError
from schedc.kinds import AttrRef
from schedc.lang.family import load_family
from schedc.lang.kind_checks import field_minimums
from schedc.lang.load import load_instance
from schedc.lang.parser import parse_file, parse_instance_text
from schedc.lang.semantic import check_instance
from tests.test_extraction import ALL_EXAMPLES, EXAMPLES

SPECS = Path(__file__).resolve().parent.parent / "specs"


def errors(text: str, tmp_path: Path, name: str = "x.sched") -> list[str]:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    try:
        parse_file(path, [EXAMPLES])
    except SchedcError as exc:
        return [f"{d.span.line if d.span else '-'} {d.code} {d.message}" for d in exc.diagnostics]
    return []


def example_text(example: str) -> str:
    return (EXAMPLES / f"{example}.sched").read_text(encoding="utf-8")


def edited_example(example: str, old: str, new: str) -> str:
    """The example with ``old`` replaced by ``new`` (which must be there: an edit that misses proves nothing)."""
    text = example_text(example)
    assert old in text, f"{example}: {old!r} not found"
    return text.replace(old, new)


# ---------------------------------------------------------------------------- regressions


def test_a_repeated_dense_cost_row_is_one_error_at_the_repeat(tmp_path: Path) -> None:
    text = example_text("nsplib_small")
    row = "  N2 3 1 2 3 1 2 3 1 2 2 2 2 3 1 2 4 4 1 4 4 1\n"
    assert row in text
    assert errors(text.replace(row, row + row), tmp_path) == [
        "30 E201 preferences: table entry 43 (agent=N2 day=0 value=S1 cost=3 when=assigned) repeats entry 22 "
        "at line 29 (the same agent, day, value, when); 21 repeated entries in all"]


def test_a_negative_attribute_read_as_a_count_is_an_error_on_its_row(tmp_path: Path) -> None:
    text = edited_example("itc2007_small", "  Bio t3 2 1 35", "  Bio t3 2 -1 35")
    assert errors(text, tmp_path) == [
        "11 E203 min_working_days: min=@min_days must be at least 0, but course Bio has min_days -1"]


def test_a_negative_attribute_not_read_as_a_count_is_fine(tmp_path: Path) -> None:
    """``students`` of a course is a demand, not a bound of a count kind: no annotation, no error."""
    text = edited_example("itc2007_small", "  Bio t3 2 1 35", "  Bio t3 2 1 -35")
    assert errors(text, tmp_path) == []


def test_a_repeated_unavailability_row(tmp_path: Path) -> None:
    text = edited_example("itc2007_small", "  Math 0 0\n", "  Math 0 0\n  Math 0 0\n")
    [message] = errors(text, tmp_path)
    assert message.startswith("26 E201 availability: table entry 2 (agent=Math day=0 period=0) repeats entry 1 "
                              "at line 25")


@pytest.mark.parametrize("example", ["ft06", "itc2007_small"])
def test_a_spec_may_start_with_a_byte_order_mark(example: str, tmp_path: Path) -> None:
    path = tmp_path / f"{example}.sched"
    path.write_text("\ufeff" + example_text(example), encoding="utf-8")
    assert parse_file(path, [EXAMPLES]) == parse_file(EXAMPLES / f"{example}.sched")


def test_a_family_spec_may_start_with_a_byte_order_mark(tmp_path: Path) -> None:
    path = tmp_path / "jobshop.sched"
    path.write_text("\ufeff" + (SPECS / "jobshop.sched").read_text(encoding="utf-8"), encoding="utf-8")
    assert parse_file(path) == parse_file(SPECS / "jobshop.sched")


# ---------------------------------------------------------------------------- every annotated field


def _constraints() -> list[tuple[str, int]]:
    return [(example, k) for example in ALL_EXAMPLES for k in range(len(load_instance(EXAMPLES / f"{example}.sched")
                                                                        .constraints))]


def _check(example: str, constraints: list[Any]) -> list[tuple[str, str]]:
    instance = load_instance(EXAMPLES / f"{example}.sched")
    changed = msgspec.structs.replace(instance, constraints=tuple(constraints))
    try:
        check_instance(changed, load_family(instance.family, [EXAMPLES]))
    except SchedcError as exc:
        return [(d.code, d.message) for d in exc.diagnostics]
    return []


@pytest.mark.parametrize(("example", "index"), _constraints())
def test_every_annotated_minimum_is_enforced(example: str, index: int) -> None:
    constraints = list(load_instance(EXAMPLES / f"{example}.sched").constraints)
    c = constraints[index]
    for name, low in field_minimums(type(c)):
        if isinstance(getattr(c, name), AttrRef):
            continue
        constraints[index] = msgspec.structs.replace(c, **{name: low - 1})
        found = _check(example, constraints)
        assert ("E203", f"{c.id}: {name} must be at least {low}, found {low - 1}") in found
        assert {code for code, _ in found} <= {"E203", "E210"}  # E210: min > max, when the maximum became -1
    rows = getattr(c, c.TABLE_FIELD) if c.TABLE_FIELD else ()
    for name, low in field_minimums(type(rows[0])) if rows else ():
        if getattr(rows[0], name) is None:
            continue
        constraints[index] = msgspec.structs.replace(c, **{c.TABLE_FIELD: (
            msgspec.structs.replace(rows[0], **{name: low - 1}), *rows[1:])})
        found = _check(example, constraints)
        assert any(code == "E203" and message.startswith(f"{c.id}: {name} must be at least {low}, found {low - 1}")
                   for code, message in found), found
        assert {code for code, _ in found} <= {"E203", "E210"}, found


@pytest.mark.parametrize(("example", "index"), _constraints())
def test_every_keyed_table_refuses_a_repeated_row(example: str, index: int) -> None:
    constraints = list(load_instance(EXAMPLES / f"{example}.sched").constraints)
    c = constraints[index]
    rows = getattr(c, c.TABLE_FIELD) if c.TABLE_FIELD else ()
    if not rows or not getattr(type(rows[0]), "KEY", None):
        return
    constraints[index] = msgspec.structs.replace(c, **{c.TABLE_FIELD: (*rows, rows[0])})
    [(code, message)] = _check(example, constraints)
    assert code == "E201" and f"table entry {len(rows) + 1} " in message and "repeats entry 1 " in message


def test_the_walk_meets_annotations_and_keys() -> None:
    """The two tests above are not vacuous: the examples hold annotated fields and keyed tables."""
    kinds_with_minimums, keyed = set(), set()
    for example, index in _constraints():
        c = load_instance(EXAMPLES / f"{example}.sched").constraints[index]
        if any(not isinstance(getattr(c, n), AttrRef) for n, _ in field_minimums(type(c))):
            kinds_with_minimums.add(type(c).__name__)
        rows = getattr(c, c.TABLE_FIELD) if c.TABLE_FIELD else ()
        if rows and getattr(type(rows[0]), "KEY", None):
            keyed.add(type(c).__name__)
    assert {"Stability", "ConsecutiveRunBounds", "CountBounds"} <= kinds_with_minimums
    assert {"AssignmentCost", "Coverage", "Unavailability", "PrecedenceLag"} <= keyed


def test_json_decoding_enforces_the_annotations() -> None:
    from schedc.ir import from_json, to_json

    instance = load_instance(EXAMPLES / "ft06.sched")
    data = to_json(instance).replace(b'"weight":1', b'"weight":-1', 1)
    with pytest.raises(msgspec.ValidationError, match="Expected `int` >= 0"):
        from_json(data)


def test_parse_instance_text_accepts_a_bom() -> None:
    text = "\ufeff" + example_text("ft06")
    assert parse_instance_text(text, search=[EXAMPLES]) == parse_instance_text(text[1:], search=[EXAMPLES])
