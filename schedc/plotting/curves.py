"""Generic curves: one line per named series of values (a metric per iteration, an error per
calibration round), with optional dashed target lines in the colour of the series they belong to."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from matplotlib.ticker import MaxNLocator

from schedc.core.diagnostics import SchedcError
from schedc.plotting.output import FONT_PT, new_figure, output_format, palette, save

MAX_MARKED = 40  # beyond this many points per series, markers only clutter the line
HEIGHT_IN = 4.5


def plot_metric_curves(series: Mapping[str, Sequence[float]], out: Path, targets: Mapping[str, float] | None = None,
                       xlabel: str = "iteration", ylabel: str = "value", title: str | None = None,
                       log_y: bool = False) -> Path:
    """Draw each series against its index (0, 1, …) and each target as a horizontal dashed line.

    A target named like a series takes that series' colour. An empty series stays in the
    legend as ``(no values)``; NaN values leave gaps. Raises a SchedcError when no series has
    a value (E702) or when ``log_y`` meets a value ≤ 0 (E707). Returns ``out``.
    """
    output_format(out)
    targets = dict(targets or {})
    if not any(len(values) for values in series.values()):
        raise SchedcError.at("E702", "nothing to plot: no series has a value",
                             hint=f"series given: {', '.join(series) or '(none)'}")
    if log_y:
        check_positive(series, targets)
    colours = palette([*series, *targets])
    fig = new_figure(HEIGHT_IN)
    ax = fig.subplots()
    for name, values in series.items():
        label = name if len(values) else f"{name} (no values)"
        ax.plot(range(len(values)), list(values), marker="o" if len(values) <= MAX_MARKED else None, markersize=3,
                linewidth=1.3, color=colours[name], label=label, gid=f"series-{name}")
    for name, value in targets.items():
        ax.axhline(value, color=colours[name], linestyle="--", linewidth=1.0, label=f"{name} target {value:g}",
                   gid=f"target-{name}")
    if log_y:
        ax.set_yscale("log")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.grid(color="#dddddd", linewidth=0.6)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.legend(loc="upper left", bbox_to_anchor=(1.005, 1.0), fontsize=FONT_PT + 1, frameon=False)
    if title:
        fig.suptitle(title)
    return save(fig, out)


def check_positive(series: Mapping[str, Sequence[float]], targets: Mapping[str, float]) -> None:
    """Refuse values a logarithmic axis cannot show (matplotlib would drop them silently)."""
    bad = [name for name, values in series.items() if any(v <= 0 for v in values)]
    bad += [f"{name} target" for name, value in targets.items() if value <= 0]
    if bad:
        raise SchedcError.at("E707", f"cannot draw values ≤ 0 on a logarithmic axis: {', '.join(bad)}",
                             hint="draw with log_y=False, or shift the values")
