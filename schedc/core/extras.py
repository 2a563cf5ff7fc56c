"""Which optional extra provides which package, and the error that says so.

``pip install schedc`` gives parse, fmt, render, grammar, check, import and CP-SAT solving; each
other feature needs an extra (``pyproject.toml``). A feature reached without its extra meets a
:class:`ModuleNotFoundError`; :func:`missing_extra` turns one for a package listed here into a
:class:`~schedc.core.diagnostics.SchedcError` (E010) that names the extra to install. Any other
missing module is a bug and stays an error of its own.
"""

from __future__ import annotations

from schedc.core.diagnostics import SchedcError

#: The top-level module of each optional package → the extra that installs it.
EXTRAS: dict[str, str] = {
    "pyomo": "milp", "highspy": "milp",
    "numba": "fast",
    "openai": "bench", "tenacity": "bench", "scipy": "bench",
    "matplotlib": "plot",
    "dask": "dask", "distributed": "dask",
    "pymoo": "moo",
    "inspect_ai": "inspect",
    "pygls": "lsp", "lsprotocol": "lsp",
    "syrupy": "testing",
    "pyseccomp": "bench",
}


def missing_extra(exc: ModuleNotFoundError, feature: str) -> SchedcError | None:
    """The error naming the extra that provides the module ``exc`` misses (None: not an optional package)."""
    module = (exc.name or "").split(".")[0]
    extra = EXTRAS.get(module)
    if extra is None:
        return None
    return SchedcError.at("E010", f"{feature} needs the optional package {module!r}, which is not installed",
                          hint=f"pip install 'schedc[{extra}]' (or 'schedc[all]' for every feature)")


def installed(extra: str) -> bool:
    """Whether every package that ``extra`` provides (:data:`EXTRAS`) can be imported here."""
    import importlib.util

    modules = [module for module, owner in EXTRAS.items() if owner == extra]
    return bool(modules) and all(importlib.util.find_spec(module) is not None for module in modules)
