"""Property tests of the parser and the printer on mutated and arbitrary texts.

Whatever the input, :func:`schedc.lang.parser.parse_instance_text` either returns an instance or
raises :class:`SchedcError` — never another exception. Every mutant that parses is printed,
and the printed text must parse again and be a fixed point of the printer.

The valid seed texts are the ft06 example and canonical texts imported from source files found
by name in the shared data set (``../shared/data/<format>/...``), else in the bundled subset
(``tests/data/<format>/...``); a seed whose source is in neither place is skipped.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from schedc.core.diagnostics import SchedcError
from schedc.importers import import_paths
from schedc.kinds import KINDS
from schedc.lang.parser import parse_instance_text
from schedc.lang.printer import print_instance
from tests.conftest import DATA, ROOT, SHARED

# seed name -> (format, source file, nsplib case file), each found by name under <root>/<format folder>
SOURCES = {
    "comp01": ("itc2007", "comp01.ctt", None),
    "sprint01": ("inrc2010", "sprint01.xml", None),
    "n25": ("nsplib", "1.nsp", "1.gen"),
    "mm": ("psplib-mm", "j102_2.mm", None),
}
SEEDS = ["ft06", *SOURCES]

ALPHABET = "0123456789" + "abdehnstxAJMSZ_" + '=[](){}@#"-:>.,*\\' + "\n \t"

FUZZ = settings(deadline=None, max_examples=250, suppress_health_check=[HealthCheck.too_slow])


def _find(root: Path, folder: str, name: str) -> Path | None:
    return next(iter(sorted((root / folder).rglob(name))), None) if (root / folder).is_dir() else None


def _import_seed(name: str) -> str | None:
    fmt, file, case = SOURCES[name]
    for root in (SHARED, DATA):
        path = _find(root, fmt, file)
        case_path = _find(root, fmt, case) if case else None
        if path is not None and (case is None or case_path is not None):
            instance = import_paths(fmt, [path], cases=[case_path] if case_path else [])[0]
            return print_instance(instance)
    return None


@pytest.fixture(scope="module")
def seeds() -> dict[str, str]:
    """The valid seed texts that are available (name -> canonical text)."""
    texts = {"ft06": (ROOT / "examples" / "ft06.sched").read_text(encoding="utf-8")}
    for name in SOURCES:
        text = _import_seed(name)
        if text is not None:
            texts[name] = text
    return texts


def _seed(seeds: dict[str, str], name: str) -> str:
    if name not in seeds:
        pytest.skip(f"source of seed {name} not available")
    return seeds[name]


def _check(text: str) -> None:
    """Parse ``text``: SchedcError is the only allowed failure; a parsed text must print stably."""
    try:
        instance = parse_instance_text(text, file="fuzz.sched")
    except SchedcError:
        return
    printed = print_instance(instance)
    try:
        again = parse_instance_text(printed, file="printed.sched")
    except SchedcError as exc:  # pragma: no cover - a failure report
        raise AssertionError(f"printer output does not re-parse:\n{exc}\n--- printed text:\n{printed}") from exc
    assert print_instance(again) == printed


# ------------------------------------------------------------------------------ strategies

CHAR_EDIT = st.tuples(st.sampled_from(["insert", "delete", "replace"]), st.integers(min_value=0),
                      st.sampled_from(ALPHABET))
LINE_EDIT = st.tuples(st.sampled_from(["delete", "duplicate", "swap"]), st.integers(min_value=0),
                      st.integers(min_value=0))


# Words of the language, to replace whole tokens of a seed (reaches the builders and the semantic pass)
VOCABULARY = sorted(KINDS) + [
    "0", "1", "-1", "7", "99999999999", "x", "A1", "J1.1", "M1", "R1", "N1", "S1", "Off", "E", "L", "0", "c0001",
    "table", "end", "hard", "soft", "inactive", '"why"', "minimize", "makespan", "penalty", "horizon", "calendar",
    "@lectures", "@min_days", "@x", "[a b]", "[]", "[E L]", "employee[contract=0]", "employee[]",
    "nurse[N1,N2]", "course[a=b,c]", "weekends(SaturdaySunday)", "weekends()", "weekends(Foo)", "days", "work",
    "free", "min=1", "max=0", "min=@lectures", "values=[E L]", "values=free", "per=value", "exactly=true",
    "layout=dense", "layout=sparse", "complete=true", "anchor=Friday", "pattern=[]", "pattern=[free work]",
    "cost=table", "cost=mixed_values", "windows=days", "over=weekends(SaturdaySunday)", "groups=curriculum",
    "by=teacher", "agents=course", "resources=all", "resources=[R1]", "->", "->+3", "1..", "..2", "E=2",
    "E=3..1", "X=1", "*", "!E", "W", "WF", '"a b"', '""', "#", "-", "days=0", "days=3", "start_weekday=Sunday",
]
TOKEN_EDIT = st.tuples(st.integers(min_value=0), st.sampled_from(VOCABULARY))


def apply_token_edits(text: str, edits: list[tuple[int, str]]) -> str:
    """Replace whole blank-separated tokens of ``text`` by words of the language."""
    parts = re.split(r"(\s+)", text)
    words = [i for i, part in enumerate(parts) if part and not part.isspace()]
    for index, word in edits:
        parts[words[index % len(words)]] = word
    return "".join(parts)


def apply_char_edits(text: str, edits: list[tuple[str, int, str]]) -> str:
    for op, position, char in edits:
        pos = position % (len(text) + 1)
        if op == "insert":
            text = text[:pos] + char + text[pos:]
        elif op == "delete":
            text = text[:pos] + text[pos + 1:]
        else:
            text = text[:pos] + char + text[pos + 1:]
    return text


def apply_line_edits(text: str, edits: list[tuple[str, int, int]]) -> str:
    lines = text.split("\n")
    for op, a, b in edits:
        if not lines:
            break
        i, j = a % len(lines), b % len(lines)
        if op == "delete":
            del lines[i]
        elif op == "duplicate":
            lines.insert(i, lines[i])
        else:
            lines[i], lines[j] = lines[j], lines[i]
    return "\n".join(lines)


def test_edit_helpers() -> None:
    assert apply_char_edits("abc", [("insert", 1, "x"), ("delete", 0, "?"), ("replace", 5, "z")]) == "xzc"
    assert apply_line_edits("a\nb\nc", [("swap", 0, 2), ("duplicate", 1, 0), ("delete", 5, 0)]) == "c\nb\na"


# ------------------------------------------------------------------------------ properties


@pytest.mark.parametrize("name", SEEDS)
def test_seed_is_a_fixed_point(seeds: dict[str, str], name: str) -> None:
    text = _seed(seeds, name)
    if name != "ft06":  # the example has comments; the imported seeds are canonical
        assert print_instance(parse_instance_text(text)) == text
    _check(text)


@pytest.mark.parametrize("name", SEEDS)
@FUZZ
@given(edits=st.lists(CHAR_EDIT, min_size=1, max_size=4))
def test_character_edits(seeds: dict[str, str], name: str, edits: list[tuple[str, int, str]]) -> None:
    _check(apply_char_edits(_seed(seeds, name), edits))


@pytest.mark.parametrize("name", SEEDS)
@settings(FUZZ, max_examples=150)
@given(edits=st.lists(LINE_EDIT, min_size=1, max_size=3))
def test_line_edits(seeds: dict[str, str], name: str, edits: list[tuple[str, int, int]]) -> None:
    _check(apply_line_edits(_seed(seeds, name), edits))


@pytest.mark.parametrize("name", SEEDS)
@settings(FUZZ, max_examples=200)
@given(edits=st.lists(TOKEN_EDIT, min_size=1, max_size=3))
def test_token_edits(seeds: dict[str, str], name: str, edits: list[tuple[int, str]]) -> None:
    _check(apply_token_edits(_seed(seeds, name), edits))


@settings(FUZZ, max_examples=500)
@given(text=st.text())
def test_arbitrary_text(text: str) -> None:
    _check(text)


@settings(FUZZ, max_examples=400)
@given(family=st.sampled_from(["jobshop", "rcpsp", "mrcpsp", "nsplib", "inrc2010", "itc2007", "fjsp"]),
       body=st.text(alphabet=st.sampled_from(ALPHABET + "ekmtu"), max_size=200))
def test_arbitrary_body_after_header(family: str, body: str) -> None:
    _check(f"instance x family {family}\n{body}")


@settings(FUZZ, max_examples=200)
@given(text=st.text())
def test_arbitrary_table_rows(text: str) -> None:
    """Arbitrary rows inside a table block reach the row readers (not only the lexer)."""
    rows = text.replace("\r", "\n")
    _check(f"instance x family rcpsp\nresources table\n{rows}\nend\nminimize makespan\n")
    _check(f"instance x family nsplib\ncalendar days=3\nshift () table\n{rows}\nend\nminimize penalty\n")


@settings(FUZZ, max_examples=100)
@given(source=st.text())
@example(source="\u00e9")
@example(source="a\nb")
def test_meta_strings_round_trip(source: str) -> None:
    """Any meta string written as a long string prints back to a text that parses to the same value."""
    if '"""' in source:
        source = source.replace('"', "'")
    text = f'instance x family jobshop\nmeta {{\n  source """{source}"""\n}}\nminimize makespan\n'
    try:
        instance = parse_instance_text(text)
    except SchedcError:
        return
    printed = print_instance(instance)
    assert parse_instance_text(printed).meta.source == instance.meta.source
    _check(text)


@pytest.mark.parametrize("cell", ['""', '"x y"', '"0\f"'])
def test_names_cell_round_trip(cell: str) -> None:
    _check("instance x family inrc2010\ncalendar days=3\nshift (start end skills description) table\n"
           f"  E a b {cell} d\nend\nminimize penalty\n")


def test_seed_sources_are_where_expected() -> None:
    """The seed files exist in the shared data set (a rename there must not silently skip the fuzzing)."""
    if not SHARED.exists():
        pytest.skip("shared data not available")
    missing = [file for fmt, file, case in SOURCES.values() for file in (file, case)
               if file and _find(SHARED, fmt, file) is None]
    assert missing == [], f"seed sources missing under {SHARED}: {missing}"
