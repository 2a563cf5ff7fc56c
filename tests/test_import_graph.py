"""The import graph of ``schedc`` follows the stages of the pipeline, and has no circle.

The package is a stack of stages (:data:`STAGES`, lowest first): a module may import modules of
its own stage and of the stages below, never of a stage above — at module level, inside a
function, or under ``if TYPE_CHECKING:`` alike. Where a lower stage needs something of a higher
one, the higher one passes it in (a callback, a protocol, a registry it fills).

The graph is read from the source with :mod:`ast`: an edge ``a → b`` for every ``import b`` /
``from b import x`` in ``a`` (``from p import m`` names the submodule ``p.m`` when ``m`` is one).
On top of the stage order, the imports that run (at module level or inside functions) form no
circle at all; an import under ``if TYPE_CHECKING:`` never runs, so within a stage it may close a
circle of annotations (a checker's type in the checks it dispatches to).
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "schedc"

#: The stages, lowest first, by the package (below ``schedc``) that holds each; the top-level
#: ``schedc``, ``schedc.__main__`` and ``schedc.api`` are the public face above them all.
STAGES: tuple[str, ...] = (
    "core",        # the error type and its diagnostics, decisions, text literals
    "kinds",       # constraint kinds: struct, formal meaning, check, claim
    "ir",          # the instance and family nodes, display names
    "lang",        # the .sched language: parsers, semantic pass, printer, loading a spec
    "importers",   # canonical source files -> IR
    "generators",  # classic random schemes -> IR
    "verify",      # answers: extraction, the shared evaluator, the verifier and its reports
    "render",      # natural-language renderings
    "grammars",    # answer grammars and schemas
    "backends",    # CP-SAT, MILP, the portfolio, and search outside the solvers
    "pipeline",    # the commands as library functions
    "snapshot",    # snapshots of renderings, claims and grammars, and their review diffs
    "variants",    # new instances from old ones
    "plotting",    # pictures of schedules
    "bench",       # whole benchmarks
    "dynamic",     # dynamic flexible job shops
    "testing",     # the pytest plugin (schedc_snapshot)
    "editor",      # the language server's analysis of a .sched document
    "cli",         # the command line
    "integrations",  # tasks and scorers for outside frameworks (Inspect AI), built on the stages below
)
TOP = ("__init__", "__main__", "api")


def stage(module: str) -> int:
    """The rank of a module's stage (the public face ranks above every stage)."""
    parts = module.split(".")
    if len(parts) == 1 or parts[1] in TOP:
        return len(STAGES)
    return STAGES.index(parts[1])


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


def imports(module: str, path: Path, modules: dict[str, Path],
            type_only: bool = False) -> list[tuple[str, bool]]:
    """(imported schedc module, inside a function) for every import statement of ``module`` that runs, and
    with ``type_only`` also those under ``if TYPE_CHECKING:`` (reported as not inside a function)."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]

    def target(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    found: list[tuple[str, bool]] = []
    todo: list[tuple[ast.AST, bool]] = [(ast.parse(path.read_text(encoding="utf-8")), False)]
    while todo:
        node, in_function = todo.pop()
        if isinstance(node, ast.If) and _is_type_checking(node) and not type_only:
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


def test_every_package_has_a_stage() -> None:
    """A new package is placed in the stage order before its imports are judged."""
    packages = {m.split(".")[1] for m in module_names() if m.count(".") >= 1}
    assert packages - set(TOP) <= set(STAGES), sorted(packages - set(TOP) - set(STAGES))


def upward_imports() -> list[tuple[str, str]]:
    """Every import (eager, lazy or type-only) of a module from a higher stage than its own."""
    modules = module_names()
    found = []
    for module, path in modules.items():
        for target, _ in imports(module, path, modules, type_only=True):
            if target != "schedc" and stage(target) > stage(module):
                found.append((module, target))
    return sorted(set(found))


def test_no_import_reaches_a_higher_stage() -> None:
    assert upward_imports() == []


def test_only_the_public_face_lives_directly_under_the_package() -> None:
    """Every other module belongs to the package of its stage."""
    loose = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert loose == ["__init__.py", "__main__.py", "api.py"], loose


def test_imports_that_run_form_no_cycle() -> None:
    """Neither at module level nor through imports inside functions."""
    assert cycles(graph(with_functions=False)) == []
    assert cycles(graph(with_functions=True)) == []


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


def test_the_stage_check_sees_an_upward_import(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A planted import from ``core`` up to ``verify`` — only under TYPE_CHECKING — is found."""
    pkg = tmp_path / "schedc"
    for sub in ("core", "verify"):
        (pkg / sub).mkdir(parents=True)
        (pkg / sub / "__init__.py").write_text("", encoding="utf-8")
    (pkg / "__init__.py").write_text("", encoding="utf-8")
    (pkg / "verify" / "report.py").write_text("from schedc.core import errors\n", encoding="utf-8")
    planted = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from schedc.verify.report import R\n"
    (pkg / "core" / "errors.py").write_text(planted, encoding="utf-8")
    monkeypatch.setattr(__import__(__name__, fromlist=["PACKAGE"]), "PACKAGE", pkg)
    assert upward_imports() == [("schedc.core.errors", "schedc.verify.report")]
