"""Progress bars of long commands: one rich bar on standard error, with count, rate, elapsed time and ETA.

Standard output carries a command's result (a report, JSON), so the bar goes to standard error. On a
terminal the bar redraws in place; when standard error is a file or a pipe (a log), rich draws it
once, when the work is done, so a log gets one line per bar instead of thousands of rewrites.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any


def _columns() -> tuple[Any, ...]:
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        ProgressColumn,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )
    from rich.text import Text

    class RateColumn(ProgressColumn):
        """Items per second since the start (per minute when slower than one a second)."""

        def render(self, task: Any) -> Text:
            elapsed = task.elapsed
            if not elapsed or not task.completed:
                return Text("–/s", style="progress.data.speed")
            speed = task.completed / elapsed
            shown = f"{speed:.1f}/s" if speed >= 1 else f"{speed * 60:.1f}/min"
            return Text(shown, style="progress.data.speed")

    return (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), RateColumn(),
            TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn())


@contextmanager
def progress_bar(label: str, total: int, show: bool = True) -> Iterator[Callable[[int], None]]:
    """A bar of ``total`` items labelled ``label``; yields ``advance(n)`` (a no-op when not ``show``)."""
    if not show:
        yield lambda count: None
        return
    from rich.console import Console
    from rich.progress import Progress

    with Progress(*_columns(), console=Console(stderr=True), transient=False) as bar:
        task = bar.add_task(label, total=total)

        def advance(count: int) -> None:
            bar.advance(task, count)

        yield advance
