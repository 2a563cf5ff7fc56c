"""``schedc agent-run``: every preset on every instance of a set, resumable, with the paper's summary table.

Instances: a ``.world.json`` / ``.sched`` file, or a folder (e.g. the output of ``schedc subset``)
whose ``*.world.json`` files are taken, and its ``*.sched`` files that have no ``.world.json``
beside them; the instance key is the file name without that suffix.

Files in OUT:

* ``rules.jsonl`` — per instance the makespan of each of the 24 composite dispatching rules
  (:data:`schedc.dynamic.rules.RULE_NAMES`), one line each, computed once;
* ``episodes.jsonl`` — one line per (instance, preset) episode, appended as each one finishes
  (makespan, the gap, tokens, fallbacks, violations, the agent configuration). A rerun skips the
  pairs already there; an episode in which the endpoint answered no request at all is not
  written (it says nothing about the model) and stops the run;
* ``summary.json`` and ``summary.md`` — :func:`summarise` over every episode in the file.

The **gap** of an episode is 100 · (C_max − C*) / C* with C* the least makespan of the 24 rules on
the same instance (the paper measures against the best schedule observed on the instance, which
moves when more methods run; the rules' best does not, so gaps stay comparable across reruns).
Per preset the summary gives, over its instances: mean, p50, p90, p95 (``numpy.percentile``,
linear) and SE (sample standard deviation / √n) of the gap in %, tokens (prompt + completion, from
the endpoint's ``usage``), fallbacks, and paired tests against two *fixed* rules (as the paper's
Table 5: "the best heuristic is the single fixed rule, not a per-instance oracle"): the rule with the
least mean gap over the run's instances and the median one (rank 13 of 24 by mean gap, as
``benchmarks/dfjsp_rules.py``): mean paired difference Δ in percentage points (negative: the agent
is better) and the two-sided Wilcoxon signed-rank p-value (``scipy.stats.wilcoxon``; 1.0 when every
difference is 0, none with no pairs). The best, median and worst rule get rows of their own.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from schedc.bench.run import Settings
from schedc.core.diagnostics import SchedcError
from schedc.dynamic.api import WORLD_SUFFIX

EPISODES, RULES, SUMMARY_JSON, SUMMARY_MD = "episodes.jsonl", "rules.jsonl", "summary.json", "summary.md"


@dataclass
class RunReport:
    """What a run did: episodes run now, pairs skipped as already done, and the summary."""

    ran: int = 0
    skipped: int = 0
    unanswered: str | None = None  # the (instance, preset) whose endpoint answered nothing: the run stopped there
    summary: dict[str, Any] = field(default_factory=dict)


def instance_files(path: Path) -> list[tuple[str, Path]]:
    """(key, file) of every instance under ``path`` (module docstring), by key."""
    if path.is_file():
        return [(_key(path), path)]
    if not path.is_dir():
        raise SchedcError.at("E806", f"{path}: no such file or folder", file=str(path))
    found = {_key(p): p for p in path.glob("*.sched")}
    found |= {_key(p): p for p in path.glob("*" + WORLD_SUFFIX)}  # a world beside its .sched wins
    if not found:
        raise SchedcError.at("E806", f"{path}: no .world.json or .sched instances in this folder", file=str(path))
    return sorted(found.items())


def _key(path: Path) -> str:
    return path.name.removesuffix(WORLD_SUFFIX).removesuffix(".sched")


def run_presets(instances: Path, presets: Sequence[str], model: str, settings: Settings, out: Path, *,
                max_tool_rounds: int = 4, max_tokens: int | None = None, fallback: str = "SPT+LIT",
                progress: Callable[[dict[str, Any]], None] | None = None) -> RunReport:
    """Run each preset on each instance into ``out`` (module docstring); ``progress`` gets each new record."""
    from schedc.dynamic.agent import count_violations, run_episode
    from schedc.dynamic.api import load_world, rollout_answer
    from schedc.dynamic.presets import agent_config, preset, resolve

    names = [preset(name).name for name in presets]  # every name checked before anything runs
    if not names:
        raise SchedcError.at("E906", "no preset given", file="--preset", hint="schedc agent --list-presets")
    configs = {name: agent_config(resolve(name, {}), model, max_tool_rounds=max_tool_rounds, max_tokens=max_tokens,
                                  fallback=fallback, seed=settings.seed) for name in names}
    files = instance_files(instances)
    out.mkdir(parents=True, exist_ok=True)
    rules = {r["instance"]: r for r in read_jsonl(out / RULES)}
    done = {(e["instance"], e["preset"]) for e in read_jsonl(out / EPISODES)}
    report = RunReport()
    for key, path in files:
        world = None
        if key not in rules:
            world = load_world(path)
            rules[key] = {"instance": key, "file": str(path), "makespans": rule_makespans(world)}
            append_jsonl(out / RULES, rules[key])
        for name in names:
            if (key, name) in done:
                report.skipped += 1
                continue
            if world is None:
                world = load_world(path)
            episode = run_episode(world, configs[name], settings)
            if episode.unanswered:
                report.unanswered = f"{key} / {name}: {episode.transport_error}"
                report.summary = summarise(out)
                return report
            record = episode.record() | {"instance": key, "preset": name, "file": str(path),
                                         "violations": count_violations(world, rollout_answer(world, episode.rollout))}
            makespans = rules[key]["makespans"]
            best = min(makespans, key=makespans.__getitem__)  # the first of equals, in rule order
            record |= {"best_rule": best, "best_rule_makespan": makespans[best],
                       "gap": gap(episode.rollout.makespan, makespans[best]),
                       "tokens": episode.usage["prompt_tokens"] + episode.usage["completion_tokens"]}
            append_jsonl(out / EPISODES, record)
            done.add((key, name))
            report.ran += 1
            if progress is not None:
                progress(record)
    report.summary = summarise(out)
    return report


def rule_makespans(world: Any) -> dict[str, int]:
    """Makespan of each of the 24 composite rules on ``world`` (in rule order)."""
    from schedc.dynamic.rules import RULE_NAMES, simulate
    from schedc.dynamic.simulator import Simulator

    sim = Simulator(world)
    return {rule: simulate(sim, rule).makespan for rule in RULE_NAMES}


def gap(makespan: float, best: float) -> float:
    """100 · (makespan − best) / best (0 when best is 0: an empty shop)."""
    return 100.0 * (makespan - best) / best if best > 0 else 0.0


# --------------------------------------------------------------------------- JSON Lines


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """The records of a JSON Lines file (none when it does not exist). A last line cut short by an
    interrupted write is dropped from the file, so that appending continues on a clean line."""
    if not path.exists():
        return []
    text = path.read_text(encoding="utf-8")
    if text and not text.endswith("\n"):
        text = text[: text.rfind("\n") + 1]
        path.write_text(text, encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def append_jsonl(path: Path, record: dict[str, Any]) -> None:
    """Append one record and flush it to the file."""
    with path.open("a", encoding="utf-8") as stream:
        stream.write(json.dumps(record, ensure_ascii=False) + "\n")
        stream.flush()


# --------------------------------------------------------------------------- summary


def summarise(out: Path) -> dict[str, Any]:
    """The summary of the run in ``out`` (module docstring), also written as summary.json / summary.md."""
    summary = summary_of(read_jsonl(out / RULES), read_jsonl(out / EPISODES))
    (out / SUMMARY_JSON).write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    (out / SUMMARY_MD).write_text(markdown(summary) + "\n", encoding="utf-8")
    return summary


def summary_of(rules: Sequence[dict[str, Any]], episodes: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Rows per preset (in order of first appearance) and for the best, median and worst fixed rule.

    ``rules``: records ``{"instance", "makespans": {rule: C_max}}``; ``episodes``: records with
    ``instance``, ``preset``, ``makespan``, ``tokens`` and ``fallback_total``."""
    spans = {r["instance"]: r["makespans"] for r in rules}
    instances = sorted(spans)
    if not instances:
        return {"instances": 0, "rules": {}, "presets": []}
    names = list(spans[instances[0]])
    rule_gaps = {rule: {i: gap(spans[i][rule], min(spans[i].values())) for i in instances} for rule in names}
    ranked = sorted(names, key=lambda r: (_mean(list(rule_gaps[r].values())), names.index(r)))
    fixed = {"best": ranked[0], "median": ranked[len(ranked) // 2], "worst": ranked[-1]}
    rows: dict[str, dict[str, Any]] = {}
    for label, rule in fixed.items():
        rows[label] = {"rule": rule, **_stats(list(rule_gaps[rule].values()))}
    presets: list[dict[str, Any]] = []
    order = list(dict.fromkeys(e["preset"] for e in episodes))
    for name in order:
        mine = {e["instance"]: e for e in episodes if e["preset"] == name and e["instance"] in spans}
        gaps = {i: gap(e["makespan"], min(spans[i].values())) for i, e in sorted(mine.items())}
        row: dict[str, Any] = {"preset": name, **_stats(list(gaps.values())),
                               "tokens": sum(e["tokens"] for e in mine.values()),
                               "fallbacks": sum(e["fallback_total"] for e in mine.values())}
        for label in ("best", "median"):
            theirs = [rule_gaps[fixed[label]][i] for i in gaps]
            row[f"vs_{label}"] = paired(list(gaps.values()), theirs)
        presets.append(row)
    return {"instances": len(instances), "rules": rows, "presets": presets}


def paired(a: Sequence[float], b: Sequence[float]) -> dict[str, Any]:
    """Mean paired difference a − b (percentage points) and the two-sided Wilcoxon signed-rank p-value."""
    if not a:
        return {"delta": None, "p": None}
    diffs = [x - y for x, y in zip(a, b, strict=True)]
    if all(d == 0 for d in diffs):
        return {"delta": 0.0, "p": 1.0}
    from scipy.stats import wilcoxon

    return {"delta": _mean(diffs), "p": float(wilcoxon(a, b).pvalue)}


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else math.nan


def _stats(values: Sequence[float]) -> dict[str, Any]:
    """n, mean, p50, p90, p95 and SE of gaps in % (None where there are no values)."""
    import numpy as np

    n = len(values)
    if n == 0:
        return {"n": 0, "mean": None, "p50": None, "p90": None, "p95": None, "se": None}
    p50, p90, p95 = (float(v) for v in np.percentile(values, [50, 90, 95]))
    se = float(np.std(values, ddof=1) / math.sqrt(n)) if n > 1 else None
    return {"n": n, "mean": _mean(values), "p50": p50, "p90": p90, "p95": p95, "se": se}


def markdown(summary: dict[str, Any]) -> str:
    """The summary as two Markdown tables: presets (Tables 3, 4 and 6 columns) and the fixed rules (Table 5)."""
    def num(value: Any, digits: int = 2) -> str:
        return "–" if value is None else f"{value:.{digits}f}"

    def pval(value: Any) -> str:
        return "–" if value is None else f"{value:.3g}"

    rules = summary.get("rules", {})
    lines = [f"{summary.get('instances', 0)} instances; gap = 100 · (C_max − best rule's C_max) / best rule's C_max",
             "", "| preset | n | tokens (10^6) | mean gap % | p50 | p90 | p95 | SE % | fallbacks | Δ vs best rule "
             f"{rules.get('best', {}).get('rule', '')} (pp) | Wilcoxon p | Δ vs median rule "
             f"{rules.get('median', {}).get('rule', '')} (pp) | Wilcoxon p |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in summary.get("presets", []):
        lines.append(f"| {r['preset']} | {r['n']} | {r['tokens'] / 1e6:.3f} | {num(r['mean'])} | {num(r['p50'])} | "
                     f"{num(r['p90'])} | {num(r['p95'])} | {num(r['se'], 4)} | {r['fallbacks']} | "
                     f"{num(r['vs_best']['delta'], 3)} | {pval(r['vs_best']['p'])} | "
                     f"{num(r['vs_median']['delta'], 3)} | {pval(r['vs_median']['p'])} |")
    lines += ["", "| heuristic | rule | n | mean gap % | p50 | p90 | p95 | SE % |",
              "|---|---|---:|---:|---:|---:|---:|---:|"]
    for label, r in rules.items():
        lines.append(f"| {label} | {r['rule']} | {r['n']} | {num(r['mean'])} | {num(r['p50'])} | {num(r['p90'])} | "
                     f"{num(r['p95'])} | {num(r['se'], 4)} |")
    return "\n".join(lines)
