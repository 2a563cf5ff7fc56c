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
    assert "B401" in done.stdout and "pip install 'schedc[inspect]'" in done.stdout, done.stderr
