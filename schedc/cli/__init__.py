"""The ``schedc`` command line, one module per command group.

Stage 17 (see ``tests/test_import_graph.py``; only :mod:`schedc.api` and :mod:`schedc.integrations`
stand above it). Takes in command-line arguments; gives out files, reports and exit statuses by calling
:mod:`schedc.pipeline` and the stages' library functions (every command is usable from Python without it).
:mod:`schedc.cli.application` holds the Typer application; :mod:`schedc.cli.commands` the core commands
and ``main``; ``bench``, ``dynamic``, ``editor``, ``generators`` and ``variants`` their groups. Nothing below
imports this package.
"""

from __future__ import annotations

from typing import Any


def __getattr__(name: str) -> Any:
    """``app`` (every command registered) and ``main`` on first use, so that ``schedc.cli.application`` stays cheap."""
    if name in {"app", "main"}:
        from schedc.cli import commands

        globals()[name] = value = getattr(commands, name)
        return value
    raise AttributeError(f"module 'schedc.cli' has no attribute {name!r}")
