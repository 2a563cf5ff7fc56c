"""The DynaSched example configurations carry the paper's levels.

The levels are read from the paper's text (Table c-1, §C.2, Table g-1, §G.2 and Table g-2 of
``shared/reference/papers/dynaschedbench.txt``) and compared with what the configuration loader
returns for each file in ``examples/dfjsp`` (expanded target points, horizons, job counts, scenario
parameters), so a wrong level in a file fails here. Loading and expanding only: nothing is generated
or calibrated.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from pathlib import Path

import pytest

from schedc.dynamic.config import GRID_FIELDS, ConfigPoint, DfjspConfig, expand, load_config

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples" / "dfjsp"
PAPER = Path(__file__).resolve().parents[2] / "shared" / "reference" / "papers" / "dynaschedbench.txt"

pytestmark = pytest.mark.skipif(not PAPER.is_file(), reason=f"the DynaSched paper text is not at {PAPER}")

VARIABILITY_LEVELS = 12  # the paper gives no count for its log-scale variability sweep: schedc's choice
REPLICATES = 5  # seeds per Sweep, scaling and complexity level (the Grid's 5 seeds are its 5 files)
TABLE_C1_ROWS = {"Global Utilization": "utilisation", "Due-Date Tightness": "tightness",
                 "Arrival SCV": "arrival_scv", "Processing SCV": "processing_scv",
                 "Disturbance Ratio": "disturbance", "Load Imbalance": "imbalance"}
SYMBOLS = {r"\rho": "utilisation", r"\tau": "tightness", "c_{a}": "arrival_scv", "c_{p}": "processing_scv",
           r"\delta": "disturbance", r"\chi": "imbalance"}


# --------------------------------------------------------------------------- reading the paper


def paper_text() -> str:
    return PAPER.read_text(encoding="utf-8")


def section(title: str) -> list[str]:
    """The first block of non-blank lines after the line starting with ``title``, header row dropped."""
    lines = paper_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(title)) + 1
    start = next(i for i in range(start, len(lines)) if lines[i].strip())
    end = next((i for i in range(start, len(lines)) if not lines[i].strip()), len(lines))
    return lines[start + 1:end]


def numbers(text: str) -> list[float]:
    """Every decimal number in ``text`` (thousands separators ``,`` and ``{,}`` removed)."""
    text = text.replace("{,}", "").replace("\\allowbreak", "")
    return [float(x.replace(",", "")) for x in re.findall(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?", text)]


def field_of(symbol: str) -> str:
    return next(f for key, f in SYMBOLS.items() if key in symbol)


def grid_levels() -> dict[str, list[float]]:
    """Table c-1: metric → its level list."""
    out = {}
    for line in section("Table c-1"):
        metric, _, levels = line.split("\t")
        if metric in TABLE_C1_ROWS:
            out[TABLE_C1_ROWS[metric]] = numbers(re.search(r"\\\{(.*)\\\}", levels)[1])
    return out


def grid_facts() -> dict[str, int]:
    """The seed count and plant size stated under Table c-1."""
    text = paper_text()
    seeds = re.search(r"instantiated with (\d+) independent random seeds", text)
    plant = re.search(r"consists of (\d+) machines organized into (\d+) machine groups, processing (\d+) distinct "
                      r"job families with an average route length of (\d+)", text)
    assert seeds and plant
    return {"seeds": int(seeds[1]), "machines": int(plant[1]), "groups": int(plant[2]),
            "families": int(plant[3]), "route": int(plant[4])}


def centroid() -> dict[str, float]:
    """§C.2's centroid configuration: target → value."""
    line = next(x for x in paper_text().splitlines() if x.startswith("Centroid Configuration:"))
    return {field_of(symbol): float(value) for symbol, value in re.findall(r"\$([^$=]*)=([\d.]+)\$", line)}


def sweeps() -> dict[str, tuple[tuple[str, ...], float, float, float | None]]:
    """§C.2's sweep dimensions: name → (targets swept, low, high, step or None for a log scale)."""
    out = {}
    for line in paper_text().splitlines():
        found = re.match(r"• (\w+) Sweep: (.*)", line)
        if found:
            interval = re.search(r"\$([^$]*)\\in\s*\[([\d.]+),\s*([\d.]+)\]\$", found[2])
            assert interval, line
            fields = tuple(field_of(s) for s in interval[1].split(","))
            step = re.search(r"with step (\d+(?:\.\d+)?)", found[2])
            assert step or "logarithmic" in found[2], line
            out[found[1].lower()] = (fields, float(interval[2]), float(interval[3]), float(step[1]) if step else None)
    return out


def scaling_levels() -> list[tuple[int, float]]:
    """Table g-1: (N_J, H) per level."""
    rows = [line.split("\t") for line in section("Table g-1")]
    return [(int(numbers(row[1])[0]), numbers(row[2])[0]) for row in rows if len(row) == 3 and row[1][0].isdigit()]


def complexity_facts() -> dict[str, float]:
    """§G.2's scale, arrival pattern and single-mechanism parameters."""
    text = paper_text()
    g2 = text[text.index("G.2 Complexity Component Analysis"):text.index("Table g-2:")]
    pattern = re.search(r"amplitude \$A=([\d.]+)\$ and period \$T=H/(\d+)\$", g2)
    scale = re.search(r"N_\{J\}=(\d+)\$ and \$H\\approx ([\d{},.]+)\$", g2)
    batch = re.search(r"p_\{\\text\{batch\}\}=([\d.]+)\$ and mean batch size \$\\mu_\{B\}=([\d.]+)\$", g2)
    pm = re.search(r"\\Delta_\{\\text\{pm\}\}\\approx H/(\d+)\$ and duration \$D_\{\\text\{pm\}\}\\sim"
                   r"\\mathcal\{N\}\(([\d.]+),([\d.]+)\^\{2\}\)", g2)
    route = re.search(r"p_\{\\text\{route\}\}=([\d.]+)\$", g2)
    assert pattern and scale and batch and pm and route
    return {"amplitude": float(pattern[1]), "periods": int(pattern[2]), "jobs": int(scale[1]),
            "horizon": numbers(scale[2])[0], "batch": float(batch[1]), "batch_mean": float(batch[2]),
            "pm_divisor": int(pm[1]), "pm_mean": float(pm[2]), "pm_sd": float(pm[3]), "route": float(route[1])}


def full_complexity() -> dict[str, str]:
    """Table g-2: mechanism → its setting text."""
    return {row[0]: row[2] for row in (line.split("\t") for line in section("Table g-2")) if len(row) == 3}


# --------------------------------------------------------------------------- reading the configurations


def config(name: str) -> DfjspConfig:
    return load_config(EXAMPLES / f"{name}.toml")


def key(point: ConfigPoint) -> tuple[float | None, ...]:
    return tuple(None if v is None else round(v, 9) for v in (getattr(point.targets, f) for f in GRID_FIELDS))


def close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)


# --------------------------------------------------------------------------- DynaSched-Grid


def test_the_grid_files_are_table_c1_with_its_seeds_and_plant() -> None:
    levels, facts = grid_levels(), grid_facts()
    assert set(levels) == set(GRID_FIELDS) and math.prod(len(v) for v in levels.values()) == 6000
    expected = _product(levels)
    small_jobs, small_horizon = scaling_levels()[0]
    seeds: set[int] = set()
    for s in range(1, facts["seeds"] + 1):
        loaded = config(f"dynasched_grid_s{s}")
        points = expand(loaded)
        assert len(points) == 6000 and {key(p) for p in points} == expected, f"grid s{s}"
        seeds |= {p.seed for p in points}
        plant = loaded.plant
        assert (len(plant.machines), len(plant.groups()), len(plant.templates)) == (
            facts["machines"], facts["groups"], facts["families"])
        assert all(len(t.route) == facts["route"] for t in plant.templates)
        # N_J and H of the Grid are not in Table c-1: schedc uses the paper's N_J = 200 scale (Table g-1, Small)
        assert loaded.scale.jobs == small_jobs and abs(loaded.scale.horizon - small_horizon) <= 0.5
    assert len(seeds) == facts["seeds"] * 6000  # five disjoint seed blocks: five independent seeds per point
    assert not (EXAMPLES / f"dynasched_grid_s{facts['seeds'] + 1}.toml").exists()


def _product(levels: dict[str, list[float]]) -> set[tuple[float, ...]]:
    combos: list[tuple[float, ...]] = [()]
    for field in GRID_FIELDS:
        combos = [c + (round(v, 9),) for c in combos for v in levels[field]]
    return set(combos)


def test_delta_zero_is_reachable_because_grid_and_sweeps_have_no_maintenance() -> None:
    names = [f"dynasched_grid_s{s}" for s in range(1, 6)] + [f"dynasched_sweep_{k}" for k in sweep_files().values()]
    for name in names:
        assert config(name).scenarios.maintenance_interval == 0, name


# --------------------------------------------------------------------------- DynaSched-Sweep


def sweep_files() -> dict[str, str]:
    """Paper sweep name → file suffix."""
    return {"centroid": "centroid", "utilization": "utilisation", "variability": "variability",
            "tightness": "tightness", "disruption": "disturbance"}


def test_the_centroid_file_is_the_papers_centroid_replicated() -> None:
    c = centroid()
    assert set(c) == set(GRID_FIELDS)
    points = expand(config("dynasched_sweep_centroid"))
    assert Counter(key(p) for p in points) == {tuple(round(c[f], 9) for f in GRID_FIELDS): REPLICATES}


@pytest.mark.parametrize("sweep", ["utilization", "variability", "tightness", "disruption"])
def test_each_sweep_varies_its_targets_over_the_papers_range_around_the_centroid(sweep: str) -> None:
    fields, low, high, step = sweeps()[sweep]
    c = centroid()
    points = expand(config(f"dynasched_sweep_{sweep_files()[sweep]}"))
    counts = Counter(key(p) for p in points)
    assert set(counts.values()) == {REPLICATES}
    for point_key in counts:
        values = dict(zip(GRID_FIELDS, point_key, strict=True))
        assert all(close(values[f], c[f]) for f in GRID_FIELDS if f not in fields), values
        assert len({values[f] for f in fields}) == 1, f"{fields} must vary jointly: {values}"
    levels = sorted({dict(zip(GRID_FIELDS, k, strict=True))[fields[0]] for k in counts})
    if step is not None:
        count = round((high - low) / step) + 1
        assert levels == [round(low + i * step, 9) for i in range(count)]
    else:
        assert len(levels) == VARIABILITY_LEVELS and (levels[0], levels[-1]) == (low, high)
        ratios = [b / a for a, b in zip(levels, levels[1:], strict=False)]
        assert max(ratios) / min(ratios) < 1.001  # evenly spaced on a log scale (4-decimal rounding)


def test_every_paper_sweep_has_a_file() -> None:
    assert set(sweeps()) | {"centroid"} == set(sweep_files())
    assert {p.stem for p in EXAMPLES.glob("dynasched_sweep_*.toml")} == {
        f"dynasched_sweep_{f}" for f in sweep_files().values()}


# --------------------------------------------------------------------------- scaling (Table g-1)


def test_the_scaling_files_are_table_g1_at_the_centroid() -> None:
    rows = scaling_levels()
    assert [n for n, _ in rows] == [200, 400, 800, 1600]
    assert {p.stem for p in EXAMPLES.glob("dynasched_scale_*.toml")} == {f"dynasched_scale_{n}" for n, _ in rows}
    base = config("dynasched_scale_200")
    for jobs, horizon in rows:
        loaded = config(f"dynasched_scale_{jobs}")
        assert loaded.scale.jobs == jobs
        assert abs(loaded.scale.horizon - horizon) <= 0.5, (jobs, loaded.scale.horizon, horizon)
        assert close(loaded.arrivals.period * complexity_facts()["periods"], loaded.scale.horizon)
        # only N_J and H (and T = H/3 with it) change between levels
        assert (loaded.plant, loaded.scenarios, loaded.targets) == (base.plant, base.scenarios, base.targets)
        assert not mechanisms(loaded)  # §G.1: a static family
        points = expand(loaded)
        assert len(points) == REPLICATES and len({key(p) for p in points}) == 1


# --------------------------------------------------------------------------- complexity (§G.2, Table g-2)


COMPLEXITY = {"baseline_static": set(), "batch_only": {"batch"}, "pm_only": {"maintenance"},
              "route_only": {"route_change"},
              "full": {"breakdowns", "maintenance", "batch", "processing_time_change", "cancel", "rework",
                       "route_change", "due_date_change", "priority_change"}}


def mechanisms(loaded: DfjspConfig) -> set[str]:
    """The dynamic mechanisms a configuration switches on (breakdowns: a positive disturbance target)."""
    s = loaded.scenarios
    on = {f for f in ("batch", "processing_time_change", "cancel", "rework", "route_change", "due_date_change",
                      "priority_change") if getattr(s, f) > 0}
    if s.maintenance_interval > 0 and s.maintenance_duration > 0:
        on.add("maintenance")
    if any(p.targets.disturbance > 0 for p in expand(loaded)):
        on.add("breakdowns")
    return on


@pytest.mark.parametrize("name", sorted(COMPLEXITY))
def test_each_complexity_file_enables_exactly_its_mechanisms(name: str) -> None:
    loaded = config(f"dynasched_complexity_{name}")
    assert mechanisms(loaded) == COMPLEXITY[name]
    facts, c = complexity_facts(), centroid()
    assert loaded.scale.jobs == facts["jobs"] and abs(loaded.scale.horizon - facts["horizon"]) <= 0.5
    assert loaded.arrivals.pattern == "periodic" and loaded.arrivals.amplitude == facts["amplitude"]
    assert close(loaded.arrivals.period * facts["periods"], loaded.scale.horizon)
    points = expand(loaded)
    assert len(points) == REPLICATES and len({key(p) for p in points}) == 1
    assert all(close(getattr(points[0].targets, f), c[f]) for f in GRID_FIELDS if f != "disturbance")
    s = loaded.scenarios
    if "batch" in COMPLEXITY[name]:
        assert (s.batch, s.batch_mean) == (facts["batch"], facts["batch_mean"])
    if "maintenance" in COMPLEXITY[name]:
        assert s.maintenance_interval == round(loaded.scale.horizon / facts["pm_divisor"])
        assert (s.maintenance_duration, s.maintenance_duration_sd) == (facts["pm_mean"], facts["pm_sd"])
    if name == "route_only":
        assert s.route_change == facts["route"]


def test_full_complexity_is_table_g2() -> None:
    table = full_complexity()
    loaded = config("dynasched_complexity_full")
    s = loaded.scenarios

    def setting(prefix: str) -> list[float]:
        return numbers(next(v for k, v in table.items() if k.startswith(prefix)))

    assert {p.targets.disturbance for p in expand(loaded)} == {setting("Machine availability")[0]}
    divisor, mean, sd, _ = setting("Preventive maintenance")  # H/8; N(10, 2^2)
    assert s.maintenance_interval == round(loaded.scale.horizon / divisor)
    assert (s.maintenance_duration, s.maintenance_duration_sd) == (mean, sd)
    assert [s.batch, s.batch_mean] == setting("Batch arrivals")
    p_time, *multipliers = setting("Processing-time changes")
    assert s.processing_time_change == p_time and list(s.processing_multiplier_set) == multipliers
    assert [s.cancel] == setting("Job cancellations") and [s.rework] == setting("Rework")
    assert [s.route_change] == setting("Route changes")
    p_due, ratio = setting("Due-date changes")
    assert s.due_date_change == p_due and s.due_date_multiplier == (ratio, ratio)
    assert [s.priority_change] == setting("Priority promotions") and s.priority_mode == "promote"
    assert len(table) == 9  # every row of Table g-2 was checked above
