"""The Python API at top level: ``schedc.load/solve/render/check/grammar``.

Each accepts a path (``str`` or ``Path``), a ``.sched`` text or an ``Instance`` and gives the same
result for all three; the example of ``docs/api.md`` runs as written; the API's names survive the
import of the subpackages they share a name with (``schedc.render``, ``schedc.grammar``).
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import schedc
from schedc import pipeline
from schedc.core.diagnostics import SchedcError
from schedc.ir import equal_ignoring_spans
from tests.conftest import ROOT

FT06 = ROOT / "examples" / "ft06.sched"
RCPSP = ROOT / "examples" / "rcpsp_small.sched"


def sources(path: Path) -> list[object]:
    """The same instance as a Path, a path string, its text and the parsed object."""
    return [path, str(path), path.read_text(encoding="utf-8"), schedc.load(path)]


def test_the_docs_example_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    doc = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    code = re.search(r"```python\n(.*?)```", doc, re.DOTALL)
    assert code is not None
    assert len(code.group(1).strip().splitlines()) <= 10
    monkeypatch.chdir(ROOT)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code.group(1), "docs/api.md", "exec"), {})  # noqa: S102 - the documented example itself
    printed = out.getvalue()
    assert printed.startswith("optimal 55 55\n")
    assert "root ::= " in printed  # the GBNF grammar


def test_load_accepts_paths_texts_and_instances() -> None:
    loaded = [schedc.load(s) for s in sources(RCPSP)]
    assert all(equal_ignoring_spans(instance, loaded[0]) for instance in loaded)
    assert schedc.load(loaded[0]) is loaded[0]


def test_solve_check_render_grammar_agree_for_every_kind_of_source() -> None:
    results = []
    for source in sources(RCPSP):
        solved = schedc.solve(source, time_limit=10, workers=1, seed=0)
        assert solved.feasible and solved.status == "optimal" and solved.answer is not None
        assert isinstance(solved.bound, int) and solved.bound == solved.objective
        report = schedc.check(source, solved.answer)
        assert report.feasible and report.objective == solved.objective
        results.append((solved.objective, schedc.render(source, variant="v4", seed=7).text,
                        schedc.grammar(source, format="json-schema")))
    assert all(r == results[0] for r in results)


def test_check_reads_an_answer_file_and_a_variant(tmp_path: Path) -> None:
    solved = schedc.solve(FT06, time_limit=10, workers=1, variant="v4", variant_seed=3)
    answer = tmp_path / "a.txt"
    answer.write_text(solved.answer or "", encoding="utf-8")
    assert schedc.check(FT06, answer, variant="v4", seed=3).feasible
    assert not schedc.check(FT06, answer).feasible  # themed names are unknown without the variant


def test_render_has_text_and_the_shown_names() -> None:
    prompt = schedc.render(FT06, variant="v3a", seed=42)
    assert prompt.text == prompt.rendering.text() == f"{prompt.system}\n\n{prompt.user}\n"
    assert set(prompt.names) >= {"J1", "M1"} and prompt.names["J1"] in prompt.text


def test_bad_input_is_a_schedc_error() -> None:
    with pytest.raises(SchedcError, match="E100"):
        schedc.load("missing.sched")
    with pytest.raises(SchedcError, match=r"<text>:2:6: error\[E002\]"):
        schedc.load("instance x family jobshop\nthis is not sched\n")
    with pytest.raises(SchedcError, match="E119"):
        schedc.load((ROOT / "specs" / "jobshop.sched").read_text(encoding="utf-8"))
    with pytest.raises(TypeError, match="not int"):
        schedc.load(3)  # type: ignore[arg-type]


def test_the_cli_library_functions_take_strings_too() -> None:
    result, answer = pipeline.solve_file(str(RCPSP), time_limit=10, workers=1)
    assert result.status == "optimal" and answer is not None


def test_the_api_names_survive_importing_their_subpackages() -> None:
    import schedc.grammar  # noqa: F401  (binds nothing over the function)
    from schedc.render import display_names  # the subpackage still imports

    assert callable(schedc.render) and callable(schedc.grammar)
    assert schedc.render.__module__ == "schedc.api"
    assert sys.modules["schedc.render"].display_names is display_names


def test_import_schedc_is_cheap_and_typed() -> None:
    """``import schedc`` loads no solver, parser or renderer (only the finder of the old module paths, which
    imports nothing but ``importlib``); the package ships ``py.typed``."""
    code = "import sys, schedc; print(sorted(m for m in sys.modules if m.startswith(('schedc.', 'ortools', 'lark'))))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert out.stdout.strip() == "['schedc.core', 'schedc.core.moved']"
    assert (Path(schedc.__file__).parent / "py.typed").is_file()
    assert {"load", "solve", "render", "check", "grammar"} <= set(schedc.__all__)


@pytest.mark.parametrize("old, new", [("schedc.parser", "schedc.lang.parser"),
                                      ("schedc.evaluate", "schedc.verify.evaluate"),
                                      ("schedc.heuristics", "schedc.backends.search.heuristics"),
                                      ("schedc.cli_app", "schedc.cli.application")])
def test_the_module_paths_of_the_flat_layout_import_with_a_warning(old: str, new: str) -> None:
    """One release of grace for code written against schedc 0.1: the old name is the new module, and says so."""
    code = (f"import warnings, importlib; warnings.simplefilter('error')\n"
            f"try:\n    importlib.import_module({old!r})\nexcept DeprecationWarning as w:\n    print(w)\n"
            f"warnings.simplefilter('ignore')\n"
            f"print(importlib.import_module({old!r}) is importlib.import_module({new!r}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONPATH": str(ROOT)}).stdout.splitlines()
    assert out == [f"{old} moved to {new}; the old name goes in the next release", "True"]


def test_the_old_api_functions_and_verifier_names_still_answer() -> None:
    with pytest.warns(DeprecationWarning, match="schedc.pipeline.load_instance"):
        from schedc.api import load_instance
    from schedc import pipeline
    from schedc.verify import CheckReport, Verifier
    from schedc.verify.verifier import CheckReport as Report
    from schedc.verify.verifier import Verifier as Checker

    assert load_instance is pipeline.load_instance and (Verifier, CheckReport) == (Checker, Report)
    with pytest.raises(AttributeError):
        schedc.api.no_such_function  # noqa: B018
