"""One decision of the LLM agent: the conversation(s) with the endpoint that yield an action ID.

Transport: :class:`ChatSender` is the runner's :class:`~schedc.bench.run.Sender` (the ``openai``
async client, retried by ``tenacity`` with the strategies of :mod:`schedc.bench.retry`), reading the
whole assistant message of the typed reply so that tool calls come through. A request whose
retries are exhausted is a *transport* failure.

Per decision (:meth:`Decider.decide`):

* a **proposal** is one conversation in the configured mode; in ``tool`` mode every assistant
  message with ``tool_calls`` is answered with the tools' replies (:mod:`schedc.dynamic.agent_tools`)
  for at most ``max_tool_rounds`` rounds, after which the proposal counts as *tool-rounds*;
* **best-of-N** draws N proposals at ``temperature`` (request ``seed`` = episode seed + sample index,
  so the N bodies differ) and keeps the admissible ID proposed most often; ties go to the ID
  that reached that count first;
* **reflection** follows an admissible proposal with R auditor rounds in the same conversation: each
  answer that names an admissible ID replaces the current choice, any other answer keeps it (in
  ``tool`` mode the tools stay declared with ``tool_choice: "none"``: an audit calls no tool).

The outcome is an action ID or the reason there is none: unparseable | inadmissible | transport |
tool-rounds (the loop then applies the fallback rule and counts the reason).

Every request carries ``temperature`` (the mode's, or best-of-N's), ``top_p`` when it is set,
``max_tokens`` when set, and ``seed`` for best-of-N samples.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from schedc.bench.run import Fault, Sender, Settings, first_message
from schedc.dynamic.agent_prompts import auditor_prompt, parse_action
from schedc.dynamic.agent_tools import TOOLS, ToolContext, call_tool


class ChatSender(Sender):
    """The runner's sender, returning the assistant message (content and tool calls) instead of the text."""

    def read(self, completion: Any) -> dict[str, Any]:
        message = first_message(completion)
        dump = getattr(message, "model_dump", None)
        turn = dump(exclude_none=True) if callable(dump) else None
        if not isinstance(turn, dict) or not (isinstance(turn.get("content"), str)
                                              or isinstance(turn.get("tool_calls"), list)):
            raise Fault("the reply's message has neither text content nor tool calls")
        return turn


@dataclass
class Usage:
    """Tokens and requests of an episode."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0
    requests: int = 0

    def add(self, usage: Any) -> None:
        self.requests += 1
        if isinstance(usage, dict):
            for key in ("prompt_tokens", "completion_tokens", "total_tokens"):
                value = usage.get(key)
                if isinstance(value, int):
                    setattr(self, key, getattr(self, key) + value)


@dataclass(frozen=True)
class LlmOptions:
    """What is asked of the endpoint."""

    model: str
    mode: str = "direct"
    temperature: float = 0.0
    top_p: float | None = None  # sent with every request when set (nucleus sampling)
    max_tokens: int | None = None
    reflection: int = 0
    best_of: int = 1
    best_of_temperature: float = 0.7
    max_tool_rounds: int = 4
    seed: int = 0


@dataclass
class Outcome:
    """An action ID (or None) and why there is none; the exchanged messages for the transcript."""

    action: int | None
    reason: str | None
    transcript: list[dict[str, Any]] = field(default_factory=list)
    tool_calls: int = 0
    tool_errors: int = 0


class Decider:
    """Holds the sender and the options; :meth:`decide` answers one decision epoch."""

    def __init__(self, options: LlmOptions, settings: Settings, stop: asyncio.Event):
        self.options, self.sender = options, ChatSender(settings, stop)
        self.usage = Usage()
        self.failed_requests = 0  # requests that got no answer after their retries
        self.last_error: str | None = None  # why the last of them failed

    async def close(self) -> None:
        await self.sender.client.close()

    async def decide(self, conversation: list[dict[str, Any]], count: int, ctx: ToolContext) -> Outcome:
        """The action for a decision with ``count`` admissible actions (IDs 1…count)."""
        opts = self.options
        if opts.best_of > 1:
            return await self._vote(conversation, count, ctx)
        outcome = await self._propose(list(conversation), count, ctx, opts.temperature, None)
        if outcome.action is not None and opts.reflection:
            await self._reflect(outcome, count)
        return outcome

    async def _vote(self, conversation: list[dict[str, Any]], count: int, ctx: ToolContext) -> Outcome:
        opts = self.options
        samples = [await self._propose(list(conversation), count, ctx, opts.best_of_temperature, opts.seed + i)
                   for i in range(opts.best_of)]
        votes: Counter[int] = Counter()
        leader: tuple[int, int] | None = None  # (count, action): the first to reach the top count stays leader
        for sample in samples:
            if sample.action is None:
                continue
            votes[sample.action] += 1
            if leader is None or votes[sample.action] > leader[0]:
                leader = (votes[sample.action], sample.action)
        transcript = [{"sample": i, "action": s.action, "reason": s.reason, "messages": s.transcript}
                      for i, s in enumerate(samples)]
        merged = Outcome(None, None, transcript, sum(s.tool_calls for s in samples),
                         sum(s.tool_errors for s in samples))
        if leader is not None:
            merged.action = leader[1]
        else:  # no admissible sample: the most frequent failure names the reason
            merged.reason = Counter(s.reason for s in samples).most_common(1)[0][0]
        return merged

    async def _propose(self, messages: list[dict[str, Any]], count: int, ctx: ToolContext, temperature: float,
                       seed: int | None) -> Outcome:
        outcome = Outcome(None, None, messages)
        use_tools = self.options.mode == "tool"
        for _ in range(self.options.max_tool_rounds + 1):
            message = await self._ask(messages, temperature, seed, use_tools)
            if message is None:
                outcome.reason = "transport"
                return outcome
            messages.append(_assistant(message))
            calls = message.get("tool_calls") or []
            if not (use_tools and calls):
                return _read(outcome, message.get("content"), count)
            for call in calls:
                function = call.get("function") or {}
                reply, ok = call_tool(ctx, str(function.get("name")), str(function.get("arguments") or "{}"))
                outcome.tool_calls += 1
                outcome.tool_errors += not ok
                messages.append({"role": "tool", "tool_call_id": call.get("id", ""), "content": reply})
        outcome.reason = "tool-rounds"
        return outcome

    async def _reflect(self, outcome: Outcome, count: int) -> None:
        messages = outcome.transcript
        for _ in range(self.options.reflection):
            assert outcome.action is not None
            messages.append({"role": "user", "content": auditor_prompt(outcome.action)})
            # tools stay declared (a conversation holding tool turns needs them) but may not be called now
            message = await self._ask(messages, self.options.temperature, None, self.options.mode == "tool", "none")
            if message is None:
                return  # the proposal stands: reflection only ever refines an admissible choice
            messages.append(_assistant(message))
            revised = parse_action(message.get("content"))
            if revised is not None and 1 <= revised <= count:
                outcome.action = revised

    async def _ask(self, messages: list[dict[str, Any]], temperature: float, seed: int | None,
                   use_tools: bool, tool_choice: str = "auto") -> dict[str, Any] | None:
        body: dict[str, Any] = {"model": self.options.model, "messages": messages, "temperature": temperature}
        if self.options.top_p is not None:
            body["top_p"] = self.options.top_p
        if self.options.max_tokens is not None:
            body["max_tokens"] = self.options.max_tokens
        if seed is not None:
            body["seed"] = seed
        if use_tools:
            body |= {"tools": TOOLS, "tool_choice": tool_choice}
        message, usage, error = await self.sender.complete(body)
        if error is not None:
            self.failed_requests += 1
            self.last_error = error
            return None
        self.usage.add(usage)
        return message


def _assistant(message: dict[str, Any]) -> dict[str, Any]:
    """The assistant turn as it is sent back (content and tool calls only)."""
    turn: dict[str, Any] = {"role": "assistant", "content": message.get("content")}
    if message.get("tool_calls"):
        turn["tool_calls"] = message["tool_calls"]
    return turn


def _read(outcome: Outcome, text: str | None, count: int) -> Outcome:
    action = parse_action(text)
    if action is None:
        outcome.reason = "unparseable"
    elif not 1 <= action <= count:
        outcome.reason = "inadmissible"
    else:
        outcome.action = action
    return outcome
