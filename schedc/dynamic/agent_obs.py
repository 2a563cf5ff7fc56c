"""What an LLM scheduling agent sees at a decision epoch: the action table at level L1, L2 or L3.

At a decision point of :mod:`schedc.dynamic.simulator` the admissible actions are the pairs
(candidate operation ``o``, machine ``m`` known eligible for ``o``); they are numbered 1…K in the
simulator's order (:meth:`~schedc.dynamic.simulator.Simulator.admissible`). Every level extends
the previous one; ``t`` is the decision time and everything is what the dispatcher knows at ``t``
unless it is marked as a prior:

* **L1** (local): per action ``op``, ``job``, ``step``, ``group``, ``machine``, ``proc_time``
  (the known estimate p(o,m)), ``machine_status`` (idle | busy | committed | down) and
  ``available_from`` (A(m): the estimated end of m's committed work, t when m is idle); in the
  header ``time``, ``decision`` (1-based epoch number), ``jobs_known``, ``jobs_done``.
* **L2** (statistical): per action ``group_queue`` (operations waiting for m's group: ready
  uncommitted operations of that group plus the committed queues of its machines), ``slack``
  (the job's slack factor (d_j − t − W_j)/W_j with W_j the mean-estimate remaining work of its
  known operations and d_j the due date known now), ``weight`` (known now) and
  ``ops_remaining``; in the header ``events``: counts of what has happened so far (arrivals,
  information events by type, outages by cause, aborted runs).
* **L3** (structural, generator-side priors that an online dispatcher could not measure):
  per action ``bottleneck_score`` of m's group (ρ_g / max_g' ρ_g' with ρ_g the group
  utilisation of the whole realised world, :mod:`schedc.dynamic.metrics`); in the header
  ``targets``, the calibration targets the world was generated for (``World.meta``; empty when
  the world does not carry them).

:class:`EventCounter` reads the trajectory log incrementally (only the entries added since the
previous epoch), so the L2 counts cost O(new entries) per decision.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Literal
from xml.sax.saxutils import escape, quoteattr

from schedc.dynamic.simulator import SimState, Simulator

Level = Literal["L1", "L2", "L3"]
Format = Literal["text", "xml"]
LEVELS: tuple[str, ...] = ("L1", "L2", "L3")
FORMATS: tuple[str, ...] = ("text", "xml")

L1_COLUMNS = ("action_id", "op", "job", "step", "group", "machine", "proc_time", "machine_status", "available_from")
L2_COLUMNS = ("group_queue", "slack", "weight", "ops_remaining")
L3_COLUMNS = ("bottleneck_score",)


@dataclass(frozen=True)
class Priors:
    """Generator-side facts of the world (L3): bottleneck score per group and the targets."""

    bottleneck: dict[str, float]
    targets: dict[str, Any]

    @staticmethod
    def of(sim: Simulator) -> Priors:
        from schedc.dynamic.metrics import compute_metrics

        rho = compute_metrics(sim.world).group_utilisation
        top = max(rho.values(), default=0.0)
        scores = {g: round(v / top, 3) if top > 0 else 0.0 for g, v in sorted(rho.items())}
        raw = sim.world.meta.get("targets", "")
        try:
            targets = json.loads(raw) if raw else {}
        except json.JSONDecodeError:
            targets = {}  # a hand-written meta entry that is not JSON is not a prior we can state
        return Priors(scores, {k: v for k, v in targets.items() if v is not None and v != []})


@dataclass
class EventCounter:
    """Counts of logged happenings up to the current state, read incrementally from the log chunks."""

    counts: Counter[str] = field(default_factory=Counter)
    chunk: int = 0
    pos: int = 0

    def update(self, state: SimState) -> dict[str, int]:
        """Count the entries logged since the last call (states must come from one trajectory)."""
        chunks = state.log_chunks
        while self.chunk < len(chunks):
            entries = chunks[self.chunk]
            for entry in entries[self.pos:]:
                key = _event_key(entry.kind, entry.detail)
                if key:
                    self.counts[key] += 1
            if self.chunk == len(chunks) - 1:
                self.pos = len(entries)
                break
            self.chunk, self.pos = self.chunk + 1, 0
        return dict(sorted(self.counts.items()))


def _event_key(kind: str, detail: str) -> str | None:
    if kind == "arrival":
        return "arrivals"
    if kind == "event":
        return detail.split(" ", 1)[0]
    if kind == "outage":
        return detail.split(" ", 1)[0] + "s"
    if kind == "abort":
        return "aborted_runs"
    return None


@dataclass(frozen=True)
class Encoded:
    """One observation: header facts and one row per admissible action (``actions[i]`` is ID i+1)."""

    level: str
    header: dict[str, Any]
    columns: tuple[str, ...]
    rows: tuple[dict[str, Any], ...]
    actions: tuple[tuple[int, int], ...]


def columns_of(level: str, bottleneck: bool = False) -> tuple[str, ...]:
    """The table columns of a level (``bottleneck`` adds the L3 score column to L1/L2)."""
    cols = L1_COLUMNS + (L2_COLUMNS if level in ("L2", "L3") else ())
    return cols + (L3_COLUMNS if level == "L3" or bottleneck else ())


def encode(sim: Simulator, state: SimState, level: str, events: dict[str, int], priors: Priors | None,
           bottleneck: bool = False) -> Encoded:
    """The observation of ``state`` at ``level`` (see the module docstring)."""
    t = state.time
    actions = sim.admissible(state)
    header: dict[str, Any] = {"time": t, "decision": state.decisions + 1,
                              "jobs_known": sum(1 for s in state.status if s != 0),
                              "jobs_done": sum(1 for j, info in enumerate(sim.jobs)
                                               if state.status[j] != 0 and state.next_step[j] == len(info.ops))}
    queues = _group_queues(sim, state) if level != "L1" else {}
    if level != "L1":
        header["events"] = events
    if level == "L3" and priors is not None:
        header["targets"] = priors.targets
    cols = columns_of(level, bottleneck)
    rows = tuple(_row(sim, state, i + 1, op, m, level, queues, priors, bottleneck) for i, (op, m) in enumerate(actions))
    return Encoded(level, header, cols, rows, actions)


def _row(sim: Simulator, state: SimState, action_id: int, op: int, m: int, level: str, queues: dict[str, int],
         priors: Priors | None, bottleneck: bool) -> dict[str, Any]:
    t, info = state.time, sim.ops[op]
    job = sim.jobs[info.job]
    operation = job.job.operations[info.pos]
    group = sim.world.machines[m].group
    row: dict[str, Any] = {"action_id": action_id, "op": info.name, "job": job.job.name, "step": operation.step,
                           "group": operation.group, "machine": sim.machine_names[m],
                           "proc_time": sim.estimate(op, m, t), "machine_status": machine_status(sim, state, m),
                           "available_from": sim.ready_at(state, m)}
    if level != "L1":
        count, work = sim.remaining(op, t)
        row |= {"group_queue": queues.get(group, 0), "slack": slack_factor(sim.due(info.job, t), t, work),
                "weight": sim.weight(info.job, t), "ops_remaining": count}
    if (level == "L3" or bottleneck) and priors is not None:
        row["bottleneck_score"] = priors.bottleneck.get(group, 0.0)
    return row


def slack_factor(due: int, t: int, work: float) -> float:
    """(d − t − W)/W, rounded to 3 decimals; with no remaining work, d − t."""
    return round((due - t - work) / work, 3) if work > 0 else float(due - t)


def machine_status(sim: Simulator, state: SimState, m: int) -> str:
    """down | busy | committed | idle, as in the environment's L2 observation."""
    ms = state.machines[m]
    if sim.down(m, state.time):
        return "down"
    return "busy" if ms.run is not None else "committed" if ms.queue else "idle"


def _group_queues(sim: Simulator, state: SimState) -> dict[str, int]:
    counts: Counter[str] = Counter()
    for entry in state.pool:
        info = sim.ops[entry.op]
        counts[sim.jobs[info.job].job.operations[info.pos].group] += 1
    for m, ms in enumerate(state.machines):
        counts[sim.world.machines[m].group] += len(ms.queue)
    return dict(counts)


# --------------------------------------------------------------------------- rendering


def render(obs: Encoded, fmt: str = "text", xml_priors: bool = False) -> str:
    """The observation as text (a summary and a Markdown table) or as XML."""
    return _xml(obs) if fmt == "xml" else _text(obs, xml_priors)


def _value(v: Any) -> str:
    return f"{v:g}" if isinstance(v, float) else str(v)


def _text(obs: Encoded, xml_priors: bool) -> str:
    h = obs.header
    lines = [f"Decision {h['decision']} at time {h['time']} ({obs.level} observation); "
             f"jobs known {h['jobs_known']}, done {h['jobs_done']}."]
    if "events" in h:
        shown = ", ".join(f"{k} {v}" for k, v in h["events"].items()) or "none"
        lines.append(f"Events so far: {shown}.")
    if h.get("targets"):
        if xml_priors:
            lines += ["<Global_Priors>", *(f"  <{k}>{escape(json.dumps(v))}</{k}>" for k, v in h["targets"].items()),
                      "</Global_Priors>", "(Background design priors of the generator; they need not hold now.)"]
        else:
            lines.append("Calibration targets: " + ", ".join(f"{k} {json.dumps(v)}" for k, v in h["targets"].items())
                         + ".")
    lines.append(f"Admissible actions ({len(obs.rows)}):")
    lines.append("| " + " | ".join(obs.columns) + " |")
    lines.append("|" + "---|" * len(obs.columns))
    lines += ["| " + " | ".join(_value(row.get(c, "")) for c in obs.columns) + " |" for row in obs.rows]
    return "\n".join(lines)


def _xml(obs: Encoded) -> str:
    h = obs.header
    out = [f'<observation level="{obs.level}" decision="{h["decision"]}" time="{h["time"]}" '
           f'jobs_known="{h["jobs_known"]}" jobs_done="{h["jobs_done"]}">']
    if "events" in h:
        out.append("  <events " + " ".join(f"{k}={quoteattr(str(v))}" for k, v in h["events"].items()) + "/>")
    if h.get("targets"):
        out.append("  <targets>" + "".join(f"<{k}>{escape(json.dumps(v))}</{k}>" for k, v in h["targets"].items())
                   + "</targets>")
    out.append("  <actions>")
    for row in obs.rows:
        attrs = " ".join(f"{c}={quoteattr(_value(row[c]))}" for c in obs.columns if c in row)
        out.append(f"    <action {attrs}/>")
    out += ["  </actions>", "</observation>"]
    return "\n".join(out)


def details(obs: Encoded, action_id: int) -> dict[str, Any]:
    """Every L1–L3 feature of one action (for ``inspect_action_details``)."""
    return dict(obs.rows[action_id - 1])
