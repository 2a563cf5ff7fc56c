"""The pytest fixture ``schedc_snapshot`` (schedc.testing): run in a pytest of its own (pytester), it writes
a snapshot under ``--snapshot-update``, passes while nothing changes, fails on a changed bound with the same
semantic-first report as ``schedc snapshot check``, and is skipped, saying why, without syrupy."""

from __future__ import annotations

import importlib.metadata
import shutil
import subprocess
import sys
import tomllib

import pytest
from typer.testing import CliRunner

from schedc.cli import app
from tests.conftest import ROOT

pytest_plugins = ["pytester"]

BOUND = "soft 1 count_bounds max_assignments agents=employee[contract=full] max=4"
TEST_FILE = """
def test_prompts(schedc_snapshot):
    schedc_snapshot.assert_match("specs/nurses.sched", variants=["v1", "v4"], seeds=[42, 43])
"""


def _installed() -> bool:
    """Whether the installed schedc declares the plugin (then pytest loads it without ``-p``)."""
    return any(ep.value == "schedc.testing.plugin" for ep in importlib.metadata.entry_points(group="pytest11"))


PLUGIN = () if _installed() else ("-p", "schedc.testing.plugin")


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    """A project with one spec (the bundled nurse roster) and a test of its prompts."""
    (pytester.path / "specs").mkdir()
    shutil.copy(ROOT / "examples" / "inrc2010_small.sched", pytester.path / "specs" / "nurses.sched")
    pytester.makepyfile(test_prompts=TEST_FILE)
    return pytester


def test_the_fixture_writes_passes_and_catches_a_changed_bound(project: pytest.Pytester) -> None:
    written = project.runpytest(*PLUGIN, "--snapshot-update")
    written.assert_outcomes(passed=1)
    [stored] = (project.path / "__snapshots__").rglob("*.schedc")
    assert stored.name == "test_prompts[nurses].schedc"
    project.runpytest(*PLUGIN).assert_outcomes(passed=1)

    spec = project.path / "specs" / "nurses.sched"
    spec.write_text(spec.read_text(encoding="utf-8").replace(BOUND, BOUND.replace("max=4", "max=3")), encoding="utf-8")
    failed = project.runpytest(*PLUGIN)
    failed.assert_outcomes(failed=1)
    out = failed.stdout.str()
    lines = failed.stdout.lines
    claim = lines.index("    `max_assignments` of contract full: max 4 → 3")
    group = lines.index("    v1/42,43:")
    assert lines.index("  claims:") < claim < lines.index("  renderings, sentence by sentence:") < group
    sentence = ("Its rules: Every nurse with contract full should have at most {} shifts in total; each shift above "
                "the maximum is penalised by 1.")
    assert lines[group + 1:group + 3] == ["      - " + sentence.format(4), "      + " + sentence.format(3)]
    assert "the renderings of specs/nurses.sched differ from their snapshot:" in out
    assert "accept the change with: pytest --snapshot-update" in out and "Traceback" not in out
    assert stored.read_text(encoding="utf-8").count('"max": 4') == 1  # a failing run writes nothing

    project.runpytest(*PLUGIN, "--snapshot-update").assert_outcomes(passed=1)
    assert '"max": 3' in stored.read_text(encoding="utf-8")
    project.runpytest(*PLUGIN).assert_outcomes(passed=1)


def test_the_fixture_file_is_what_the_command_writes(project: pytest.Pytester) -> None:
    project.runpytest(*PLUGIN, "--snapshot-update").assert_outcomes(passed=1)
    [stored] = (project.path / "__snapshots__").rglob("*.schedc")
    result = CliRunner().invoke(app, ["snapshot", "update", str(project.path / "specs"), "--variants", "v1,v4",
                                      "--seeds", "42,43"])
    assert result.exit_code == 0, result.output
    assert stored.read_bytes() == (project.path / "specs" / "__snapshots__" / "nurses.snap.json").read_bytes()


def test_a_bad_spec_fails_the_test_with_its_diagnostic(project: pytest.Pytester) -> None:
    (project.path / "specs" / "nurses.sched").write_text("instance n family inrc2010\nemployee tabl\n",
                                                          encoding="utf-8")
    result = project.runpytest(*PLUGIN, "--snapshot-update")
    result.assert_outcomes(failed=1)
    assert "schedc_snapshot cannot render specs/nurses.sched:" in result.stdout.str()
    assert "nurses.sched:2:10: error[E002]" in result.stdout.str()


def test_without_syrupy_the_test_is_skipped_saying_why(project: pytest.Pytester) -> None:
    # in a pytest process of its own, `import syrupy` finds a package that fails as a missing one does
    (project.path / "syrupy").mkdir()
    (project.path / "syrupy" / "__init__.py").write_text(
        "raise ModuleNotFoundError(\"No module named 'syrupy'\", name='syrupy')\n", encoding="utf-8")
    result = project.runpytest_subprocess(*PLUGIN, "-p", "no:syrupy", "-rs")
    result.assert_outcomes(skipped=1)
    assert "schedc_snapshot needs syrupy: pip install 'schedc[testing]'" in result.stdout.str()


def test_the_plugin_module_imports_nothing_heavy() -> None:
    """pytest imports the plugin in every project where schedc is installed: it must cost nothing and need
    no syrupy."""
    code = ("import sys; sys.modules['syrupy'] = None; import schedc.testing.plugin as p; "
            "assert callable(p.schedc_snapshot); heavy = [m for m in ('syrupy', 'schedc.render', 'ortools', "
            "'schedc.snapshot', 'lark') if sys.modules.get(m)]; print(heavy)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0 and done.stdout.strip() == "[]", done.stderr


def test_the_plugin_is_declared_as_an_entry_point_with_its_extra() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["entry-points"]["pytest11"] == {"schedc": "schedc.testing.plugin"}
    assert any(req.startswith("syrupy") for req in project["optional-dependencies"]["testing"])
