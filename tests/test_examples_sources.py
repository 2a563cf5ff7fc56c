"""The sample sources in ``examples/sources``: the documentation's import commands run as written.

Every fenced ``schedc import`` command of the README, ``docs/`` and ``examples/sources/README.md``
that names ``examples/sources`` is run through the CLI; together they must import every sample file,
and every value of every ``bks.csv`` (read here with the ``csv`` module, not the importer's reader)
must land in the ``meta`` block of its instance's ``.sched`` file. One small instance per family is
then solved and checked: the verifier's objective equals the solver's, and no answer beats a
published optimum.
"""

from __future__ import annotations

import csv
import glob
import json
import re
import shlex
from pathlib import Path

import pytest
from typer.testing import CliRunner

from schedc.cli import app
from schedc.lang.parser import parse_file
from tests.conftest import ROOT
from tests.sources import source_files

SAMPLE = ROOT / "examples" / "sources"
DOCS = [ROOT / "README.md", SAMPLE / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FAMILIES = ("jsplib", "fjsp", "psplib-sm", "psplib-mm", "itc2007", "inrc2010", "nsplib")
#: One small instance per family to solve, with the CLI's time limit (a cap: most prove optimality in < 1 s).
SOLVED = {"jsplib": ("ft06", 10), "fjsp": ("mk01", 10), "psplib-sm": ("j301_1", 10), "psplib-mm": ("j102_2", 10),
          "itc2007": ("comp01", 1.5), "inrc2010": ("sprint01", 1.5), "nsplib": ("n25_1_case1", 10)}
#: Budget-bound timetabling solves (the interpreter's first annealing and MILP probe: about 5 s on a loaded machine).
SLOW = {"itc2007", "inrc2010"}
runner = CliRunner()


def doc_commands() -> list[tuple[str, list[str]]]:
    """(``doc:line``, the words after ``schedc``) of every fenced ``schedc import`` of examples/sources."""
    found = []
    for doc in DOCS:
        fenced = False
        for number, line in enumerate(doc.read_text(encoding="utf-8").splitlines(), start=1):
            if line.lstrip().startswith("```"):
                fenced = not fenced
                continue
            for part in line.split("&&") if fenced and "schedc import" in line else ():
                words = shlex.split(part, comments=True)
                if words and Path(words[0]).name == "schedc" and words[1:2] == ["import"] \
                        and any(w.startswith("examples/sources/") for w in words):
                    found.append((f"{doc.relative_to(ROOT)}:{number}", words[1:]))
    return found


COMMANDS = doc_commands()


def expand(words: list[str], out: Path) -> list[str]:
    """Shell globbing relative to the repository root, and ``-o DIR`` moved under ``out``."""
    argv: list[str] = []
    for previous, word in zip(["", *words], words, strict=False):
        if previous in ("-o", "--out"):
            argv.append(str(out / word))
        elif any(c in word for c in "*?["):
            matches = sorted(glob.glob(word, root_dir=ROOT))
            assert matches, f"{word} matches no file"
            argv += [str(ROOT / m) for m in matches]
        elif word.startswith("examples/"):
            argv.append(str(ROOT / word))
        else:
            argv.append(word)
    return argv


def bks_rows(path: Path) -> dict[str, dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as handle:
        return {row["instance"]: row for row in csv.DictReader(handle)}


def _int(cell: str) -> int | None:
    return int(cell) if cell else None


@pytest.fixture(scope="module")
def imports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[int, str, list[Path]]]:
    """Every documented command run once through the CLI: ``doc:line`` → (exit code, output, written)."""
    out = tmp_path_factory.mktemp("sources")
    results = {}
    for number, (where, words) in enumerate(COMMANDS):
        result = runner.invoke(app, [*expand(words, out / str(number)), "--json"])
        written = [Path(p) for p in json.loads(result.stdout)["written"]] if result.exit_code == 0 else []
        results[where] = (result.exit_code, result.output, written)
    return results


def test_the_docs_import_every_sample_file_of_every_family() -> None:
    assert len(COMMANDS) >= len(FAMILIES)
    named: set[Path] = set()
    for _, words in COMMANDS:
        argv = expand(words, Path("out"))
        named |= {Path(p) for option, p in zip(["", *argv], argv, strict=False)
                  if option != "--bks" and Path(p).is_file()}
    expected = {p for _, path, cases in source_files(SAMPLE) for p in (path, *cases)}
    assert {p.relative_to(SAMPLE) for p in expected - named} == set()
    assert {p.relative_to(ROOT) for p in named - expected} == set()
    assert {p.relative_to(SAMPLE).parts[0] for p in expected} == set(FAMILIES)


@pytest.mark.parametrize("where,words", COMMANDS, ids=[where for where, _ in COMMANDS])
def test_a_documented_import_writes_the_bks_values_into_the_meta(
        where: str, words: list[str], imports: dict[str, tuple[int, str, list[Path]]]) -> None:
    exit_code, output, written = imports[where]
    assert exit_code == 0 and written, output
    rows = bks_rows(ROOT / words[words.index("--bks") + 1])
    for path in written:
        meta = parse_file(path).meta
        row = rows[path.stem]  # a sample without a row in its table is a naming mismatch
        assert (meta.bks, meta.bks_kind, meta.lower_bound, meta.difficulty, meta.bks_source) == \
            (_int(row["bks"]), row["kind"] or None, _int(row["lower_bound"]), row["difficulty"] or None,
             row["source"] or None), path.name


def test_every_row_of_every_bks_table_names_a_sample_instance(
        imports: dict[str, tuple[int, str, list[Path]]]) -> None:
    imported: dict[str, set[str]] = {}
    for where, words in COMMANDS:
        table = words[words.index("--bks") + 1]
        imported.setdefault(table, set()).update(p.stem for p in imports[where][2])
    tables = {str(p.relative_to(ROOT)) for p in SAMPLE.glob("*/bks.csv")}
    assert set(imported) == tables
    for table in sorted(tables):
        assert set(bks_rows(ROOT / table)) == imported[table], table


@pytest.mark.parametrize("family", [pytest.param(f, marks=[pytest.mark.slow] if f in SLOW else []) for f in FAMILIES])
def test_one_sample_per_family_solves_and_verifies_against_its_published_value(
        family: str, imports: dict[str, tuple[int, str, list[Path]]], tmp_path: Path) -> None:
    name, time_limit = SOLVED[family]
    spec = next(p for _, _, written in imports.values() for p in written if p.stem == name)
    answer = tmp_path / "answer.txt"
    solved = runner.invoke(app, ["solve", str(spec), "--time-limit", str(time_limit), "--json", "-o", str(answer)])
    assert solved.exit_code == 0, solved.output
    result = json.loads(solved.stdout)
    checked = runner.invoke(app, ["check", str(spec), str(answer), "--json"])
    assert checked.exit_code == 0, checked.output
    report = json.loads(checked.stdout)
    assert (report["feasible"], report["hard_violations"], report["coverage"]) == (True, 0, 1.0)
    assert report["objective"] == result["objective"]
    meta = parse_file(spec).meta
    assert report["bks"] == meta.bks
    if meta.bks is not None:
        assert report["gap_pct"] == pytest.approx((report["objective"] - meta.bks) / meta.bks * 100)
    if meta.bks_kind == "optimal":
        assert report["objective"] >= meta.bks  # nothing beats a proven optimum
        if result["status"] == "optimal":
            assert report["objective"] == meta.bks


def test_the_sample_readme_names_every_file_it_describes() -> None:
    text = (SAMPLE / "README.md").read_text(encoding="utf-8")
    files = [p for p in SAMPLE.rglob("*") if p.is_file() and p.name != "README.md"]
    assert [str(p.relative_to(SAMPLE)) for p in files if p.name not in text] == []
    cited = set(re.findall(r"LICENSES/[\w.-]+\.txt", text))
    assert cited and {c for c in cited if not (SAMPLE / c).is_file()} == set()
