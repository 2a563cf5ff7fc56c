"""Two classic random schemes, as ordinary ``.sched`` instances.

``wt``: single-machine total weighted tardiness (1||Σw_jT_j) as Potts and Van Wassenhove (1985) generate
it, the scheme of OR-Library's wt40/wt50/wt100 files: for n jobs, processing times ``p_j ~ U[1, 100]``,
weights ``w_j ~ U[1, 10]`` and, with ``P = Σ p_j``, due dates ``d_j ~ U[P(1 − TF − RDD/2),
P(1 − TF + RDD/2)]`` for a tardiness factor TF and a range of due dates RDD (both in
{0.2, 0.4, 0.6, 0.8, 1.0} in OR-Library). Integers are drawn inclusively; a lower bound below 0 is
raised to 0 (due dates are non-negative in the language).

``sdst``: unrelated parallel machines with machine- and sequence-dependent setup times
(R|S_ijk|C_max) after Vallada and Ruiz (2011): ``p_ij ~ U[1, 99]`` for every job j on every machine i,
and for every machine i and ordered pair of distinct jobs (j, k) a setup time
``S_ijk ~ U[1, SMAX]``, SMAX one of 9, 49, 99, 124 in their benchmark. The setup sits on the machine
between j and k when k directly follows j there (the ``setup_times`` kind).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from schedc.core.diagnostics import SchedcError


@dataclass(frozen=True)
class WtParams:
    """Parameters of the ``wt`` scheme."""

    jobs: int = 40
    tf: float = 0.6
    rdd: float = 0.6


@dataclass(frozen=True)
class SdstParams:
    """Parameters of the ``sdst`` scheme."""

    jobs: int = 10
    machines: int = 2
    setup_max: int = 49


def _rng(scheme: str, params: object, seed: int) -> random.Random:
    # a string seed goes through SHA-512 in random.Random: stable across runs and platforms (no hash())
    return random.Random(f"{scheme}:{params!r}:{seed}")


def _check(condition: bool, message: str) -> None:
    if not condition:
        raise SchedcError.at("E130", message)


def wt_instance(params: WtParams, seed: int) -> str:
    """The ``.sched`` text of one weighted-tardiness instance (family ``single_machine``)."""
    _check(params.jobs >= 1, f"--jobs must be at least 1, got {params.jobs}")
    _check(0 <= params.tf <= 1 and 0 <= params.rdd <= 1, "--tf and --rdd must lie in [0, 1]")
    rng = _rng("wt", params, seed)
    p = [rng.randint(1, 100) for _ in range(params.jobs)]
    w = [rng.randint(1, 10) for _ in range(params.jobs)]
    total = sum(p)
    low = max(0, round(total * (1 - params.tf - params.rdd / 2)))
    high = max(low, round(total * (1 - params.tf + params.rdd / 2)))
    d = [rng.randint(low, high) for _ in range(params.jobs)]
    name = f"wt{params.jobs}_tf{_tag(params.tf)}_rdd{_tag(params.rdd)}_s{seed}"
    lines = [f"# Potts and Van Wassenhove (1985) weighted tardiness scheme: n={params.jobs}, TF={params.tf}, "
             f"RDD={params.rdd}, seed {seed}; due dates from U[{low}, {high}] (P = {total}).",
             f"instance {name} family single_machine",
             "meta {", f'  source "schedc generate-classic wt --seed {seed}"', "}",
             "resources table", "  M1 unary", "end", "jobs table"]
    lines += [f"  J{j} M1:{p[j - 1]}" for j in range(1, params.jobs + 1)]
    lines += ["end", "hard unary_no_overlap machine", "hard mode_choice modes",
              "hard time_window due_dates table  # job, release, deadline, due date and weight"]
    lines += [f"  J{j} 0 due={d[j - 1]} weight={w[j - 1]}" for j in range(1, params.jobs + 1)]
    lines += ["end", "minimize tardiness"]
    return "\n".join(lines) + "\n"


def sdst_instance(params: SdstParams, seed: int) -> str:
    """The ``.sched`` text of one unrelated-parallel-machine instance with setups (``parallel_machines``)."""
    _check(params.jobs >= 1 and params.machines >= 1, "--jobs and --machines must be at least 1")
    _check(params.setup_max >= 1, f"--setup-max must be at least 1, got {params.setup_max}")
    rng = _rng("sdst", params, seed)
    machines = [f"M{i}" for i in range(1, params.machines + 1)]
    p = {(m, j): rng.randint(1, 99) for j in range(1, params.jobs + 1) for m in machines}
    name = f"sdst{params.jobs}x{params.machines}_s{params.setup_max}_s{seed}"
    lines = [f"# Vallada and Ruiz (2011) scheme: {params.jobs} jobs, {params.machines} unrelated machines, "
             f"p ~ U[1, 99], setups ~ U[1, {params.setup_max}], seed {seed}.",
             f"instance {name} family parallel_machines",
             "meta {", f'  source "schedc generate-classic sdst --seed {seed}"', "}",
             "resources table", *[f"  {m} unary" for m in machines], "end", "jobs table"]
    lines += [f"  J{j} " + "/".join(f"{m}:{p[m, j]}" for m in machines) for j in range(1, params.jobs + 1)]
    lines += ["end", "hard unary_no_overlap machines", "hard mode_choice modes",
              "hard setup_times changeovers table  # machine, job before, job after, setup time"]
    for m in machines:
        lines += [f"  {m} J{j}.1 J{k}.1 {rng.randint(1, params.setup_max)}"
                  for j in range(1, params.jobs + 1) for k in range(1, params.jobs + 1) if j != k]
    lines += ["end", "minimize makespan"]
    return "\n".join(lines) + "\n"


def _tag(value: float) -> str:
    return f"{round(value * 10):02d}"


SCHEMES: dict[str, Callable[..., str]] = {"wt": wt_instance, "sdst": sdst_instance}


def generate(scheme: str, params: WtParams | SdstParams, seed: int, count: int, out: Path) -> list[Path]:
    """Write ``count`` instances of ``scheme`` (seeds ``seed .. seed + count − 1``) into ``out``."""
    _check(scheme in SCHEMES, f"unknown scheme {scheme!r}; schemes: {', '.join(SCHEMES)}")
    _check(count >= 1, f"--count must be at least 1, got {count}")
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for s in range(seed, seed + count):
        text = SCHEMES[scheme](params, s)
        path = out / f"{text.split('instance ', 1)[1].split()[0]}.sched"
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written
