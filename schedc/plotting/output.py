"""What every plot shares: the output format, the figure, colours, label fitting and saving.

Figures are built with the object-oriented :class:`matplotlib.figure.Figure` API and never
through ``pyplot``: no global figure registry, no interactive backend, nothing to close, so
plotting is safe in threads and in a test process. ``savefig`` picks the renderer from the
format (Agg for PNG). Outputs are reproducible: no creation dates in the metadata and a fixed
salt for SVG element ids.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from pathlib import Path

import matplotlib as mpl
from matplotlib import colormaps
from matplotlib.axes import Axes
from matplotlib.colors import to_hex
from matplotlib.figure import Figure

from schedc.core.diagnostics import SchedcError

#: Output formats by file suffix, with the metadata that would otherwise stamp a date or version.
FORMATS: dict[str, tuple[str, dict[str, None]]] = {
    ".png": ("png", {"Software": None}),
    ".svg": ("svg", {"Date": None}),
    ".pdf": ("pdf", {"CreationDate": None, "Producer": None}),
}
WIDTH_IN = 11.0
DPI = 120
MAX_HEIGHT_IN = 24.0
FONT_PT = 7.0
#: The share of the figure width left to the plotting area (lane names and legend take the rest).
PLOT_SHARE = 0.72
#: Colour of bars whose colour key is unknown (an activity using no resource in a job Gantt).
NEUTRAL = "#9e9e9e"


def output_format(out: Path) -> str:
    """The matplotlib format for ``out`` from its suffix (``.png``, ``.svg``, ``.pdf``)."""
    entry = FORMATS.get(out.suffix.lower())
    if entry is None:
        raise SchedcError.at("E701", f"cannot tell the plot format of {str(out)!r} from its suffix "
                             f"{out.suffix or '(none)'!r}", hint="use one of " + ", ".join(FORMATS))
    return entry[0]


def new_figure(height_in: float) -> Figure:
    """A figure of the fixed width and DPI, ``height_in`` tall (clamped), with constrained layout."""
    height = min(max(height_in, 2.5), MAX_HEIGHT_IN)
    return Figure(figsize=(WIDTH_IN, height), dpi=DPI, layout="constrained")


def save(fig: Figure, out: Path) -> Path:
    """Write ``fig`` to ``out`` atomically (a temporary file, then a rename) and return ``out``."""
    fmt = output_format(out)
    metadata = FORMATS[out.suffix.lower()][1]
    tmp = out.with_name(f".{out.name}.tmp")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise write_error(out, exc) from None
    try:
        # Text stays text in SVG (searchable, small); the salt makes element ids reproducible.
        with mpl.rc_context({"svg.fonttype": "none", "svg.hashsalt": "schedc"}):
            fig.savefig(tmp, format=fmt, metadata=metadata)
        tmp.replace(out)
    except OSError as exc:
        if tmp.is_file():  # a half-written temporary must not be left beside the plots
            tmp.unlink()
        raise write_error(out, exc) from None
    return out


def write_error(out: Path, exc: OSError) -> SchedcError:
    """The error for a plot that cannot be written (a missing permission, a file in the way)."""
    return SchedcError.at("E704", f"cannot write the plot to {out}: {exc.strerror or exc}")


def palette(keys: Iterable[str]) -> dict[str, str]:
    """A deterministic colour per key, in the order given (duplicates keep their first colour).

    Up to 10 keys use ``tab10`` and up to 20 ``tab20``; beyond that hues are spread by the
    golden ratio so that neighbouring keys (J7, J8) never get similar colours.
    """
    unique = list(dict.fromkeys(keys))
    if len(unique) <= 20:
        table = colormaps["tab10" if len(unique) <= 10 else "tab20"].colors  # type: ignore[attr-defined]
        return {key: to_hex(table[i]) for i, key in enumerate(unique)}
    golden = (math.sqrt(5) - 1) / 2
    turbo = colormaps["turbo"]
    return {key: to_hex(turbo(0.05 + 0.9 * ((i * golden) % 1.0))) for i, key in enumerate(unique)}


def label_fits(text: str, duration: float, span: float, lane_height_in: float) -> bool:
    """Whether ``text`` fits inside a bar of ``duration`` on an axis showing ``span`` time units.

    An estimate from the fixed figure width (a glyph is about 0.6 em wide), so that labels
    are decided before layout and are the same on every run.
    """
    if span <= 0 or lane_height_in < 1.3 * FONT_PT / 72:
        return False
    bar_in = duration / span * WIDTH_IN * PLOT_SHARE
    return bar_in >= (len(text) * 0.6 + 0.8) * FONT_PT / 72


def time_limits(last: float) -> tuple[float, float]:
    """The x range of a time axis ending at ``last``: from 0 with a small margin on the right."""
    return 0.0, max(last, 1) * 1.03 + 0.5


def lane_axis(ax: Axes, names: Sequence[str]) -> None:
    """Name the lanes of a Gantt axis (lane 0 at the top) and draw a light grid along time."""
    ax.set_yticks(range(len(names)), labels=list(names), fontsize=FONT_PT + 1)
    ax.set_ylim(len(names) - 0.5, -0.5)
    ax.grid(axis="x", color="#dddddd", linewidth=0.6)
    ax.set_axisbelow(True)
