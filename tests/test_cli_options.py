"""The command line as a tool people keep: ``--version``, completion, an example in every command's
help, closed choices as Enums, ``--json`` where a command writes files, the solve summary, and the
duplicate policy of ``check`` (``--duplicates warn`` gives the official ITC-2007 validator's verdict).
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from schedc import __version__
from schedc.backends import BACKENDS
from schedc.cli import app
from schedc.cli.choices import Backend, Duplicates, GrammarFormat, Variant
from schedc.grammars import FORMATS
from schedc.importers import import_paths
from schedc.lang.printer import print_instance
from schedc.render.model import VARIANTS
from schedc.verify.verifier import DUPLICATE_POLICIES
from tests.conftest import DATA, ROOT

runner = CliRunner()
EXAMPLES = ROOT / "examples"


def run(*args: object):
    return runner.invoke(app, [str(a) for a in args])


def commands(group: Any, prefix: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], Any]]:
    """(command path, command) of every leaf command of a click group."""
    out = []
    for name, command in group.commands.items():
        if hasattr(command, "commands"):  # a group (typer may bring its own copy of click)
            out += commands(command, (*prefix, name))
        else:
            out.append(((*prefix, name), command))
    return out


COMMANDS = commands(typer.main.get_command(app))  # type: ignore[arg-type]


def test_version() -> None:
    result = run("--version")
    assert result.exit_code == 0 and result.stdout == f"schedc {__version__}\n"


def test_completion_can_be_installed() -> None:
    result = run("--help")
    assert "--install-completion" in result.stdout and "--show-completion" in result.stdout


@pytest.mark.parametrize("path", [p for p, _ in COMMANDS], ids=[" ".join(p) for p, _ in COMMANDS])
def test_every_command_has_an_example_of_itself(path: tuple[str, ...]) -> None:
    command = dict(COMMANDS)[path]
    assert command.epilog and command.epilog.startswith("Example: schedc ")
    words = shlex.split(command.epilog.removeprefix("Example: "))
    assert tuple(words[1:1 + len(path)]) == path
    assert "Example: schedc" in run(*path, "--help").stdout


BRACKETED = [(p, c) for p, c in COMMANDS
             if re.search(r"\[[^\]]+\]", c.help or "") or
             any(re.search(r"\[[^\]]+\]", getattr(o, "help", None) or "") for o in c.params)]


@pytest.mark.parametrize("path", [p for p, _ in BRACKETED], ids=[" ".join(p) for p, _ in BRACKETED])
def test_bracketed_words_of_a_help_survive_rich(path: tuple[str, ...]) -> None:
    """Rich reads ``[lsp]`` as a style tag and drops it: ``schedc lsp --help`` said "pip install 'schedc'"."""
    command = dict(COMMANDS)[path]
    texts = [command.help or ""] + [getattr(o, "help", None) or "" for o in command.params]
    shown = " ".join(run(*path, "--help").stdout.replace("│", " ").split())
    for text in texts:
        for word in re.findall(r"\[[^\]]+\]", text.replace("\\[", "[")):
            if not word.startswith("[/"):
                assert " ".join(word.split()) in shown, (word, path)


def groups(group: Any, prefix: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], Any]]:
    """(path, group) of the application and of every command group under it."""
    out = [(prefix, group)]
    for name, command in group.commands.items():
        if hasattr(command, "commands"):
            out += groups(command, (*prefix, name))
    return out


GROUPS = groups(typer.main.get_command(app))  # type: ignore[arg-type]


@pytest.mark.parametrize("path", [p for p, _ in GROUPS], ids=[" ".join(p) or "schedc" for p, _ in GROUPS])
def test_every_group_has_an_example_of_one_of_its_commands(path: tuple[str, ...]) -> None:
    """``schedc emit --help`` and ``schedc bench --help`` end with an example (before: none)."""
    group = dict(GROUPS)[path]
    assert group.epilog and group.epilog.startswith("Example: schedc "), path
    words = shlex.split(group.epilog.removeprefix("Example: "))
    assert tuple(words[1:1 + len(path)]) == path and words[1 + len(path)] in group.commands
    assert "Example: schedc" in run(*path, "--help").stdout


def test_python_dash_m_schedc_is_the_command_line() -> None:
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "schedc", "--version"], capture_output=True, text=True, cwd=ROOT,
                          timeout=120, check=False)
    assert done.returncode == 0 and done.stdout == f"schedc {__version__}\n", done.stderr
    bad = subprocess.run([sys.executable, "-m", "schedc", "parse", str(ROOT / "no-such.sched")],
                         capture_output=True, text=True, cwd=ROOT, timeout=120, check=False)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr


def test_the_choices_are_the_registries() -> None:
    from schedc.bench.decoding import DECODINGS, GRAMMAR_FORMATS, SERVERS
    from schedc.bench.executor import EXECUTORS
    from schedc.bench.selection import ORDERS, SELECTIONS
    from schedc.bench.solver_code import ANSWER_MODES
    from schedc.cli import choices
    from schedc.dynamic.api import PLOT_VIEWS
    from schedc.dynamic.batch import CALIBRATION_METHODS
    from schedc.dynamic.calibrate import OPERATOR_FAMILIES
    from schedc.generators import SCHEMES
    from schedc.importers import ALL_FORMATS
    from schedc.variants.perturb import MODES

    assert [v.value for v in Variant] == list(VARIANTS)
    assert [b.value for b in Backend] == list(BACKENDS)
    assert [f.value for f in GrammarFormat] == list(FORMATS)
    assert [d.value for d in Duplicates] == list(DUPLICATE_POLICIES)
    pairs = [(choices.PlotView, PLOT_VIEWS), (choices.PerturbMode, MODES), (choices.ImportFormat, ALL_FORMATS),
             (choices.ClassicScheme, SCHEMES), (choices.Executor, EXECUTORS), (choices.Selection, SELECTIONS),
             (choices.Order, ORDERS), (choices.AnswerMode, ANSWER_MODES), (choices.Decoding, DECODINGS),
             (choices.Server, SERVERS), (choices.RunGrammarFormat, GRAMMAR_FORMATS), (choices.Lines, ("any", "exact")),
             (choices.CalibrationMethod, CALIBRATION_METHODS), (choices.OperatorFamily, OPERATOR_FAMILIES)]
    for enum, registry in pairs:
        assert [v.value for v in enum] == list(registry), enum.__name__


#: Every option (or argument) whose values form a closed set, by command path.
CLOSED = {("import",): ["fmt"], ("generate-classic",): ["scheme"], ("plot",): ["view", "variant"],
          ("perturb",): ["mode"], ("grammar",): ["fmt", "lines", "variant"], ("render",): ["variant"],
          ("check",): ["variant", "duplicates"], ("solve",): ["backend", "variant"],
          ("bench", "build"): ["selection", "order", "answer_mode", "executor"],
          ("bench", "validate"): ["executor"], ("bench", "eval"): ["executor"],
          ("bench", "run"): ["decoding", "server", "grammar_format", "lines"],
          ("generate",): ["executor"], ("calibrate",): ["executor", "method", "without"], ("subset",): ["executor"],
          ("agent",): ["level", "mode", "fmt", "variant", "preset"], ("agent-run",): ["preset"]}


@pytest.mark.parametrize("path", list(CLOSED), ids=[" ".join(p) for p in CLOSED])
def test_closed_choices_are_choices_of_the_parser(path: tuple[str, ...]) -> None:
    """Typer checks them (its error names the choices) and completes them (before: free strings)."""
    from enum import Enum
    from typing import get_args

    def closed(annotation: Any) -> bool:  # an Enum, or a list of one (a repeatable option)
        inner = [annotation, *get_args(annotation)]
        return any(isinstance(a, type) and issubclass(a, Enum) for a in inner)

    command = dict(COMMANDS)[path]
    annotations = {p.name: p.type_descriptor.annotation for p in command.params}
    assert all(closed(annotations[name]) for name in CLOSED[path]), annotations


def test_a_bad_closed_choice_is_typers_error() -> None:
    result = run("plot", EXAMPLES / "ft06.sched", "--view", "gantt")
    assert result.exit_code == 2 and "'gantt' is not one of" in " ".join(result.output.split())
    assert "<input>" not in result.output  # before: the library's diagnostic, "<input>: error[E708]"
    result = run("import", "csv", EXAMPLES / "sources" / "jsplib" / "ft06.txt", "-o", "out")
    assert result.exit_code == 2 and "'csv' is not one of" in " ".join(result.output.split())


# ---------------------------------------------------------------------------- the rendering seed

RENDERING = [("render",), ("check",), ("grammar",), ("solve",), ("plot",)]


@pytest.mark.parametrize("path", RENDERING, ids=[" ".join(p) for p in RENDERING])
def test_the_rendering_seed_is_spelt_variant_seed_everywhere(path: tuple[str, ...]) -> None:
    command = dict(COMMANDS)[path]
    shown = {opt: p for p in command.params if not getattr(p, "hidden", False) for opt in getattr(p, "opts", ())}
    assert "--variant" in shown and "--variant-seed" in shown
    if path != ("solve",):  # solve's --seed is the solver's
        assert "--seed" not in shown
    assert "--variant-seed" in " ".join(run(*path, "--help").stdout.split())


def test_the_old_spelling_still_works_with_a_warning(tmp_path: Path) -> None:
    spec = EXAMPLES / "ft06.sched"
    new = run("render", spec, "--variant", "v4", "--variant-seed", "7")
    old = run("render", spec, "--variant", "v4", "--seed", "7")
    assert new.exit_code == old.exit_code == 0 and new.stdout == old.stdout
    assert new.stdout != run("render", spec, "--variant", "v4").stdout  # the seed took effect
    assert new.stderr == "" and "--seed is deprecated; use --variant-seed" in old.stderr
    both = run("render", spec, "--variant", "v4", "--variant-seed", "7", "--seed", "8")
    assert both.exit_code == 2 and "E409" in both.stderr
    grammar = run("grammar", spec, "--variant", "v4", "--seed", "7")
    assert grammar.stdout == run("grammar", spec, "--variant", "v4", "--variant-seed", "7").stdout
    answer = tmp_path / "a.txt"
    assert run("solve", spec, "--variant", "v4", "--variant-seed", "7", "-o", answer).exit_code == 0
    assert run("check", spec, answer, "--variant", "v4", "--seed", "7").exit_code == 0
    assert run("check", spec, answer, "--variant", "v4", "--variant-seed", "7").exit_code == 0
    assert run("check", spec, answer, "--variant", "v4", "--variant-seed", "8").exit_code == 1  # other names


def test_a_bad_choice_is_refused_with_the_choices() -> None:
    result = run("render", EXAMPLES / "ft06.sched", "--variant", "v9")
    assert result.exit_code == 2 and "v9" in result.stderr and "v3a" in result.stderr
    assert run("render", EXAMPLES / "ft06.sched", "--variant", "V3A").exit_code == 0  # case-insensitive


def test_solve_summary_shows_unknowns_as_dashes_and_integer_bounds(tmp_path: Path) -> None:
    result = run("solve", EXAMPLES / "rcpsp_small.sched", "-o", tmp_path / "a.txt")
    assert result.exit_code == 0
    summary = result.stdout.strip()
    assert summary.startswith("rcpsp_small: optimal, objective 13, bound 13, best known – (")
    assert "None" not in summary and "13.0" not in summary
    data = json.loads(run("solve", EXAMPLES / "rcpsp_small.sched", "--json").stdout)
    assert data["bound"] == 13 and isinstance(data["bound"], int)


def test_progress_only_when_asked(tmp_path: Path) -> None:
    quiet = run("solve", EXAMPLES / "ft06.sched", "-o", tmp_path / "a.txt", "--workers", "1")
    assert "objective" in quiet.stdout and quiet.stderr == ""
    loud = run("solve", EXAMPLES / "ft06.sched", "-o", tmp_path / "a.txt", "--workers", "1", "--progress")
    lines = loud.stderr.splitlines()
    assert lines and all("objective" in line and "bound" in line for line in lines)
    assert not any("." in line.split("bound")[1] for line in lines)  # integer bounds


def test_file_writing_commands_speak_json(tmp_path: Path) -> None:
    out = tmp_path / "m.pb.txt"
    emitted = json.loads(run("emit", "cpsat", EXAMPLES / "ft06.sched", "-o", out, "--json").stdout)
    assert emitted == {"written": str(out)}
    ft06 = EXAMPLES / "sources" / "jsplib" / "ft06.txt"
    imported = json.loads(run("import", "jsplib", ft06, "-o", tmp_path, "--json").stdout)
    assert imported == {"written": [str(tmp_path / "ft06.sched")]}
    result = json.loads(run("fmt", "--check", "--json", tmp_path / "ft06.sched").stdout)
    assert result == {"files": [{"file": str(tmp_path / "ft06.sched"), "canonical": True, "rewritten": False}]}


# ---------------------------------------------------------------------------- --duplicates


def itc_answer(tmp_path: Path) -> tuple[Path, list[str]]:
    """comp01 as a .sched file, and an official solution (cost 5, feasible) as answer lines."""
    [instance] = import_paths("itc2007", [DATA / "itc2007" / "comp01.ctt"])
    spec = tmp_path / "comp01.sched"
    spec.write_text(print_instance(instance), encoding="utf-8")
    solution = DATA / "solutions" / "itc2007" / "comp01__docheinstein_race.sol"
    lines = ["|".join(line.split()) for line in solution.read_text(encoding="utf-8").splitlines() if line.strip()]
    return spec, lines


def test_a_repeated_lecture_is_an_error_by_default_and_a_warning_on_request(tmp_path: Path) -> None:
    spec, lines = itc_answer(tmp_path)
    answer = tmp_path / "a.txt"
    course, room, day, period = lines[0].split("|")
    other_room = "B" if room != "B" else "C"
    answer.write_text("\n".join([*lines, lines[0], f"{course}|{other_room}|{day}|{period}"]) + "\n", encoding="utf-8")
    strict = run("check", spec, answer, "--json")
    assert strict.exit_code == 1
    report = json.loads(strict.stdout)
    assert [i["kind"] for i in report["issues"]] == ["duplicate", "conflicting_duplicate"]
    assert report["hard_violations"] == 2 and not report["feasible"]
    lenient = run("check", spec, answer, "--json", "--duplicates", "warn")
    assert lenient.exit_code == 0, lenient.output
    report = json.loads(lenient.stdout)
    # the validator's verdict on this file: repeated entries skipped with a warning, feasible, cost 5
    assert report["feasible"] and report["hard_violations"] == 0 and report["objective"] == 5
    assert [i["kind"] for i in report["issues"]] == ["duplicate", "conflicting_duplicate"]


def test_grammar_speaks_json() -> None:
    plain = run("grammar", EXAMPLES / "ft06.sched", "--format", "gbnf")
    data = json.loads(run("grammar", EXAMPLES / "ft06.sched", "--format", "gbnf", "--json").stdout)
    assert data["format"] == "gbnf" and data["variant"] is None and data["seed"] == 42
    assert data["grammar"].rstrip("\n") == plain.stdout.rstrip("\n") and "root ::=" in data["grammar"]


def test_bench_commands_speak_json(tmp_path: Path) -> None:
    """build, validate, run and eval with --json print one JSON document on stdout (progress stays on stderr)."""
    from tests.fake_server import FakeServer

    shutil.copytree(DATA / "nsplib", tmp_path / "src" / "nsplib")
    bench = tmp_path / "bench"
    built = run("bench", "build", tmp_path / "src", "-o", bench, "--variants", "v1", "--json")
    assert built.exit_code == 0, built.output
    summary = json.loads(built.stdout)
    assert summary["dataset"] == str(bench / "dataset.jsonl") and summary["instances"] == 3
    assert summary["records"] == 3 and summary["built"] == 3 and summary["failed"] == {}
    assert summary["records"] == len((bench / "dataset.jsonl").read_text(encoding="utf-8").splitlines())

    validated = json.loads(run("bench", "validate", bench, "--time-limit", "1", "--json").stdout)
    assert validated["instances"] == 3 and len(validated["rows"]) == 3
    assert {r["family"] for r in validated["rows"]} == {"nsplib"} and all(r["verified"] for r in validated["rows"])

    responses = tmp_path / "r.jsonl"
    with FakeServer(reply=lambda body: "no schedule here") as server:
        ran = run("bench", "run", bench, "--endpoint", server.url, "--model", "m", "--responses", responses,
                  "--limit", "2", "--json")
    assert ran.exit_code == 0, ran.output
    record = json.loads(ran.stdout)
    assert (record["total"], record["sent"], record["errors"], record["interrupted"]) == (2, 2, 0, False)

    evaluated = run("bench", "eval", bench, responses, "-o", tmp_path / "report", "--json")
    assert evaluated.exit_code == 0, evaluated.output
    report = json.loads(evaluated.stdout)
    assert report["report"] == str(tmp_path / "report")
    assert report["feasibility"] == json.loads((tmp_path / "report" / "report.json").read_text())["feasibility"]


@pytest.mark.parametrize("path", [p for p, _ in COMMANDS], ids=[" ".join(p) for p, _ in COMMANDS])
def test_every_command_has_json(path: tuple[str, ...]) -> None:
    command = dict(COMMANDS)[path]
    assert any("--json" in getattr(p, "opts", ()) for p in command.params), path


def test_generate_speaks_json(tmp_path: Path) -> None:
    result = run("generate", ROOT / "examples" / "dfjsp" / "small.toml", "-o", tmp_path, "--limit", "1",
                 "--no-calibrate", "--json")
    assert result.exit_code == 0, result.output
    written = json.loads(result.stdout)["written"]
    assert written and all(Path(p).is_file() for p in written)
    assert any(p.endswith(".sched") for p in written) and any(p.endswith(".world.json") for p in written)


def test_bench_builds_perturbation_seed_is_derive_seed(tmp_path: Path) -> None:
    """--variant-seed now means the rendering seed; bench build's perturbation seed is --derive-seed (the old
    spelling still read, with a warning; both at once must agree)."""
    missing = tmp_path / "nowhere"
    old = run("bench", "build", missing, "-o", tmp_path / "out", "--variant-seed", "3")
    assert "--variant-seed is deprecated; use --derive-seed" in old.stderr
    assert old.exit_code == 2 and "source folder(s) not found" in old.stderr  # the option was taken, then the build
    both = run("bench", "build", missing, "-o", tmp_path / "out", "--variant-seed", "3", "--derive-seed", "4")
    assert both.exit_code == 2 and "E409" in both.stderr
    assert "--derive-seed" in " ".join(run("bench", "build", "--help").stdout.split())


def test_the_solve_budget_counts_from_the_start_and_leaves_the_solver_at_least_half(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``--time-limit`` is the command's wall clock (issue 29): what starting, loading the spec and
    importing the solver took comes out of the backend's budget, but never more than half of it."""
    import time

    from schedc.backends import portfolio
    from schedc.backends.base import SolveResult
    from schedc.pipeline.solving import backend_budget, solve_file

    budgets: list[float] = []

    def recorded(instance: Any, _family: Any, options: Any, *_args: Any, **_kwargs: Any) -> SolveResult:
        budgets.append(options.time_limit)
        return SolveResult(instance=instance.name, backend="cpsat", status="unknown", objective=None, bound=None,
                           bks=None, gap_pct=None, seconds=0.0, build_seconds=0.0)

    monkeypatch.setattr(portfolio, "solve_cpsat", recorded)
    solve_file(EXAMPLES / "ft06.sched", "cpsat", time_limit=10, started=time.perf_counter() - 3.0)
    solve_file(EXAMPLES / "ft06.sched", "cpsat", time_limit=10, started=time.perf_counter() - 30.0)
    assert 5.0 <= budgets[0] <= 7.0 and budgets[1] == 5.0
    assert backend_budget(10, 2) == 8 and backend_budget(10, 6) == 5


def test_a_process_knows_its_age() -> None:
    import subprocess
    import sys

    script = "import time; time.sleep(1.5); from schedc.cli.commands import process_age; print(process_age())"
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True)
    age = float(done.stdout)
    assert age >= 1.5 or (age == 0.0 and not Path("/proc/self/stat").exists())
