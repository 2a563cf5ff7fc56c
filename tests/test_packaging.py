"""The wheel holds every code package: a package left out of ``setup.py`` imports from the source tree
(where the tests run) but not from an installed copy, so its commands would fail only for users."""

import importlib.util
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _setup_module():
    spec = importlib.util.spec_from_file_location("schedc_setup", ROOT / "setup.py")
    source = (ROOT / "setup.py").read_text(encoding="utf-8").replace("\nsetup(", "\n_unused = dict(")
    module = importlib.util.module_from_spec(spec)
    exec(compile(source, str(ROOT / "setup.py"), "exec"), module.__dict__)
    return module


def test_every_folder_of_python_code_is_a_listed_package():
    listed = set(_setup_module().code_packages())
    folders = {p.parent for p in (ROOT / "schedc").rglob("*.py") if "__pycache__" not in p.parts}
    expected = {".".join(("schedc", *f.relative_to(ROOT / "schedc").parts)) for f in folders}
    assert expected == listed
    assert "schedc.variants" in listed and "schedc.grammars" in listed


def test_every_backend_folder_is_a_listed_package():
    listed = set(_setup_module().backend_packages())
    folders = {p.parent for p in (ROOT / "backends").rglob("*.py") if "__pycache__" not in p.parts}
    assert {".".join(("schedc", "backends", *f.relative_to(ROOT / "backends").parts)) for f in folders} == listed
    assert {"schedc.backends", "schedc.backends.search", "schedc.backends.cpsat"} <= listed


def test_without_inspect_ai_the_inspect_task_says_which_extra_to_install() -> None:
    """An optional extra's module, imported without the extra, names it (a SchedcError, not an ImportError)."""
    code = ("import sys; sys.modules['inspect_ai'] = None\n"
            "from schedc.core.diagnostics import SchedcError\n"
            "try:\n    import schedc.integrations.inspect\nexcept SchedcError as exc:\n    print(exc)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120,
                          check=False)
    assert "B501" in done.stdout and "pip install 'schedc[inspect]'" in done.stdout, done.stderr


def test_the_core_holds_no_optional_package_and_every_extra_exists():
    """``pip install schedc`` stays lean: each package that serves one feature is in an extra, and the extra
    that ``schedc.core.extras`` names for it lists it."""
    import re
    import tomllib

    from schedc.core.extras import EXTRAS

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]

    def names(requirements):
        return {re.split(r"[<>=\[; ]", r)[0].lower().replace("-", "_") for r in requirements}

    core = names(project["dependencies"])
    extras = {k: names(v) for k, v in project["optional-dependencies"].items()}
    distribution = {"dask": "dask", "distributed": "dask", "inspect_ai": "inspect_ai"}
    for module, extra in EXTRAS.items():
        package = distribution.get(module, module)
        assert package not in core, module
        assert package in extras[extra], (module, extra)
    [everything] = project["optional-dependencies"]["all"]
    assert set(EXTRAS.values()) <= set(re.search(r"\[(.*)\]", everything).group(1).split(","))
    assert "ruff" not in extras["test"] and "ruff" in extras["lint"]


def run_without(modules, *args):
    """``schedc ARGS`` in a process where ``modules`` cannot be imported (as without their extra)."""
    blocked = "; ".join(f"sys.modules[{m!r}] = None" for m in modules)
    code = f"import sys; {blocked}\nfrom schedc.cli import main\nmain()\n"
    return subprocess.run([sys.executable, "-c", code, *map(str, args)], capture_output=True, text=True, cwd=ROOT,
                          timeout=300, check=False)


def test_a_command_without_its_extra_names_the_extra(tmp_path):
    """Before: a traceback ending in ModuleNotFoundError (the packages were all mandatory)."""
    examples = ROOT / "examples"
    answer = tmp_path / "a.txt"
    answer.write_text("".join(f"Job {j} step {k}: start=0\n" for j in range(1, 7) for k in range(1, 7)))
    cases = [(("matplotlib",), ["plot", examples / "ft06.sched", answer, "-o", tmp_path / "g.png"], "plot"),
             (("pyomo", "highspy"), ["solve", examples / "ft06.sched", "--backend", "pyomo"], "milp"),
             (("pyomo",), ["emit", "lp", examples / "rcpsp_small.sched", "-o", tmp_path / "m.lp"], "milp"),
             (("tenacity",), ["bench", "run", tmp_path, "--endpoint", "http://127.0.0.1:9/v1", "--model", "m"],
              "bench")]
    (tmp_path / "dataset.jsonl").write_text('{"id": "a", "system": "s", "prompt": "p"}\n')
    for modules, args, extra in cases:
        done = run_without(modules, *args)
        assert done.returncode == 2 and "E010" in done.stderr, (args, done.stderr[-400:])
        assert f"pip install 'schedc[{extra}]'" in done.stderr and "Traceback" not in done.stderr
    core = run_without(("matplotlib", "pyomo", "highspy", "openai", "tenacity", "scipy", "numba"),
                       "solve", examples / "ft06.sched", "-o", tmp_path / "s.txt", "--time-limit", "5")
    assert core.returncode == 0, core.stderr  # the core solves with CP-SAT without any extra
