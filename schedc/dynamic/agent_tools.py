"""The two tools of the tool-augmented agent (OpenAI function-calling schemas and their implementations).

* ``simulate_action(action_id, steps=10)`` — branch the current simulator state (states are
  immutable snapshots, so the branch cannot disturb the episode), apply the action, then follow
  the episode's fallback rule for at most ``steps`` further decisions (1…200) or to the end. It
  returns ``completion``: when the action's operation completes in that sub-trajectory, or, if it
  has not completed by then, its start (or, while still queued, its earliest known start on the
  machine) plus its known processing time; and ``horizon_time`` / ``latest_completion``: the
  clock and the latest completion reached by the sub-trajectory. The sub-trajectory runs on the
  simulator, so it realises true durations and the events that fall inside it: the look-ahead is
  a privileged estimate, as the tool's name says.
* ``inspect_action_details(action_id)`` — every L1–L3 feature of one action
  (:mod:`schedc.dynamic.agent_obs`), whatever level the prompt shows.

A call with a missing or out-of-range ``action_id`` or with malformed arguments returns an error
text to the model (the conversation continues; the loop counts it as a tool error).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from schedc.dynamic.agent_obs import Encoded, details
from schedc.dynamic.rules import Policy
from schedc.dynamic.simulator import SimState, Simulator

MAX_STEPS = 200
DEFAULT_STEPS = 10

TOOLS: list[dict[str, Any]] = [
    {"type": "function", "function": {
        "name": "simulate_action",
        "description": "Simulate a short look-ahead after taking an action; returns the estimated completion time "
                       "of its operation (smaller is better).",
        "parameters": {"type": "object", "properties": {
            "action_id": {"type": "integer", "minimum": 1, "description": "the ActionID in the current table"},
            "steps": {"type": "integer", "minimum": 1, "maximum": MAX_STEPS,
                      "description": f"decisions to simulate after the action (default {DEFAULT_STEPS})"}},
            "required": ["action_id"], "additionalProperties": False}}},
    {"type": "function", "function": {
        "name": "inspect_action_details",
        "description": "All features (local, statistical and structural) of one action of the current table.",
        "parameters": {"type": "object", "properties": {
            "action_id": {"type": "integer", "minimum": 1, "description": "the ActionID in the current table"}},
            "required": ["action_id"], "additionalProperties": False}}},
]


@dataclass(frozen=True)
class ToolContext:
    """What a tool call may read: the simulator, the current state, the full L3 table and the rule
    the look-ahead follows."""

    sim: Simulator
    state: SimState
    table: Encoded
    rule: Policy


class ToolError(ValueError):
    """A call the model got wrong (reported back to it)."""


def call_tool(ctx: ToolContext, name: str, arguments: str) -> tuple[str, bool]:
    """(the tool's reply as JSON text, whether the call was well-formed)."""
    try:
        args = json.loads(arguments or "{}")
        if not isinstance(args, dict):
            raise ToolError("arguments must be a JSON object")
        if name == "simulate_action":
            result = simulate_action(ctx, _action_id(ctx, args), _steps(args))
        elif name == "inspect_action_details":
            result = details(ctx.table, _action_id(ctx, args))
        else:
            raise ToolError(f"unknown tool {name!r}; tools: simulate_action, inspect_action_details")
    except json.JSONDecodeError as exc:
        return json.dumps({"error": f"arguments are not JSON: {exc.msg}"}), False
    except ToolError as exc:
        return json.dumps({"error": str(exc)}), False
    return json.dumps(result), True


def _action_id(ctx: ToolContext, args: dict[str, Any]) -> int:
    value = args.get("action_id")
    if isinstance(value, bool) or not isinstance(value, int):
        raise ToolError("action_id must be an integer")
    if not 1 <= value <= len(ctx.table.actions):
        raise ToolError(f"action_id {value} is out of range 1..{len(ctx.table.actions)}")
    return value


def _steps(args: dict[str, Any]) -> int:
    value = args.get("steps", DEFAULT_STEPS)
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_STEPS:
        raise ToolError(f"steps must be an integer in 1..{MAX_STEPS}")
    return value


def simulate_action(ctx: ToolContext, action_id: int, steps: int = DEFAULT_STEPS) -> dict[str, Any]:
    """The look-ahead of the module docstring, from the (unchanged) current state."""
    sim = ctx.sim
    op, machine = ctx.table.actions[action_id - 1]
    base = _count(ctx.state)
    state = sim.step(ctx.state, op, machine)
    taken = 0
    while not state.done and taken < steps and _end_of(state, base, op) is None:
        state = sim.step(state, *ctx.rule.choose(sim, state))
        taken += 1
    new = _runs_after(state, base)
    end = _end_of(state, base, op)
    return {"action_id": action_id, "op": sim.ops[op].name, "machine": sim.machine_names[machine],
            "completion": end if end is not None else _estimated_end(sim, state, op, machine),
            "steps_simulated": taken, "horizon_time": state.time,
            "latest_completion": max((run.end for run in new), default=state.time)}


def _count(state: SimState) -> int:
    return sum(len(chunk) for chunk in state.completed_chunks)


def _runs_after(state: SimState, base: int) -> list[Any]:
    """The runs completed after the first ``base`` ones (walks chunk sizes, copies only the new runs)."""
    out: list[Any] = []
    seen = 0
    for chunk in state.completed_chunks:
        if seen + len(chunk) > base:
            out += chunk[max(0, base - seen):]
        seen += len(chunk)
    return out


def _end_of(state: SimState, base: int, op: int) -> int | None:
    return next((run.end for run in _runs_after(state, base) if run.op == op), None)


def _estimated_end(sim: Simulator, state: SimState, op: int, machine: int) -> int:
    """Known estimate of the operation's end: running → start + p; queued (or back in the pool) → after
    the work committed ahead of it, clear of known outages."""
    t, ms = state.time, state.machines[machine]
    p = sim.estimate(op, machine, t)
    if ms.run is not None and ms.run.op == op:
        return ms.run.start + p
    ahead = ms.queue[: ms.queue.index(op)] if op in ms.queue else ms.queue
    free = t if ms.run is None else max(t, ms.run.start + sim.estimate(ms.run.op, machine, t))
    ready = free + sum(sim.estimate(o, machine, t) for o in ahead)
    return sim.earliest_start(machine, ready, p, t) + p
