"""``schedc snapshot update|check``: snapshot tests of the renderings of specs (docs/snapshots.md).

Registered on the main application by :mod:`schedc.cli.commands`; a thin call of :mod:`schedc.snapshot`.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import msgspec
import typer

from schedc.cli.application import app, echo_json, reports_errors
from schedc.core.diagnostics import SchedcError

if TYPE_CHECKING:
    from schedc.snapshot import Given

snapshot_app = typer.Typer(help="Snapshot tests of renderings: store what specs' prompts say, then see what "
                                "changed, claims first (docs/snapshots.md).", no_args_is_help=True,
                           epilog="Example: schedc snapshot check examples --dir snapshots")
app.add_typer(snapshot_app, name="snapshot")

Paths = Annotated[list[Path], typer.Argument(help=".sched instances, or folders searched for them")]
Variants = Annotated[str | None, typer.Option("--variants", help="comma-separated, e.g. v1,v4 (default: the "
                                                                 "stored ones, else v1,v2,v3a,v3b,v4)")]
Seeds = Annotated[str | None, typer.Option("--seeds", help="comma-separated rendering seeds (default: the stored "
                                                           "ones, else 42)")]
Formats = Annotated[str | None, typer.Option("--formats", help="answer grammars to store, comma-separated: text, "
                                                               "lark, gbnf, json-schema (default: the stored ones, "
                                                               "else none)")]
SnapDir = Annotated[Path | None, typer.Option("--dir", help="snapshot folder (default: __snapshots__ in the folder "
                                                            "given, or beside the file given)")]
WithSolve = Annotated[bool | None, typer.Option("--with-solve/--without-solve",
                                                help="store CP-SAT's reference objective (default: as stored)")]
TimeLimit = Annotated[float | None, typer.Option("--time-limit", help="seconds for --with-solve (default: as "
                                                                      "stored, else 10)")]
AsJson = Annotated[bool, typer.Option("--json", help="print the result as JSON")]


def _given(variants: str | None, seeds: str | None, formats: str | None, with_solve: bool | None,
           time_limit: float | None) -> Given:
    from schedc.snapshot import Given

    return Given(variants=_items(variants), seeds=_seeds(seeds), formats=_items(formats), with_solve=with_solve,
                 time_limit=time_limit)


def _items(text: str | None) -> tuple[str, ...] | None:
    """A comma-separated option as its items (``none`` or an empty text: no item)."""
    if text is None:
        return None
    return tuple(item.strip() for item in text.split(",") if item.strip() and item.strip().lower() != "none")


def _seeds(text: str | None) -> tuple[int, ...] | None:
    items = _items(text)
    if items is None:
        return None
    try:
        return tuple(int(item) for item in items)
    except ValueError:
        raise SchedcError.at("E954", f"--seeds takes comma-separated integers, got {text!r}",
                             hint="for example --seeds 42,43,44") from None


def _update_hint(paths: list[Path], snapdir: Path | None) -> str:
    """The command that accepts the changes (the paths and folder of this run)."""
    words = ["schedc", "snapshot", "update", *(str(p) for p in paths)]
    if snapdir is not None:
        words += ["--dir", str(snapdir)]
    return shlex.join(words)


@snapshot_app.command("update", epilog="Example: schedc snapshot update examples --dir snapshots --seeds 42,43,44")
@reports_errors
def update_cmd(paths: Paths, variants: Variants = None, seeds: Seeds = None, formats: Formats = None,
               snapdir: SnapDir = None, with_solve: WithSolve = None, time_limit: TimeLimit = None,
               as_json: AsJson = False) -> None:
    """Write the snapshot of every spec that has none or whose renderings changed; delete snapshots left
    without a spec. Nothing is written unless every spec reads."""
    from schedc.snapshot import update

    written = update(paths, snapdir, _given(variants, seeds, formats, with_solve, time_limit))
    if as_json:
        echo_json({"snapshots": msgspec.to_builtins(written)})
        return
    for item in written:
        if item.action != "unchanged":
            typer.echo(f"{item.action} {item.snapshot}")
    counts = {a: sum(1 for w in written if w.action == a) for a in ("created", "updated", "unchanged", "removed")}
    typer.echo(", ".join(f"{n} {a}" for a, n in counts.items() if n) or "nothing to snapshot")


@snapshot_app.command("check", epilog="Example: schedc snapshot check examples --dir snapshots")
@reports_errors
def check_cmd(paths: Paths, variants: Variants = None, seeds: Seeds = None, formats: Formats = None,
              snapdir: SnapDir = None, with_solve: WithSolve = None, time_limit: TimeLimit = None,
              as_json: AsJson = False) -> None:
    """Compare every spec with its snapshot: exit 0 when nothing changed, 1 when something did (the changes
    are printed claims first, then sentence by sentence, then grammars), 2 on bad input."""
    from schedc.snapshot import check, check_lines

    diffs = check(paths, snapdir, _given(variants, seeds, formats, with_solve, time_limit))
    changed = [d for d in diffs if d.status != "unchanged"]
    if as_json:
        echo_json({"changed": len(changed), "unchanged": len(diffs) - len(changed),
                   "specs": [{**msgspec.to_builtins(d), "semantic": d.semantic} for d in diffs]})
    else:
        sys.stdout.write("\n".join(check_lines(diffs, _update_hint(paths, snapdir))) + "\n")
    if changed:
        raise typer.Exit(1)
