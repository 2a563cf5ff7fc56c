"""The prompts of the LLM scheduling agent and how its answers are read.

Modes (what the system prompt asks for):

* ``direct`` — only the answer ``{"action_id": <ID>}``;
* ``cot`` — reasoning first, then the answer as the last line;
* ``tool`` — the answer after any number of calls of ``simulate_action`` / ``inspect_action_details``
  (:mod:`schedc.dynamic.agent_tools`).

Mechanism-ablation variants (the prompt manipulations of DynaSchedBench's Table j-1), each
applied on top of the chosen level: ``padding`` (neutral filler text until the prompt is as long
as the L3 prompt of the same decision: does length alone change behaviour?), ``targets`` (the
L3 calibration targets added to an L1/L2 prompt), ``bottleneck`` (the L3 bottleneck-score column
added to an L1/L2 prompt) and ``xml-priors`` (L3 priors as an XML block marked as background).

Few-shot examples (:func:`few_shot_messages`, ``--few-shot K``): K fixed worked exchanges (a
user turn with a small made-up observation at the episode's level and format, an assistant turn
answering it in the mode's style) placed between the system message and the real observation.
They were written for schedc (the paper's Table 5 protocol uses two, without publishing them):
example 1 takes the shorter of two processing times on idle machines over a busy machine; example
2 avoids a machine that is down and, of two near-equal options on one idle machine, advances the
job further along its route (at L2/L3 also the one with less slack and more weight).

Reading an answer (:func:`parse_action`): the *last* ``"action_id": N`` (JSON, quotes optional)
or ``ACTION: N`` in the text; none is *unparseable*, an ID outside 1…K *inadmissible*.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from schedc.dynamic.agent_obs import Encoded, columns_of, render

MODES: tuple[str, ...] = ("direct", "cot", "tool")
VARIANTS: tuple[str, ...] = ("padding", "targets", "bottleneck", "xml-priors")

_ROLE = ("You dispatch a dynamic flexible job shop online. Jobs arrive over time, machines break down and "
         "data change while the shop runs. At each decision epoch you see the admissible actions: start (or "
         "commit to a machine's queue) one ready operation on one machine. Objective: {objective}. Prefer "
         "short queues on bottlenecks, keep machines busy, and protect jobs with little slack.\n"
         "Columns: proc_time = known processing time on that machine; available_from = when the machine is "
         "estimated to finish its committed work; machine_status = idle | busy | committed | down.{extra}")
_L2_COLUMNS = ("\ngroup_queue = operations waiting for the machine's group; slack = (due − now − remaining work) / "
               "remaining work of the job; weight = tardiness weight; ops_remaining = known operations left.")
_L3_COLUMNS = ("\nbottleneck_score = long-run utilisation of the machine's group relative to the busiest group "
               "(a generator-side prior); targets = the calibration targets the shop was generated for.")
_ANSWER = 'Answer with the chosen action as JSON: {"action_id": <ID>}.'
_INSTRUCTIONS = {
    "direct": "Reply with nothing but the JSON answer. " + _ANSWER,
    "cot": "Think step by step about queues, slack and machine availability, then give the answer as the last "
           "line. " + _ANSWER,
    "tool": "You may call simulate_action (a short simulated look-ahead from the current state: estimated "
            "completion time of the action) and inspect_action_details (all features of one action) before "
            "answering. " + _ANSWER,
}
_AUDITOR = ("You audit a dispatching decision. The proposed action is {proposal}. Check it against the "
            "observation: is it admissible, does it waste an idle machine, delay a job with little slack or "
            "feed an overloaded group needlessly? If it is sound keep it, otherwise pick a better one. "
            + _ANSWER)
_PADDING = ("Note (background, not part of the state): dispatching in job shops has been studied for decades; "
            "priority rules, look-ahead and bottleneck analysis are common tools, and their merits depend on the "
            "shop. ")

_ACTION_JSON = re.compile(r'"?action_id"?\s*[:=]\s*"?(-?\d+)')
_ACTION_LINE = re.compile(r"\bACTION\s*[:=]\s*(-?\d+)", re.IGNORECASE)


def system_prompt(mode: str, level: str, objective: str, bottleneck: bool = False) -> str:
    """The system message of a mode at a level (the column glossary covers the columns shown)."""
    extra = (_L2_COLUMNS if level in ("L2", "L3") else "") + (_L3_COLUMNS if level == "L3" or bottleneck else "")
    goal = "minimise the makespan" if objective == "makespan" else "minimise the total weighted tardiness"
    return _ROLE.format(objective=goal, extra=extra) + "\n" + _INSTRUCTIONS[mode]


def user_prompt(obs: Encoded, fmt: str, variants: Sequence[str] = (), l3: Encoded | None = None) -> str:
    """The observation message. ``l3`` (the same state at L3) is needed by ``padding`` and ``targets``."""
    xml_priors = "xml-priors" in variants
    text = render(obs, fmt, xml_priors)
    if "targets" in variants and obs.level != "L3" and l3 is not None and l3.header.get("targets"):
        text += "\nCalibration targets: " + ", ".join(f"{k} {v}" for k, v in l3.header["targets"].items()) + "."
    if "padding" in variants and l3 is not None:
        text = pad_to(text, len(render(l3, fmt, xml_priors)))
    return text


def pad_to(text: str, length: int) -> str:
    """``text`` followed by neutral filler up to ``length`` characters (unchanged when already as long)."""
    missing = length - len(text)
    if missing <= 1:
        return text
    filler = (_PADDING * (missing // len(_PADDING) + 1))[: missing - 1]
    return text + "\n" + filler


def auditor_prompt(proposal: int) -> str:
    """The reflection round's user message."""
    return _AUDITOR.replace("{proposal}", str(proposal))


def parse_action(text: str | None) -> int | None:
    """The action ID an answer names (its last mention), or None."""
    if not text:
        return None
    found = [(m.start(), int(m.group(1))) for rx in (_ACTION_JSON, _ACTION_LINE) for m in rx.finditer(text)]
    return max(found)[1] if found else None


def messages(system: str, user: str, shots: Sequence[dict[str, Any]] = ()) -> list[dict[str, Any]]:
    """A fresh conversation (with the few-shot exchanges ``shots`` before the observation)."""
    return [{"role": "system", "content": system}, *shots, {"role": "user", "content": user}]


# --------------------------------------------------------------------------- few-shot examples

_EXAMPLE_ROWS: tuple[tuple[dict[str, Any], ...], ...] = (
    ({"op": "J7.2", "job": "J7", "step": 2, "group": "G2", "machine": "M4", "proc_time": 12, "machine_status": "busy",
      "available_from": 52, "group_queue": 3, "slack": 1.8, "weight": 1, "ops_remaining": 3, "bottleneck_score": 0.9},
     {"op": "J3.1", "job": "J3", "step": 1, "group": "G1", "machine": "M1", "proc_time": 5, "machine_status": "idle",
      "available_from": 40, "group_queue": 2, "slack": 2.5, "weight": 1, "ops_remaining": 4, "bottleneck_score": 0.6},
     {"op": "J3.1", "job": "J3", "step": 1, "group": "G1", "machine": "M2", "proc_time": 9, "machine_status": "idle",
      "available_from": 40, "group_queue": 2, "slack": 2.5, "weight": 1, "ops_remaining": 4, "bottleneck_score": 0.6}),
    ({"op": "J12.3", "job": "J12", "step": 3, "group": "G3", "machine": "M6", "proc_time": 7, "machine_status": "idle",
      "available_from": 118, "group_queue": 1, "slack": 0.2, "weight": 2, "ops_remaining": 2, "bottleneck_score": 1.0},
     {"op": "J15.1", "job": "J15", "step": 1, "group": "G3", "machine": "M6", "proc_time": 6, "machine_status": "idle",
      "available_from": 118, "group_queue": 1, "slack": 3.1, "weight": 1, "ops_remaining": 4, "bottleneck_score": 1.0},
     {"op": "J15.1", "job": "J15", "step": 1, "group": "G3", "machine": "M7", "proc_time": 8, "machine_status": "down",
      "available_from": 140, "group_queue": 1, "slack": 3.1, "weight": 1, "ops_remaining": 4, "bottleneck_score": 1.0}),
)
_EXAMPLE_HEADERS: tuple[dict[str, Any], ...] = (
    {"time": 40, "decision": 9, "jobs_known": 8, "jobs_done": 2, "events": {"arrivals": 8, "breakdowns": 1},
     "targets": {"utilisation": 0.85, "tightness": 1.5}},
    {"time": 118, "decision": 31, "jobs_known": 15, "jobs_done": 9, "events": {"arrivals": 15, "breakdowns": 2},
     "targets": {"utilisation": 0.85, "tightness": 1.5}},
)
_EXAMPLE_ANSWERS: tuple[tuple[int, str, str], ...] = (  # (action ID, reasoning at every level, added at L2/L3)
    (2, "Actions 2 and 3 both start J3.1 now on an idle machine of G1; M1 needs 5 time units, M2 needs 9. "
        "Action 1 would wait for the busy M4 until 52.", ""),
    (1, "M7 is down until 140, so action 3 would leave J15.1 waiting. Actions 1 and 2 use the idle M6 with "
        "almost equal times (7 and 6); J12.3 is step 3 of its job, so J12 moves towards completion while J15 "
        "has only just arrived.", " J12 also has little slack (0.2) and weight 2; J15 has slack 3.1."),
)
FEW_SHOT_LIMIT = len(_EXAMPLE_ROWS)


def few_shot_messages(count: int, level: str, fmt: str, mode: str,
                      variants: Sequence[str] = ()) -> list[dict[str, Any]]:
    """The first ``count`` worked exchanges (user observation, assistant answer) at ``level`` in ``fmt``,
    answered in the style of ``mode`` (direct: the JSON only; cot and tool: reasoning, then the JSON)."""
    bottleneck = "bottleneck" in variants
    shots: list[dict[str, Any]] = []
    for i in range(count):
        header = {k: v for k, v in _EXAMPLE_HEADERS[i].items()
                  if k not in ("events", "targets") or (k == "events" and level != "L1")
                  or (k == "targets" and level == "L3")}
        columns = columns_of(level, bottleneck)
        rows = tuple({"action_id": n + 1, **{c: r[c] for c in columns if c in r}}
                     for n, r in enumerate(_EXAMPLE_ROWS[i]))
        obs = Encoded(level, header, columns, rows, tuple((n, n) for n in range(len(rows))))
        action, reason, richer = _EXAMPLE_ANSWERS[i]
        answer = json.dumps({"action_id": action})
        if mode != "direct":
            answer = reason + (richer if level != "L1" else "") + "\n" + answer
        shots += [{"role": "user", "content": f"Worked example {i + 1} (an illustration, not the current shop):\n"
                                              + render(obs, fmt, "xml-priors" in variants)},
                  {"role": "assistant", "content": answer}]
    return shots
