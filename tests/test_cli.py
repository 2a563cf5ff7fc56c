"""The command line: each command, exit codes, and no traceback on bad input."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from schedc.cli import app
from schedc.lang.load import load_instance
from schedc.render import render
from tests.conftest import DATA, ROOT

runner = CliRunner()


def run(*args: str):
    return runner.invoke(app, [str(a) for a in args])


def test_import_writes_canonical_files(tmp_path: Path) -> None:
    result = run("import", "jsplib", DATA / "jsplib" / "ft06.txt", DATA / "jsplib" / "la01.txt",
                 "-o", tmp_path, "--bks", DATA / "jsplib" / "bks.csv")
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ft06.sched", "la01.sched"]
    assert run("fmt", "--check", tmp_path / "ft06.sched").exit_code == 0


def test_import_nsplib_pairs(tmp_path: Path) -> None:
    cases = DATA / "nsplib" / "Cases"
    result = run("import", "nsplib", DATA / "nsplib" / "N25" / "1.nsp", "--case", cases / "1.gen",
                 "--case", cases / "2.gen", "-o", tmp_path)
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["n25_1_case1.sched", "n25_1_case2.sched"]


def test_info_reports_sizes_kinds_and_bks(tmp_path: Path) -> None:
    run("import", "psplib-sm", DATA / "psplib-sm" / "j301_1.sm", "-o", tmp_path,
        "--bks", DATA / "psplib-sm" / "bks.csv")
    result = run("info", tmp_path / "j301_1.sched", "--json")
    assert result.exit_code == 0, result.output
    info = json.loads(result.output)
    assert info["family"] == "rcpsp" and info["sizes"]["activities"] == 30 and info["sizes"]["resources"] == 4
    assert info["constraints"] == {"cumulative_renewable": 1, "mode_choice": 1, "precedence_lag": 1}
    assert info["meta"]["bks"] == 43 and info["meta"]["bks_kind"] == "optimal"


def test_parse_json_round_trips(tmp_path: Path) -> None:
    from schedc.ir import from_json

    result = run("parse", ROOT / "examples" / "itc2007_small.sched", "--json")
    assert result.exit_code == 0, result.output
    instance = from_json(result.output)
    assert instance.name == "itc2007_small" and len(instance.constraints) == 9


def test_fmt_rewrites_and_check_fails_on_unformatted(tmp_path: Path) -> None:
    target = tmp_path / "rcpsp_small.sched"
    canonical = (ROOT / "examples" / "rcpsp_small.sched").read_text()
    target.write_text(canonical.replace("\nend\n", "\n  end  \n").replace(" table", "   table"))
    assert run("fmt", "--check", target).exit_code == 1
    assert run("fmt", target).exit_code == 0
    assert target.read_text() == canonical
    assert run("fmt", "--check", target).exit_code == 0


def test_bad_spec_gives_diagnostics_and_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.sched"
    bad.write_text("instance x family jobshop\nresources table\n  M1 unary\nend\nhard precedence_lag p table\n"
                   "  J1.1 -> J9.9\nend\n")
    result = run("parse", bad)
    assert result.exit_code == 2
    assert "bad.sched:6:3: error[E202]: p: undefined activity 'J1.1'" in result.output  # at the row
    assert "Traceback" not in result.output


def test_fmt_leaves_a_bad_file_untouched(tmp_path: Path) -> None:
    bad = tmp_path / "bad.sched"
    bad.write_text("instance x family jobshop\nhard unknown_kind k\n")
    before = bad.read_bytes()
    result = run("fmt", bad)
    assert result.exit_code == 2 and "unknown constraint kind 'unknown_kind'" in result.output
    assert bad.read_bytes() == before


def test_missing_file_is_a_diagnostic(tmp_path: Path) -> None:
    result = run("import", "itc2007", tmp_path / "nope.ctt", "-o", tmp_path / "out")
    assert result.exit_code == 2 and "cannot read file" in result.output
    assert not (tmp_path / "out").exists()


def test_installed_console_script_works_outside_the_checkout(tmp_path: Path) -> None:
    """The installed package finds its grammar and family specs (package data), not the checkout's."""
    script = Path(sys.executable).parent / "schedc"
    if not script.exists():
        import pytest

        pytest.skip("schedc console script not installed in this environment")
    shutil.copy(ROOT / "examples" / "ft06.sched", tmp_path / "ft06.sched")
    done = subprocess.run([str(script), "info", "ft06.sched"], cwd=tmp_path, capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, done.stderr
    assert "family: jobshop" in done.stdout
    # the dynamic shop chain: generate, render, simulate, check (family spec and templates from the package)
    shutil.copy(ROOT / "examples" / "dfjsp" / "small.toml", tmp_path / "small.toml")
    for args in (["generate", "small.toml", "-o", "shops"], ["render", "shops/dfjsp_small.sched", "--variant", "v4"],
                 ["simulate", "shops/dfjsp_small.sched", "-o", "a.txt"], ["check", "shops/dfjsp_small.sched", "a.txt"]):
        done = subprocess.run([str(script), *args], cwd=tmp_path, capture_output=True, text=True, check=False)
        assert done.returncode == 0, (args, done.stderr)


def test_grammar_command_formats_and_variant_names() -> None:
    spec = ROOT / "examples" / "ft06.sched"
    lark_text = run("grammar", spec, "--format", "lark")
    assert lark_text.exit_code == 0 and '"Job 1 step "' in lark_text.output
    themed = run("grammar", spec, "--format", "gbnf", "--variant", "v4", "--variant-seed", "42")
    assert themed.exit_code == 0 and "root ::=" in themed.output and '"Job 1 step "' not in themed.output
    exact = run("grammar", spec, "--format", "gbnf", "--lines", "exact")
    assert exact.exit_code == 0 and "rep-32 rep-2 rep-1" in exact.output  # 1 + 35 lines
    # the text format is the prompt's own stanza
    stanza = run("grammar", spec, "--format", "text", "--variant", "v4", "--variant-seed", "42")
    rendered = render(load_instance(spec), None, "v4", 42).response_format
    assert stanza.exit_code == 0 and stanza.output == rendered + ("" if rendered.endswith("\n") else "\n")
    schema = run("grammar", spec, "--format", "json-schema")
    assert schema.exit_code == 0 and json.loads(schema.output)["type"] == "object"
    bad = run("grammar", spec, "--format", "xml")
    assert bad.exit_code == 2 and "'xml' is not one of" in " ".join(bad.output.split())


def test_a_solver_the_checker_contradicts_is_one_line_and_exit_70(monkeypatch) -> None:
    """A SolverDisagreement is a bug of schedc's, never bad input: it once printed a traceback."""
    from schedc import pipeline
    from schedc.backends.base import SolverDisagreement

    def disagrees(*args, **kwargs):
        raise SolverDisagreement("pyomo claims objective 9 (optimal) but the verifier computes 15")

    monkeypatch.setattr(pipeline, "solve_file", disagrees)
    result = runner.invoke(app, ["solve", str(ROOT / "examples" / "ft06.sched")])
    assert result.exit_code == 70 and "E599" in result.output and "a bug in schedc" in result.output
    assert "Traceback" not in result.output and result.exception is None or isinstance(result.exception, SystemExit)
