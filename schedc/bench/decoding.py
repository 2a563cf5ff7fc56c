"""The request body of one prompt under a decoding mode and a server dialect.

``--decoding`` chooses what is sent besides the messages:

* ``free`` — nothing: the model writes answer text;
* ``json-schema`` — the rendering's JSON Schema (:func:`schedc.grammars.json_schema`) as structured
  output, ``response_format: {"type": "json_schema", "json_schema": {"name", "strict", "schema"}}``.
  For ``--server openai`` the schema is put in strict mode's documented subset (:func:`strict_schema`;
  :func:`strict_problems` checks it: the FJSP items' ``anyOf`` of closed objects is inside it);
* ``grammar`` — the rendering's answer grammar for constrained decoding:
  ``--server vllm`` sends ``structured_outputs: {"grammar": G}`` (vLLM ≥ 0.10; a GBNF grammar is read by
  the xgrammar and guidance backends alike, a Lark grammar by guidance directly and by xgrammar through
  vLLM's Lark→EBNF conversion), ``--server llama.cpp`` sends ``grammar: G`` (GBNF only); the OpenAI API
  takes no grammar on chat completions, so ``--server openai`` refuses it (``B305``).

``--extra-body`` is merged last, so a study can add or override any server-specific field.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from schedc.core.diagnostics import SchedcError

DECODINGS = ("free", "json-schema", "grammar")
SERVERS = ("vllm", "llama.cpp", "openai")
GRAMMAR_FORMATS = ("gbnf", "lark")
#: OpenAI strict structured outputs: the documented keywords and limits.
STRICT_KEYWORDS = frozenset({"type", "properties", "required", "additionalProperties", "items", "anyOf", "enum",
                             "const", "description", "title", "minimum", "maximum", "exclusiveMinimum",
                             "exclusiveMaximum", "multipleOf", "minItems", "maxItems", "pattern", "format",
                             "$defs", "$ref"})
STRICT_MAX_PROPERTIES, STRICT_MAX_DEPTH, STRICT_MAX_ENUM = 5000, 10, 1000


@dataclass(frozen=True)
class Options:
    """Everything besides the messages that goes into a request (and so into its cache key)."""

    model: str
    decoding: str = "free"
    server: str = "vllm"
    grammar_format: str = "gbnf"
    lines: str = "any"
    temperature: float = 0.0
    max_tokens: int | None = None
    extra_body: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for value, allowed, flag in ((self.decoding, DECODINGS, "--decoding"), (self.server, SERVERS, "--server"),
                                     (self.grammar_format, GRAMMAR_FORMATS, "--grammar-format"),
                                     (self.lines, ("any", "exact"), "--lines")):
            if value not in allowed:
                raise SchedcError.at("B304", f"{flag} {value!r} is not one of {', '.join(allowed)}")
        if self.decoding == "grammar" and self.server == "openai":
            raise SchedcError.at("B305", "the OpenAI chat API takes no grammar",
                                 hint="use --decoding json-schema, or --server vllm|llama.cpp")
        if self.decoding == "grammar" and self.server == "llama.cpp" and self.grammar_format != "gbnf":
            raise SchedcError.at("B305", "llama.cpp's server reads GBNF grammars only", hint="--grammar-format gbnf")


def parse_extra_body(text: str | None) -> dict[str, Any]:
    """``--extra-body``: a JSON object, or a B306 error."""
    if not text:
        return {}
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SchedcError.at("B306", f"--extra-body is not JSON: {exc.msg} (column {exc.colno})") from None
    if not isinstance(value, dict):
        raise SchedcError.at("B306", "--extra-body must be a JSON object")
    return value


def request_body(options: Options, system: str, prompt: str, constraint: Any = None) -> dict[str, Any]:
    """The exact JSON body of ``POST /chat/completions``; ``constraint`` is the schema or grammar text."""
    body: dict[str, Any] = {"model": options.model, "temperature": options.temperature,
                            "messages": [{"role": "system", "content": system}, {"role": "user", "content": prompt}]}
    if options.max_tokens is not None:
        body["max_tokens"] = options.max_tokens
    if options.decoding == "json-schema":
        schema = strict_schema(constraint) if options.server == "openai" else constraint
        body["response_format"] = {"type": "json_schema",
                                   "json_schema": {"name": "schedule", "strict": True, "schema": schema}}
    elif options.decoding == "grammar":
        if options.server == "vllm":
            body["structured_outputs"] = {"grammar": constraint}
        else:
            body["grammar"] = constraint
    body.update(options.extra_body)
    return body


class Constraints:
    """The schema or grammar of each dataset record, computed once per (spec, names)."""

    def __init__(self, out: Path, options: Options):
        self.out, self.options = Path(out), options
        self.memo: dict[tuple[str, str], Any] = {}

    def of(self, record: Mapping[str, Any]) -> Any:
        """The constraint sent with ``record`` (None for free decoding)."""
        if self.options.decoding == "free":
            return None
        names = {p["ir"]: p["shown"] for p in record.get("names", [])}
        key = (record["spec"], json.dumps(names, sort_keys=True))
        if key not in self.memo:
            self.memo[key] = self._build(self.out / record["spec"], names, record["id"])
        return self.memo[key]

    def _build(self, spec: Path, names: dict[str, str], record_id: str) -> Any:
        from schedc.grammars import answer_spec, gbnf_grammar, json_schema, lark_grammar
        from schedc.lang.family import load_family
        from schedc.lang.load import load_instance

        instance = load_instance(spec)
        family = load_family(instance.family, [spec.parent])
        try:
            answer = answer_spec(instance, family, names)
            if self.options.decoding == "json-schema":
                return json_schema(answer)
            build = gbnf_grammar if self.options.grammar_format == "gbnf" else lark_grammar
            return build(answer, lines=self.options.lines)
        except ValueError as exc:
            raise SchedcError.at("B307", f"{record_id}: cannot state the answer format: {exc}") from None


def strict_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """``schema`` in OpenAI strict mode's subset: annotations it does not list (``$schema``, ``$comment``) dropped."""
    def clean(node: Any) -> Any:
        if isinstance(node, Mapping):
            return {k: clean(v) for k, v in node.items() if k not in ("$schema", "$comment")}
        if isinstance(node, list):
            return [clean(v) for v in node]
        return node

    return clean(schema)


def strict_problems(schema: Mapping[str, Any]) -> list[str]:
    """Where ``schema`` leaves OpenAI strict mode's documented subset (empty: it is accepted)."""
    problems: list[str] = []
    if schema.get("type") != "object" or "anyOf" in schema:
        problems.append("the root must be an object, not anyOf")
    counts = {"properties": 0, "enum": 0}
    _strict_walk(schema, "$", 1, problems, counts)
    if counts["properties"] > STRICT_MAX_PROPERTIES:
        problems.append(f"{counts['properties']} properties (at most {STRICT_MAX_PROPERTIES})")
    if counts["enum"] > STRICT_MAX_ENUM:
        problems.append(f"{counts['enum']} enum values (at most {STRICT_MAX_ENUM})")
    return problems


def _strict_walk(node: Mapping[str, Any], path: str, depth: int, problems: list[str], counts: dict[str, int]) -> None:
    """Check one schema node and its children against the strict subset."""
    unknown = sorted(set(node) - STRICT_KEYWORDS)
    if unknown:
        problems.append(f"{path}: unsupported keyword(s) {', '.join(unknown)}")
    if depth > STRICT_MAX_DEPTH:
        problems.append(f"{path}: nested deeper than {STRICT_MAX_DEPTH} levels")
    if node.get("type") == "object":
        properties = node.get("properties", {})
        counts["properties"] += len(properties)
        if node.get("additionalProperties") is not False:
            problems.append(f"{path}: objects need additionalProperties false")
        if sorted(node.get("required", [])) != sorted(properties):
            problems.append(f"{path}: every property must be required")
        for name, child in properties.items():
            _strict_walk(child, f"{path}.{name}", depth + 1, problems, counts)
    counts["enum"] += len(node.get("enum", []))
    if isinstance(node.get("items"), Mapping):
        _strict_walk(node["items"], f"{path}[]", depth + 1, problems, counts)
    for index, child in enumerate(node.get("anyOf", [])):
        _strict_walk(child, f"{path}|{index}", depth, problems, counts)
