"""The ``schedc`` command line, one module per command group.

The top stage but for :mod:`schedc.integrations` and :mod:`schedc.api` (see ``tests/test_import_graph.py``).
Takes in command-line arguments; gives out files, reports and exit statuses by calling
:mod:`schedc.pipeline` and the stages' library functions (every command is usable from Python without it).
:mod:`schedc.cli.application` holds the Typer application; :mod:`schedc.cli.commands` the core commands
and ``main``; ``bench``, ``dynamic``, ``editor``, ``generators`` and ``variants`` their groups. Nothing below
imports this package.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable
from typing import Any


def main() -> None:
    """Console-script entry point: the commands, with an interrupt at any moment ending in exit status 130.

    SIGINT while the commands are still being imported (or anywhere a command does not handle it) ends
    with one line, ``interrupted``, instead of a traceback; for ``bench run``, which documents 130 for
    SIGTERM too, SIGTERM is turned into the same interrupt from the very start.
    """
    import sys

    if sys.argv[1:3] == ["bench", "run"]:
        signal.signal(signal.SIGTERM, _interrupted)
    sys.unraisablehook = _redeliver_swallowed_interrupts(sys.unraisablehook)
    try:
        from schedc.cli import commands

        commands.main()
    except KeyboardInterrupt:
        _end_interrupted()
    except SystemExit as exit_:
        # Typer (≥ 0.29) turns an interrupt during argument parsing or a command into a silent
        # SystemExit(130). Left to the interpreter, an interrupt that was raised inside code run by
        # ``exec`` (dataclasses, pydantic) has already set its "unhandled interrupt" flag, and it
        # then kills itself with SIGINT at exit (status -2, nothing said). Nothing else in schedc
        # exits with 130 by SystemExit: every interrupt ends here, with its one line.
        if exit_.code == 130:
            _end_interrupted()
        raise


def _end_interrupted() -> None:
    from schedc.cli.application import exit_interrupted

    exit_interrupted("interrupted")


def _interrupted(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


#: Seconds after a swallowed interrupt at which it is signalled again (the callback has returned by then).
REDELIVERY_DELAY = 0.05


def _redeliver_swallowed_interrupts(previous: Callable[[Any], object]) -> Callable[[Any], object]:
    """An unraisable-exception hook that gives an interrupt back to the main thread instead of losing it.

    An interrupt that arrives while the interpreter runs a weak-reference callback or a finaliser (the
    import system's module-lock callback, a ``__del__``) is raised inside it, and the interpreter
    swallows it with an "Exception ignored" message: the command would then run to its end and exit 0.
    Raising the interrupt again in the main thread, once the callback has returned, makes it reach the
    command (and :func:`main`) like any other.
    """
    def hook(unraisable: Any) -> None:
        if isinstance(unraisable.exc_value, KeyboardInterrupt):
            # Signalled again from another thread a moment later: a signal raised from here would land
            # in this hook, which is as deaf as the callback. SIGTERM when SIGINT is ignored (a background
            # job) and only ``bench run``'s SIGTERM handler turned a signal into the interrupt.
            by_python = callable(signal.getsignal(signal.SIGINT))
            again = signal.SIGINT if by_python else signal.SIGTERM
            timer = threading.Timer(REDELIVERY_DELAY, os.kill, (os.getpid(), again))
            timer.daemon = True
            timer.start()
            return
        previous(unraisable)

    return hook


def __getattr__(name: str) -> Any:
    """``app`` (every command registered) on first use, so that ``schedc.cli.application`` stays cheap."""
    if name == "app":
        from schedc.cli import commands

        globals()[name] = value = commands.app
        return value
    raise AttributeError(f"module 'schedc.cli' has no attribute {name!r}")
