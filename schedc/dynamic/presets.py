"""Named agent configurations: the protocols of DynaSchedBench's LLM experiments.

``schedc agent SPEC --preset NAME`` and ``schedc agent-run … --preset NAME`` take their level,
mode, format, prompt variants, refinement, sampling and few-shot settings from :data:`PRESETS`;
an option given explicitly on the ``schedc agent`` command line overrides the preset's value.

Sources (the DynaSchedBench paper; ``schedc agent --list-presets`` prints the table):

* Table 3 (§7, "Cost-performance metrics across LLM-based Scheduling configurations") names seven
  configurations: L1 Direct, L1 CoT, L1+Tool, L2 CoT, L2 Reflection, L2 BestOfN, L3 CoT.
  Appendix J.1 calls reflection and best-of-N refinements "beyond standard CoT reasoning", so both
  run in ``cot`` mode here. The paper states no temperature, top-p, few-shot count, number of
  reflection rounds R or samples N for Table 3; the values chosen are greedy decoding (temperature
  0), no ``top_p`` sent, no few-shot examples, R = 1 and N = 5 at temperature 0.7. R, N and 0.7 are
  the defaults of the authors' package (dsbx 0.4.0, ``CognitiveConfig``: ``reflection_rounds=1``,
  ``voting_n=5``, ``best_of_n_temperature=0.7``); R = 1 also fits Table 3's tokens (L2 Reflection
  14.47 M ≈ 2.1 × L2 CoT's 6.88 M). Not reproduced: that package audits at temperature 0.3 (here
  the proposal's temperature) and draws the N samples in one request with ``n`` and top-p 0.95
  (here N requests, seeds seed … seed + N − 1, no top-p), which is why its best-of-N costs only
  1.13 × L2 CoT's tokens in Table 3 while N separate requests cost about N ×.
* §7.1 (Table 5's cross-model comparison): "a matched L1 Direct protocol with the same prompt
  templates, two few-shot examples, temperature 0.0, and top-p = 1.0". The two examples are
  schedc's own (:func:`schedc.dynamic.agent_prompts.few_shot_messages`); the paper does not print
  its examples.
* Table j-1 (Appendix J, mechanism ablation): V1–V6; "All variants use greedy CoT decoding", so
  every variant is ``cot`` at temperature 0. V6 "L3 with XML formatting" is read as the L3
  priors rendered as an XML block marked as background (``--variant xml-priors``), as the authors'
  package does for V6; ``--format xml`` (the whole observation as XML) is the other reading and
  can be given on the command line.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any

from schedc.core.diagnostics import SchedcError

if TYPE_CHECKING:
    from schedc.dynamic.agent import AgentConfig

#: The options a preset sets, with the values ``schedc agent`` uses when neither a preset nor the
#: command line gives one.
DEFAULTS: dict[str, Any] = {"level": "L1", "mode": "direct", "format": "text", "variants": (), "reflection": 0,
                            "best_of": 1, "temperature": 0.0, "vote_temperature": 0.7, "top_p": None, "few_shot": 0}


@dataclass(frozen=True)
class Preset:
    """One named configuration and where it comes from."""

    name: str
    source: str  # table / section of the paper
    description: str  # what it is, and which settings were chosen because the paper does not state them
    level: str = "L1"
    mode: str = "direct"
    format: str = "text"
    variants: tuple[str, ...] = ()
    reflection: int = 0
    best_of: int = 1
    temperature: float = 0.0
    vote_temperature: float = 0.7
    top_p: float | None = None
    few_shot: int = 0

    def values(self) -> dict[str, Any]:
        """The options the preset sets (the keys of :data:`DEFAULTS`)."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name in DEFAULTS}


_T3 = ("Table 3. Not stated in the paper, chosen: temperature 0, no top_p, no few-shot examples")
_J1 = "Table j-1: greedy CoT decoding (temperature 0); not stated, chosen: no top_p, no few-shot examples"

PRESETS: dict[str, Preset] = {p.name: p for p in (
    Preset("l1-direct", "Table 3 (L1 Direct)", f"L1 observation, direct answer. {_T3}.", "L1", "direct"),
    Preset("l1-cot", "Table 3 (L1 CoT)", f"L1 observation, chain of thought. {_T3}.", "L1", "cot"),
    Preset("l1-tool", "Table 3 (L1+Tool); App. J.1", "L1 observation with simulate_action / inspect_action_details "
           f"tools. {_T3}, at most 4 tool rounds per decision (--max-tool-rounds).", "L1", "tool"),
    Preset("l2-cot", "Table 3 (L2 CoT)", f"L2 observation, chain of thought. {_T3}.", "L2", "cot"),
    Preset("l2-reflection", "Table 3 (L2 Reflection); App. J.1", "L2, CoT proposal then R auditor rounds. "
           f"{_T3}, CoT mode, R = 1 (authors' package default; fits Table 3's token ratio).", "L2", "cot",
           reflection=1),
    Preset("l2-best-of-n", "Table 3 (L2 BestOfN); App. J.1", "L2, N CoT samples, majority vote. "
           f"{_T3}, CoT mode, N = 5 at temperature 0.7 (authors' package defaults), one request per sample.",
           "L2", "cot", best_of=5),
    Preset("l3-cot", "Table 3 (L3 CoT)", f"L3 observation, chain of thought. {_T3}.", "L3", "cot"),
    Preset("table5-l1-direct", "§7.1 (Table 5 protocol)", "Matched L1 Direct protocol of the cross-model "
           "comparison: two few-shot examples (schedc's own), temperature 0.0, top_p 1.0.", "L1", "direct",
           top_p=1.0, few_shot=2),
    Preset("v1", "Table j-1 (V1)", f"Standard L2 (ablation baseline). {_J1}.", "L2", "cot"),
    Preset("v2", "Table j-1 (V2)", f"Standard L3. {_J1}.", "L3", "cot"),
    Preset("v3", "Table j-1 (V3)", f"L2 with dummy padding to the L3 prompt's length. {_J1}.", "L2", "cot",
           variants=("padding",)),
    Preset("v4", "Table j-1 (V4)", f"L2 with the input model's calibration targets. {_J1}.", "L2", "cot",
           variants=("targets",)),
    Preset("v5", "Table j-1 (V5)", f"L2 with the bottleneck-score column. {_J1}.", "L2", "cot",
           variants=("bottleneck",)),
    Preset("v6", "Table j-1 (V6)", f"L3 with its priors as an XML block marked as background (as the authors' "
           f"package renders V6; --format xml is the other reading). {_J1}.", "L3", "cot", variants=("xml-priors",)),
)}


def preset(name: str) -> Preset:
    """The preset called ``name`` (a precise error naming the known ones otherwise)."""
    found = PRESETS.get(name.strip().lower())
    if found is None:
        raise SchedcError.at("E906", f"unknown preset {name!r}", file="--preset", hint="one of " + ", ".join(PRESETS)
                             + " (schedc agent --list-presets)")
    return found


def resolve(name: str | None, given: Mapping[str, Any]) -> dict[str, Any]:
    """The agent options: :data:`DEFAULTS`, overlaid by the preset ``name``, overlaid by ``given`` (the
    options set explicitly; keys of :data:`DEFAULTS`)."""
    unknown = set(given) - set(DEFAULTS)
    if unknown:
        raise ValueError(f"not preset options: {sorted(unknown)}")
    return DEFAULTS | (preset(name).values() if name else {}) | dict(given)


def agent_config(values: Mapping[str, Any], model: str, *, max_tool_rounds: int = 4, max_tokens: int | None = None,
                 fallback: str = "SPT+LIT", seed: int = 0) -> AgentConfig:
    """The agent of resolved options ``values`` (:func:`resolve`) and the settings no preset touches."""
    from schedc.dynamic.agent import AgentConfig
    from schedc.dynamic.agent_llm import LlmOptions

    llm = LlmOptions(model=model, mode=values["mode"], temperature=values["temperature"], top_p=values["top_p"],
                     max_tokens=max_tokens, reflection=values["reflection"], best_of=values["best_of"],
                     best_of_temperature=values["vote_temperature"], max_tool_rounds=max_tool_rounds, seed=seed)
    return AgentConfig(llm=llm, level=values["level"], format=values["format"], variants=tuple(values["variants"]),
                       fallback=fallback, few_shot=values["few_shot"])


def listing() -> str:
    """The presets as a Markdown table: name, source, settings, description."""
    lines = ["| preset | source | settings | description |", "|---|---|---|---|"]
    for p in PRESETS.values():
        shown = {k: v for k, v in p.values().items() if v != DEFAULTS[k] or k in ("level", "mode")}
        settings = ", ".join(f"{k}={','.join(v) if isinstance(v, tuple) else v}" for k, v in shown.items())
        lines.append(f"| {p.name} | {p.source} | {settings} | {p.description} |")
    return "\n".join(lines)
