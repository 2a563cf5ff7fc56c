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

Reading an answer (:func:`parse_action`): the *last* ``"action_id": N`` (JSON, quotes optional)
or ``ACTION: N`` in the text; none is *unparseable*, an ID outside 1…K *inadmissible*.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from schedc.dynamic.agent_obs import Encoded, render

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


def messages(system: str, user: str) -> list[dict[str, Any]]:
    """A fresh conversation."""
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]
