"""The language server for ``.sched`` (``schedc lsp``): its analysis as plain functions, and a whole
session over stdio with ``pytest-lsp`` (diagnostics as you type, hover, completion, definition,
formatting).

The analysis tests hold the editor's answers against the CLI's: the diagnostics of a text are the
diagnostics ``schedc parse`` prints for it (same codes, same lines), a hover on a kind is that
kind's documented formal meaning, a completed parameter is a field the kind has, a definition is
the row that declares the name, formatting is ``schedc fmt``. The session tests need the optional
extras (``pip install 'schedc[lsp]' pytest-lsp``) and skip, saying so, without them.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import msgspec
import pytest
from typer.testing import CliRunner

from schedc.cli import app
from schedc.editor import analysis
from schedc.editor.analysis import Position
from schedc.kinds import KINDS
from schedc.pipeline.files import format_text
from tests.conftest import ROOT

EXAMPLES = ROOT / "examples"
FT06 = (EXAMPLES / "ft06.sched").read_text(encoding="utf-8")
BROKEN = FT06.replace("J1.1 -> J1.2", "J1.1 -> J9.2").replace("J2.1 -> J2.2", "J2.1 -> J8.2")


def line_of(text: str, needle: str) -> int:
    """The 0-based line holding ``needle``."""
    return next(k for k, line in enumerate(text.splitlines()) if needle in line)


# ---------------------------------------------------------------------------- analysis


def test_diagnostics_are_the_clis_with_the_range_of_the_wrong_word(tmp_path: Path) -> None:
    spec = tmp_path / "ft06.sched"
    spec.write_text(BROKEN, encoding="utf-8")
    cli = CliRunner().invoke(app, ["parse", str(spec)])
    printed = re.findall(r":(\d+):(\d+): error\[(E\d+)\]", cli.stderr)
    problems, outline = analysis.diagnostics(BROKEN, str(spec), [EXAMPLES])
    assert outline is None and len(problems) == len(printed) == 2
    for problem, (line, _, code) in zip(problems, printed, strict=True):
        assert problem.code == code and problem.range.start.line == int(line) - 1
    words = [BROKEN.splitlines()[p.range.start.line][p.range.start.character:p.range.end.character] for p in problems]
    assert words == ["J9.2", "J8.2"]  # the undefined names themselves, not their rows
    assert analysis.diagnostics(FT06, str(spec), [EXAMPLES])[0] == []


def test_a_syntax_error_is_placed_on_its_token() -> None:
    text = FT06.replace("instance ft06 family jobshop", "instance ft06 family jobshop\nhorizon {")
    [problem] = analysis.diagnostics(text, "x.sched", [EXAMPLES])[0]
    assert problem.code == "E002" and problem.range.start == Position(2, 8)
    assert text.splitlines()[2][problem.range.start.character] == "{"


def test_hover_on_a_kind_shows_its_formal_meaning() -> None:
    _, outline = analysis.diagnostics(FT06, "ft06.sched", [EXAMPLES])
    line = line_of(FT06, "hard precedence_lag routes")
    text, where = analysis.hover(FT06, Position(line, 8), outline)
    assert where.start == Position(line, 5) and "**precedence_lag**" in text
    assert "Formal meaning" in text and "X_a + δ ≤ Y_b" in text  # the kind's own definition
    assert analysis.hover(FT06, Position(line, 1), outline)[0] == analysis.KEYWORDS["hard"]
    text, _ = analysis.hover(FT06, Position(line_of(FT06, "  M3 unary"), 3), outline)
    assert text.startswith("`M3`: unary resource, declared on line")


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_every_kind_has_a_hover_with_its_meaning(kind: str) -> None:
    """The hover is the kind's documentation, where its meaning is stated: the class docstring, and the
    module's when the class refers to it (or does not state a formal meaning itself)."""
    import inspect

    cls = KINDS[kind]
    doc = analysis.kind_doc(kind)
    own = inspect.getdoc(cls)
    assert doc.startswith(f"**{kind}**") and own in doc
    if "module docstring" in own:
        assert inspect.getdoc(sys.modules[cls.__module__]) in doc


def test_completion_offers_keywords_kinds_parameters_and_names() -> None:
    _, outline = analysis.diagnostics(FT06, "ft06.sched", [EXAMPLES])
    assert [c.label for c in analysis.completions("mi", Position(0, 2), outline)] == list(
        analysis.STATEMENT_KEYWORDS)
    kinds = analysis.completions("hard ", Position(0, 5), outline)
    assert {c.label for c in kinds} == set(KINDS) and {c.sort for c in kinds} == {"kind"}
    assert [c.label for c in analysis.completions("soft 3 coun", Position(0, 11), outline)] == sorted(KINDS)
    fields = {f.name for f in msgspec.structs.fields(KINDS["count_bounds"])}
    params = analysis.completions("hard count_bounds c min=2 ", Position(0, 26), outline)
    assert {c.label for c in params} == {"agents=", "values=", "min=", "max="}
    assert {c.label[:-1] for c in params} <= fields
    names = {c.label for c in analysis.completions("  J1.1 -> ", Position(0, 10), outline)}
    assert {"M1", "J1", "J1.1", "J6.6", "routes", "machines"} <= names


def test_definition_goes_to_the_declaring_row() -> None:
    _, outline = analysis.diagnostics(FT06, "ft06.sched", [EXAMPLES])
    use = line_of(FT06, "J3.1 -> J3.2")
    target = analysis.definition(FT06, Position(use, 3), outline)  # on J3.1
    declared = FT06.splitlines()[target.start.line]
    assert declared.strip().startswith("J3 M3:5")  # J3's row declares its operations
    job = analysis.definition(FT06, Position(line_of(FT06, "  J3 M3:5"), 3), outline)
    assert job.start == Position(line_of(FT06, "  J3 M3:5"), 2)
    machine = analysis.definition(FT06, Position(line_of(FT06, "  J1 M3:1"), 6), outline)  # M3 in a job row
    assert FT06.splitlines()[machine.start.line].strip() == "M3 unary"
    assert analysis.definition(FT06, Position(0, 0), outline) is None


def test_formatting_is_schedc_fmt() -> None:
    messy = FT06.replace("  M1 unary", "      M1    unary")
    assert analysis.formatted(messy, "ft06.sched", [EXAMPLES]) == format_text(messy, "ft06.sched", [EXAMPLES]) \
        == FT06
    assert analysis.formatted(BROKEN, "ft06.sched", [EXAMPLES]) is None


def test_the_lsp_command_describes_itself() -> None:
    pytest.importorskip("pygls", reason="the optional extra pygls is not installed (pip install 'schedc[lsp]')")
    import json

    done = CliRunner().invoke(app, ["lsp", "--json"])
    assert done.exit_code == 0, done.output
    assert json.loads(done.stdout)["features"] == ["diagnostics", "hover", "completion", "definition", "formatting"]


def test_without_pygls_the_lsp_command_says_which_extra_to_install() -> None:
    import subprocess

    code = ("import sys; sys.modules['pygls'] = None; sys.modules['pygls.lsp'] = None\n"
            "from schedc.cli import main\nmain()\n")
    done = subprocess.run([sys.executable, "-c", code, "lsp"], capture_output=True, text=True, cwd=ROOT,
                          timeout=120, check=False)
    assert done.returncode == 2 and "E960" in done.stderr and "pip install 'schedc[lsp]'" in done.stderr
    assert "Traceback" not in done.stderr


def test_the_editor_package_knows_every_kind_and_keyword() -> None:
    """The VS Code grammar highlights every registered kind and keyword (a new kind must be added there)."""
    import json

    grammar = json.loads((ROOT / "editors" / "vscode" / "syntaxes" / "sched.tmLanguage.json").read_text())
    patterns = {p["name"]: p["match"] for p in grammar["repository"]["statement"]["patterns"]}
    kinds = re.fullmatch(r"\\b\((.*)\)\\b", patterns["entity.name.type.kind.sched"]).group(1).split("|")
    keywords = re.fullmatch(r"\\b\((.*)\)\\b", patterns["keyword.control.sched"]).group(1).split("|")
    assert sorted(kinds) == sorted(KINDS)
    assert set(keywords) | {"table", "end"} == set(analysis.KEYWORDS)
    for match in patterns.values():
        re.compile(match)  # the patterns are plain regular expressions
    manifest = json.loads((ROOT / "editors" / "vscode" / "package.json").read_text())
    assert manifest["contributes"]["languages"][0]["extensions"] == [".sched"]
    assert manifest["contributes"]["configuration"]["properties"]["sched.server.command"]["default"] == [
        "schedc", "lsp"]
