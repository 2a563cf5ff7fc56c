"""The Typer application of ``schedc`` and what its command modules share.

The commands are registered on :data:`app` by :mod:`schedc.cli` (the core commands),
:mod:`schedc.cli.dynamic` and :mod:`schedc.cli.variants`; each imports the application from
here, so that no command module imports :mod:`schedc.cli` back.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import wraps
from typing import Annotated, Any, TypeVar

import typer

from schedc import __version__
from schedc.core.diagnostics import SchedcError
from schedc.core.extras import missing_extra

#: exit status of an internal error (sysexits' EX_SOFTWARE): a solver and the answer checker disagree
EXIT_SOFTWARE = 70

app = typer.Typer(no_args_is_help=True,
                  help="schedc: one formal spec of a scheduling problem for solvers, prompts and verifiers.",
                  epilog="Example: schedc render examples/ft06.sched --variant v4 --variant-seed 42")


def _print_version(show: bool) -> None:
    if show:
        typer.echo(f"schedc {__version__}")
        raise typer.Exit()


@app.callback()
def main_options(
    version: Annotated[bool, typer.Option("--version", callback=_print_version, is_eager=True,
                                          help="print the version and exit")] = False,
    max_errors: Annotated[int | None, typer.Option("--max-errors", min=0, help="diagnostics shown in full before "
                                                   "one summary line (default 20, or SCHEDC_MAX_ERRORS; 0: all)")]
    = None,
) -> None:
    """schedc: one formal spec of a scheduling problem for solvers, prompts and verifiers."""
    from schedc.core.diagnostics import default_max_errors, set_max_errors

    set_max_errors(default_max_errors() if max_errors is None else max_errors)  # per command, not per process

F = TypeVar("F", bound=Callable[..., Any])
AsJson = Annotated[bool, typer.Option("--json", help="print the result as JSON")]

#: The seed of a rendering, spelt alike by every command that reads or writes a rendering's names.
DEFAULT_VARIANT_SEED = 42
VariantSeed = Annotated[int | None, typer.Option(
    "--variant-seed", help=f"the rendering's seed (default {DEFAULT_VARIANT_SEED})", show_default=False)]
#: The rendering seed's former spelling in render, check and grammar: still read, hidden from the help.
OldSeed = Annotated[int | None, typer.Option("--seed", hidden=True, help="deprecated: use --variant-seed")]


def variant_seed(seed: int | None, old: int | None) -> int:
    """The rendering seed, given as ``--variant-seed`` or by its deprecated spelling ``--seed``."""
    return deprecated_option("--variant-seed", "--seed", seed, old, DEFAULT_VARIANT_SEED)


def deprecated_option(new: str, old: str, value: Any, old_value: Any, default: Any) -> Any:
    """The value of option ``new`` given either as itself or by its deprecated spelling ``old`` (which warns)."""
    if old_value is None:
        return default if value is None else value
    if value is not None and value != old_value:
        raise SchedcError.at("E409", f"{new} {value} and {old} {old_value} disagree",
                             hint=f"{old} is the old spelling of {new}: give one of them")
    typer.echo(f"warning: {old} is deprecated; use {new}", err=True)
    return old_value


def echo_json(data: Any) -> None:
    """Print ``data`` as indented JSON on standard output."""
    typer.echo(json.dumps(data, indent=2, ensure_ascii=False))


def reports_errors(func: F) -> F:
    """Print SchedcError diagnostics to stderr and exit 2 (an output that could not be written: 74) instead of a
    traceback; a command that needs an optional package which is not installed says which extra provides it
    (:mod:`schedc.core.extras`)."""

    @wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except SchedcError as exc:
            from schedc.core.inputs import exit_code

            typer.echo(str(exc), err=True)
            raise typer.Exit(exit_code(exc)) from None
        except RuntimeError as exc:  # a solver's answer the checker rejects: a bug of schedc's, never bad input
            from schedc.backends.base import SolverDisagreement  # imported only when something went wrong

            if not isinstance(exc, SolverDisagreement):
                raise
            typer.echo(f"error[E599]: the answer checker disagrees with the solver: {exc}. This is a bug in schedc; "
                       "please report it with the spec (other backends may still solve it: --backend)", err=True)
            raise typer.Exit(EXIT_SOFTWARE) from None
        except ModuleNotFoundError as exc:
            error = missing_extra(exc, f"this command ({func.__name__.removesuffix('_cmd').replace('_', ' ')})")
            if error is None:
                raise
            typer.echo(str(error), err=True)
            raise typer.Exit(2) from None

    return wrapper  # type: ignore[return-value]


def exit_interrupted(message: str) -> None:
    """Say ``message`` on stderr and end now with status 130.

    ``os._exit``, not ``SystemExit``: a KeyboardInterrupt that passed through code the interpreter evaluates
    itself leaves a flag that makes it kill itself with SIGINT at exit (status -2) even after the exception
    was handled. Whatever files a command had open were closed by its own ``finally`` blocks.
    """
    import os
    import sys

    sys.stdout.flush()
    sys.stderr.write(message + "\n")
    sys.stderr.flush()
    os._exit(130)
