"""No import circle among the modules of ``schedc``.

The module import graph is read from the source with :mod:`ast`: an edge ``a → b`` for every
``import b`` / ``from b import x`` in ``a`` (``from p import m`` names the submodule ``p.m``
when ``m`` is one). Imports under ``if TYPE_CHECKING:`` never run and are left out.

- Imports at module level (those that run when a module is imported) form no cycle at all.
- Imports inside functions run later, once every module is loaded; a few of them close a
  cycle, and each such edge is listed in :data:`LAZY_CYCLE_EDGES` with the reason it stays.
  A new one fails the test, so a circle cannot come back unnoticed.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "schedc"

#: Function-level imports that lie on a cycle of the whole graph, and why they stay lazy.
LAZY_CYCLE_EDGES: dict[tuple[str, str], str] = {
    ("schedc.lang.family", "schedc.lang.family_parser"):
        "a family file is parsed by the family parser, which reads statements with schedc.lang.parser",
    ("schedc.lang.parser", "schedc.lang.family"): "an instance statement loads the family it names",
    ("schedc.lang.parser", "schedc.lang.family_parser"): "parse_file hands a family spec to the family parser",
    ("schedc.lang.parser", "schedc.lang.semantic"): "parse_instance_text runs the semantic pass after building",
    ("schedc.lang.semantic", "schedc.lang.family"): "check_instance loads the family when none is given",
    ("schedc.verify.verifier", "schedc.grammars"):
        "the verifier decodes structured answers with the grammars, whose answer spec reads the verifier",
    ("schedc.bench.build", "schedc.bench.validate"): "build reads the reference values kept by validate",
    ("schedc.bench.build", "schedc.bench.derive"):
        "build --perturb/--tighten hands each base to derive, which writes its records with build's writers",
    ("schedc.backends.cpsat.model", "schedc.backends.cpsat.measures"):
        "the model builds its objective from the measures, whose expressions read the model's variables",
    ("schedc.backends.cpsat.measures", "schedc.backends.cpsat.sequencing"):
        "the setup-time measure sums the sequencing arcs, which the sequencing module builds on the model",
    ("schedc.backends.pyomo.model", "schedc.backends.pyomo.measures"):
        "the model builds its objective from the measures, whose expressions read the model's variables",
    ("schedc.backends.pyomo.measures", "schedc.backends.pyomo.sequencing"):
        "the setup-time measure sums the sequencing arcs, which the sequencing module builds on the model",
    ("schedc.dynamic.calibrate", "schedc.dynamic.moo"):
        "calibrate dispatches method = moo | hybrid to the NSGA-II calibrators, which finish with SESC",
    ("schedc.bench.evaluate", "schedc.bench.validate"): "eval reads the reference values kept by validate",
    ("schedc.dynamic.calibrate", "schedc.dynamic.baseline"):
        "calibration by the baseline's random search; the baseline builds on calibrate",
    ("schedc.variants.perturb", "schedc.variants.sat"): "perturb --mode sat writes the sat variants",
    ("schedc.variants.sat", "schedc.variants.perturb"): "a sat variant is derived like a boundary variant",
}


def module_names() -> dict[str, Path]:
    """Every module of the package by its dotted name (a package by its own name), with the
    top-level ``backends/`` folder installed as ``schedc.backends``."""
    out = {}
    folders = [(PACKAGE, "schedc"), (PACKAGE.parent / "backends", "schedc.backends")]
    for folder, name in folders:
        for path in folder.rglob("*.py") if folder.is_dir() else ():
            parts = [name, *path.relative_to(folder).with_suffix("").parts]
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = path
    return out


def _is_type_checking(node: ast.If) -> bool:
    return "TYPE_CHECKING" in ast.unparse(node.test)


def imports(module: str, path: Path, modules: dict[str, Path]) -> list[tuple[str, bool]]:
    """(imported schedc module, inside a function) for every import statement of ``module``."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]

    def target(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    found: list[tuple[str, bool]] = []
    todo: list[tuple[ast.AST, bool]] = [(ast.parse(path.read_text(encoding="utf-8")), False)]
    while todo:
        node, in_function = todo.pop()
        if isinstance(node, ast.If) and _is_type_checking(node):
            todo.extend((stmt, in_function) for stmt in node.orelse)
            continue
        if isinstance(node, ast.Import):
            found.extend((t, in_function) for a in node.names if (t := target(a.name)))
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package
                for _ in range(node.level - 1):
                    up = up.rpartition(".")[0]
                base = f"{up}.{base}" if base else up
            for a in node.names:
                full = f"{base}.{a.name}"
                t = full if full in modules else target(base)
                if t:
                    found.append((t, in_function))
        inner = in_function or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
        todo.extend((child, inner) for child in ast.iter_child_nodes(node))
    return found


@cache
def _edges(package: Path) -> dict[str, list[tuple[str, bool]]]:
    """Every module's imports (read once per package folder: parsing the sources is the slow part)."""
    modules = module_names()
    return {m: imports(m, p, modules) for m, p in modules.items()}


def graph(with_functions: bool) -> dict[str, set[str]]:
    return {m: {t for t, lazy in found if t != m and (with_functions or not lazy)}
            for m, found in _edges(PACKAGE).items()}


def cycles(g: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected components of more than one module (iterative Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []
    for root in sorted(g):
        if root in index:
            continue
        work = [(root, iter(sorted(g[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(g.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(component)
    return found


def test_module_level_imports_form_no_cycle() -> None:
    assert cycles(graph(with_functions=False)) == []


def test_the_two_former_circles_are_gone_also_through_function_imports() -> None:
    """``cli`` ↔ ``cli_dynamic`` and ``ir.instance`` → ``kinds`` → back: not even lazily."""
    full = graph(with_functions=True)
    for component in cycles(full):
        assert not {"schedc.cli", "schedc.cli.dynamic", "schedc.cli.variants"} & component, component
        assert not ({"schedc.ir", "schedc.ir.instance"} & component), component
    assert "schedc.cli" not in full["schedc.cli.dynamic"] | full["schedc.cli.variants"]
    assert not any(m.startswith("schedc.ir") for m in graph(with_functions=False)["schedc.kinds.context"])


def test_every_function_import_on_a_cycle_is_listed() -> None:
    full, eager = graph(with_functions=True), graph(with_functions=False)
    on_cycles = set()
    for component in cycles(full):
        on_cycles |= {(a, b) for a in component for b in full[a] & component if b not in eager[a]}
    assert on_cycles <= set(LAZY_CYCLE_EDGES), sorted(on_cycles - set(LAZY_CYCLE_EDGES))
    stale = set(LAZY_CYCLE_EDGES) - on_cycles
    assert not stale, f"no longer on a cycle, remove from LAZY_CYCLE_EDGES: {sorted(stale)}"


def test_the_graph_reader_sees_a_cycle(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The reader finds a planted circle, so an empty result means something."""
    pkg = tmp_path / "schedc"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("", encoding="utf-8")
    (pkg / "a.py").write_text("from schedc.b import x\n", encoding="utf-8")
    (pkg / "b.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import schedc.c\n"
                              "def f():\n    from schedc import a\n", encoding="utf-8")
    (pkg / "c.py").write_text("import schedc.a\n", encoding="utf-8")
    monkeypatch.setattr(__import__(__name__, fromlist=["PACKAGE"]), "PACKAGE", pkg)
    assert cycles(graph(with_functions=False)) == []
    assert cycles(graph(with_functions=True)) == [{"schedc.a", "schedc.b"}]
