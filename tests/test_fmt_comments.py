"""``schedc fmt`` keeps comments: full-line and trailing ones, beside what they were written on.

Before, every comment of a hand-written spec was dropped. Now, for every example, every family
spec and any text with comments inserted at random lines: all comments survive, the IR is the
same as without them, and formatting twice gives the same text.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from schedc.cli import app
from schedc.ir import equal_ignoring_spans
from schedc.lang.comments import split_comments
from schedc.lang.parser import parse_file, parse_instance_text
from schedc.pipeline.files import format_text
from tests.conftest import ROOT
from tests.test_extraction import ALL_EXAMPLES

EXAMPLES = ROOT / "examples"
SPECS = sorted((ROOT / "specs").glob("*.sched"))


def comments(text: str) -> Counter[str]:
    return Counter(c.strip() for _code, c in split_comments(text) if c)


def fmt(text: str) -> str:
    return format_text(text, "x.sched", [EXAMPLES])


def same_ir(a: str, b: str) -> bool:
    return equal_ignoring_spans(parse_instance_text(a, search=[EXAMPLES]), parse_instance_text(b, search=[EXAMPLES]))


@pytest.mark.parametrize("example", ALL_EXAMPLES + ("dfjsp_small",))
def test_examples_keep_their_comments(example: str) -> None:
    text = (EXAMPLES / f"{example}.sched").read_text(encoding="utf-8")
    assert comments(text)
    once = fmt(text)
    assert comments(once) == comments(text)
    assert fmt(once) == once
    assert same_ir(once, text)


@pytest.mark.parametrize("example", sorted(p.stem for p in EXAMPLES.glob("*.sched")))
def test_bundled_examples_are_canonical(example: str) -> None:
    """What users copy from is what ``schedc fmt`` writes (``schedc fmt --check examples/*.sched`` passes)."""
    text = (EXAMPLES / f"{example}.sched").read_text(encoding="utf-8")
    assert fmt(text) == text


@pytest.mark.parametrize("spec", SPECS, ids=[p.stem for p in SPECS])
def test_family_specs_keep_their_comments(spec: Path) -> None:
    text = spec.read_text(encoding="utf-8")
    once = fmt(text)
    assert comments(once) == comments(text) and fmt(once) == once


def test_comments_stay_beside_their_statement_and_row() -> None:
    text = """# file header
instance x family rcpsp
resources table   # name kind capacity
  R1 renewable 4
  # the second resource
  R2   renewable   2   # a trailing remark
end
activities (R1 R2) table
  A1 1 3 2 1
end
# why modes
hard mode_choice modes
hard cumulative_renewable renewable
minimize makespan  # the end
# the very last line
"""
    assert fmt(text) == """# file header
instance x family rcpsp
resources table  # name kind capacity
  R1 renewable 4
  # the second resource
  R2 renewable 2  # a trailing remark
end
activities (R1 R2) table
  A1 1 3 2 1
end
# why modes
hard mode_choice modes
hard cumulative_renewable renewable
minimize makespan  # the end
# the very last line
"""


def test_a_row_printed_differently_keeps_its_comment_before_the_statement() -> None:
    """Two edges from A1 are printed as one fan-out row: their comments go before the table."""
    text = "instance x family rcpsp\nresources table\n  R1 renewable 4\nend\nactivities (R1) table\n" \
           "  A1 1 3 2\n  A2 1 1 1\n  A3 1 1 1\nend\nhard precedence_lag p table\n  A1 -> A2   # first\n" \
           "  A1 -> A3   # second\nend\nhard cumulative_renewable renewable\nhard mode_choice modes\n" \
           "minimize makespan\n"
    once = fmt(text)
    assert "end\n# first\n# second\nhard precedence_lag p table\n  A1 -> A2 A3\nend\n" in once
    assert fmt(once) == once


def test_a_hash_in_a_string_is_not_a_comment() -> None:
    text = (EXAMPLES / "itc2007_small.sched").read_text(encoding="utf-8").replace(
        'source "hand-written example"', 'source "example #3"  # real comment')
    once = fmt(text)
    assert 'source "example #3"  # real comment' in once
    assert comments(once) == comments(text)


def _insert_comments(text: str, spots: list[tuple[int, bool, str]]) -> str:
    lines = text.rstrip("\n").split("\n")
    for index, trailing, words in spots:
        k = index % (len(lines) + 1)
        if trailing and k < len(lines) and lines[k].strip():
            lines[k] += f"  # {words}"
        else:
            lines.insert(k, f"# {words}")
    return "\n".join(lines) + "\n"


WORDS = st.text(st.characters(codec="utf-8", exclude_categories=("Cc", "Cs", "Zl", "Zp")), max_size=12).map(
    lambda s: s.strip() or "note")


@pytest.mark.parametrize("example", ALL_EXAMPLES)
@settings(deadline=None, max_examples=40, suppress_health_check=[HealthCheck.too_slow])
@given(spots=st.lists(st.tuples(st.integers(0, 200), st.booleans(), WORDS), min_size=1, max_size=8))
def test_comments_anywhere_survive_and_fmt_is_idempotent(example: str, spots: list[tuple[int, bool, str]]) -> None:
    base = fmt((EXAMPLES / f"{example}.sched").read_text(encoding="utf-8"))
    text = _insert_comments(base, spots)
    once = fmt(text)
    assert comments(once) == comments(text)
    assert fmt(once) == once
    assert same_ir(once, base)


def test_fmt_check_accepts_a_formatted_commented_file(tmp_path: Path) -> None:
    path = tmp_path / "itc2007_small.sched"
    path.write_text((EXAMPLES / "itc2007_small.sched").read_text(encoding="utf-8"), encoding="utf-8")
    runner = CliRunner()
    assert runner.invoke(app, ["fmt", str(path)]).exit_code == 0
    assert runner.invoke(app, ["fmt", "--check", str(path)]).exit_code == 0
    assert "# a comma-separated list of courses" in path.read_text(encoding="utf-8")
    assert parse_file(path) is not None
