"""Figures of ``schedc bench eval``: feasibility by family and |ΔVR| per variant pair, as PNG bytes.

Drawn with matplotlib's object API on the Agg canvas (no pyplot, no global backend switch), in
matplotlib's default style whatever the user's matplotlibrc says, at a fixed size and resolution,
and saved without the ``Software`` text chunk (PNG from Agg carries no timestamp): the same answers
give the same bytes.

* ``feasibility.png`` — feasible rate (feasible / answer slots) per family, grouped bars, one bar
  per model, each with its 95 % Wilson interval (:func:`schedc.bench.stats.wilson`) as an error
  bar; the ``all`` group is every family together. A zero rate is drawn as a stub at 0 in the
  model's colour (with its interval above), so that it does not look like a missing bar; a model
  with no answer in a family gets a ``–`` there instead of a bar.
* ``delta_vr.png`` — one panel per model, one box per variant pair: the distribution over
  instances of |ΔVR| at the base seed. Every instance with both VRs takes part (``pairs.csv``'s
  ``n_delta``), also those without a reseeded rendering, so a box's n may exceed the table's
  paired n; the n of each box is written under its label.
"""

from __future__ import annotations

import io
from collections import defaultdict
from typing import Any

Cell = tuple[int, int]  # (feasible answers, answer slots)

DPI = 100
WIDTH = 10.0
FEASIBILITY_HEIGHT = 4.5
PANEL_HEIGHT = 3.2
ZERO_STUB = 0.012  # height of the stub that draws a zero rate


def _figure(width: float, height: float) -> Any:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width, height), dpi=DPI, layout="constrained")
    FigureCanvasAgg(figure)
    return figure


def _png(figure: Any) -> bytes:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=DPI, metadata={"Software": None})
    return buffer.getvalue()


def feasibility_cells(results: list[dict[str, Any]]) -> tuple[list[str], list[str], dict[tuple[str, str], Cell]]:
    """(models, families then ``all``, {(model, family): (feasible, n)}) of the answer verdicts."""
    from schedc.bench.selection import FAMILIES

    counts: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    for r in results:
        for family in (r["family"], "all"):
            cell = counts[(r["model"], family)]
            cell[0] += bool(r["feasible"])
            cell[1] += 1
    models = sorted({r["model"] for r in results})
    present = {r["family"] for r in results}
    families = [f for f in FAMILIES if f in present] + sorted(present - set(FAMILIES)) + ["all"]
    return models, families, {key: (k, n) for key, (k, n) in counts.items()}


def feasibility_figure(results: list[dict[str, Any]]) -> Any:
    """The figure of :func:`feasibility_plot` (see the module docstring)."""
    from schedc.bench.stats import wilson

    models, families, cells = feasibility_cells(results)
    figure = _figure(WIDTH, FEASIBILITY_HEIGHT)
    axes = figure.add_subplot()
    width = 0.8 / max(len(models), 1)
    for k, model in enumerate(models):
        colour = f"C{k % 10}"
        xs = [i + (k - (len(models) - 1) / 2) * width for i in range(len(families))]
        drawn = [(x, *cells[(model, f)]) for x, f in zip(xs, families, strict=True) if cells.get((model, f), (0, 0))[1]]
        rates = [ok / n for _, ok, n in drawn]
        intervals = [wilson(ok, n) for _, ok, n in drawn]
        axes.bar([x for x, _, _ in drawn], rates, width=width, label=model, color=colour)
        axes.errorbar([x for x, _, _ in drawn], rates, fmt="none", ecolor="black", elinewidth=1, capsize=3,
                      yerr=[[r - lo for r, (lo, _) in zip(rates, intervals, strict=True)],
                            [hi - r for r, (_, hi) in zip(rates, intervals, strict=True)]])
        zeros = [x for (x, ok, _) in drawn if ok == 0]  # a zero rate is a value: a stub at 0, not an empty slot
        axes.bar(zeros, [ZERO_STUB] * len(zeros), bottom=-ZERO_STUB / 2, width=width, color=colour, gid="zero")
        for x, f in zip(xs, families, strict=True):  # no answer of this model in this family: say so
            if not cells.get((model, f), (0, 0))[1]:
                axes.text(x, 0.01, "n/a", ha="center", va="bottom", color=colour, fontsize=9, gid="no-answer")
    axes.set_xticks(range(len(families)), [f"{f}\n(n={cells.get((models[0], f), (0, 0))[1]})" if models else f
                                           for f in families])
    axes.set_ylim(-0.02, 1.05)
    axes.set_ylabel("feasible rate (95 % Wilson interval)")
    axes.set_title("Feasible answers by family")
    axes.grid(axis="y", alpha=0.3)
    if models:
        axes.legend(title="model", loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return figure


def feasibility_plot(results: list[dict[str, Any]]) -> bytes:
    """Grouped bars: feasible rate by family (then ``all``), one bar per model, with Wilson intervals."""
    from matplotlib import style

    with style.context("default"):
        return _png(feasibility_figure(results))


def delta_plot(pairs: dict[tuple[str, str, str], list[tuple[float | None, list[float]]]]) -> bytes:
    """Box plots of |ΔVR| per variant pair, one panel per model (``pairs`` as from ``pair_deltas``)."""
    from matplotlib import style

    models = list(dict.fromkeys(model for model, _, _ in pairs)) or [""]
    with style.context("default"):
        figure = _figure(WIDTH, PANEL_HEIGHT * len(models))
        panels = figure.subplots(len(models), 1, squeeze=False)[:, 0]
        for axes, model in zip(panels, models, strict=True):
            keys = [k for k in pairs if k[0] == model]
            data = [[d for d, _ in pairs[k] if d is not None] for k in keys]
            filled = [i for i, values in enumerate(data) if values]
            if filled:
                axes.boxplot([data[i] for i in filled], positions=filled, widths=0.6, showmeans=True)
            else:
                axes.text(0.5, 0.5, "no instance with a VR in both variants", ha="center", va="center",
                          transform=axes.transAxes)
            axes.set_xticks(range(len(keys)), [f"{a}–{b}\n(n={len(v)})" for (_, a, b), v in zip(keys, data,
                                                                                                 strict=True)])
            axes.set_xlim(-0.6, max(len(keys), 1) - 0.4)
            axes.set_ylim(bottom=0)
            axes.set_ylabel("|ΔVR|")
            axes.set_title(f"|ΔVR| between variants at the base seed — {model}" if model else "|ΔVR|")
            axes.grid(axis="y", alpha=0.3)
        return _png(figure)
