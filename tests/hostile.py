"""Generators of hostile inputs, each a pure function of a ``random.Random``: answers, specs, canonical files.

They write what an attacker or an unlucky model would: a valid input repeated thousands of times, lines
duplicated or made to conflict, numbers of thousands of digits, names of ten thousand characters,
one-megabyte lines, binary garbage, control and separator characters, markdown and tags in bulk,
structured answers nested a hundred thousand deep or holding NaN and ``1e400``; specs whose rows repeat
twenty thousand times, whose tokens are replaced by keywords, huge numbers and long identifiers, or
nested brackets; canonical files mutated alike, and INRC-2010 XML with entity expansion ("billion
laughs"), external entities naming ``/etc/passwd`` and elements nested deep.

``tests/test_hostile_corpus.py`` runs them (a fixed-seed slice by default, the whole corpus with ``-m
slow``) and asserts no exception but :class:`~schedc.core.diagnostics.SchedcError`, and bounded time and
memory per input.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable

Mutation = Callable[[random.Random, str], str]

SEPARATORS = ["\n", "\r\n", "\r", "\x0b", "\x0c", "\x1c", "\x85", "\u2028", "\u2029"]
ODD = ["\x00", "\x1b[31m", "\ufeff", "\u200b", "\u202e", "\t", "\xa0", "٣", "①", "\ufffd"]
MARKUP = ["```", "```json", "~~~", "**", "*", "_", "__", "`", "- ", "1. ", "# ", "> ", "<answer>", "</answer>",
          "<b>", "|", "---", "(", ")", "[", "]", " // ", " # ", "; ", ", ", ": ", "="]
HUGE = ["9" * 5000, "-" + "1" * 4400, "1" * 101, "9" * 100, "-0", "+3", "007", "1e9", "1e400", "NaN", "Infinity",
        "٣", str(2**64), "0x1F"]


def _lines(text: str) -> list[str]:
    return text.splitlines()


def _join(lines: list[str], rng: random.Random) -> str:
    return rng.choice(["\n", "\n", "\r\n", "\r"]).join(lines) + rng.choice(["", "\n"])


def _size(rng: random.Random, usual: list[int], huge: list[int], share: float = 0.1) -> int:
    """A count or size: one of ``huge`` with probability ``share``, else one of ``usual``."""
    return rng.choice(huge) if rng.random() < share else rng.choice(usual)


def _pick(rng: random.Random, lines: list[str]) -> int:
    return rng.randrange(len(lines)) if lines else 0


# ---------------------------------------------------------------------------------------------- answers


def repeat_whole(rng: random.Random, text: str) -> str:
    return text * _size(rng, [2, 3, 10, 50], [200, 1000])


def duplicate_lines(rng: random.Random, text: str) -> str:
    lines = _lines(text) or [text]
    i = _pick(rng, lines)
    return _join(lines[:i] + [lines[i]] * _size(rng, [2, 10, 1000], [20_000]) + lines[i:], rng)


def conflicting_lines(rng: random.Random, text: str) -> str:
    lines = _lines(text)
    extra = [re.sub(r"[0-9]{1,9}", lambda m: str(int(m.group()) + rng.randint(1, 9)), line) for line in lines]
    return _join(lines + extra * _size(rng, [1, 5], [200]), rng)


def huge_numbers(rng: random.Random, text: str) -> str:
    numbers = list(re.finditer(r"[0-9]+", text))
    for match in rng.sample(numbers, min(len(numbers), rng.randint(1, 20)))[::-1] if numbers else []:
        text = text[:match.start()] + rng.choice(HUGE) + text[match.end():]
    return text


def unknown_names(rng: random.Random, text: str) -> str:
    words = list(re.finditer(r"[A-Za-z][A-Za-z]*", text))
    name = rng.choice(["Zed", "x" * 10_000, "Ω" * 500, "J99", "Machine 0", "nurse", "a b c", "'\"", "\\n"])
    for match in rng.sample(words, min(len(words), rng.randint(1, 10)))[::-1] if words else []:
        text = text[:match.start()] + name + text[match.end():]
    return text


def long_line(rng: random.Random, text: str) -> str:
    filler = rng.choice(["x", "9", ";", ",", " ", "*", "_", "<", "(", "|", "=", "a_b_", "**a", "<b", "1,"])
    line = filler * (_size(rng, [10_000, 10_000, 200_000], [1_000_000]) // len(filler))
    lines = _lines(text)
    lines.insert(_pick(rng, lines), line)
    return _join(lines, rng)


def garbage(rng: random.Random, text: str) -> str:
    size = _size(rng, [10, 1000], [100_000])
    blob = bytes(rng.randrange(256) for _ in range(size)).decode("utf-8", errors="replace")
    return rng.choice([blob, text + blob, blob + text])


def odd_characters(rng: random.Random, text: str) -> str:
    chars = list(text)
    for _ in range(rng.randint(1, 50)):
        chars.insert(rng.randint(0, len(chars)), rng.choice(ODD + SEPARATORS))
    return "".join(chars)


def markup(rng: random.Random, text: str) -> str:
    lines = _lines(text)
    for _ in range(rng.randint(1, 30)):
        i = _pick(rng, lines)
        mark = rng.choice(MARKUP)
        where = rng.choice(["before", "after", "around", "line", "bulk"])
        if not lines or where == "line":
            lines.insert(i, mark)
        elif where == "bulk":
            lines.insert(i, mark * _size(rng, [100], [10_000]))
        elif where == "before":
            lines[i] = mark + lines[i]
        elif where == "after":
            lines[i] = lines[i] + mark
        else:
            lines[i] = mark + lines[i] + mark
    return _join(lines, rng)


def separators(rng: random.Random, text: str) -> str:
    return rng.choice(SEPARATORS) * _size(rng, [1000], [100_000]) + text + rng.choice(SEPARATORS) * 1000


def prose(rng: random.Random, text: str) -> str:
    stated = rng.choice(["Makespan: 55", "Total cost = " + "9" * 200, "The objective value is -3.", "penalty 7",
                         "Makespan: " + "9" * 5000, "cost: NaN"])
    return rng.choice([f"Here is my schedule.\n{text}\n{stated}\n", f"{stated}\n{text}", text + ("\n" + stated) * 500])


def truncate(rng: random.Random, text: str) -> str:
    return text[:rng.randint(0, len(text))]


def shuffle(rng: random.Random, text: str) -> str:
    lines = _lines(text)
    rng.shuffle(lines)
    return _join(lines, rng)


def structured(rng: random.Random, text: str) -> str:
    """A structured answer (or a broken one): deep nesting, wrong types, non-finite and huge numbers, bulk."""
    kind = rng.choice(["deep", "types", "numbers", "bulk", "fenced", "strings", "not-an-object"])
    if kind == "deep":
        return "[" * rng.choice([1000, 100_000]) + "]" * rng.choice([0, 1000])
    if kind == "not-an-object":
        return rng.choice(["[1, 2, 3]", '"assignments"', "null", "{}", '{"assignments": {}}', "{" * 50_000])
    item = {"job": "J1", "step": 1, "start": 0, "activity": "A1", "agent": "Ann", "day": 0, "value": "E",
            "course": "Math", "period": 1, "room": "Aula", "machine": "M1", "mode": 1}
    if kind == "types":
        item = {k: rng.choice([None, [], {}, True, 1.5, "x", 3]) for k in item}
    items = [item] * rng.choice([1, 10, 50_000 if kind == "bulk" else 10])
    body = json.dumps({"assignments": items})
    if kind == "numbers":
        body = body.replace('"start": 0', '"start": ' + rng.choice(["NaN", "Infinity", "1e400", "9" * 200, "-0.0"]))
    if kind == "strings":
        body = body.replace('"J1"', json.dumps(rng.choice(["J\n1", "x" * 100_000, "\u2028", ""])))
    return f"```json\n{body}\n```" if kind == "fenced" or rng.random() < 0.2 else body


def empty(rng: random.Random, text: str) -> str:
    return rng.choice(["", " ", "\n", "\ufeff", "```\n```", "\x00" * 100])


ANSWER_MUTATIONS: tuple[Mutation, ...] = (
    repeat_whole, duplicate_lines, conflicting_lines, huge_numbers, unknown_names, long_line, garbage,
    odd_characters, markup, separators, prose, truncate, shuffle, structured, empty)

#: The most a hostile input may grow to (a mutation chain is cut here): a real model output is far smaller.
MAX_ANSWER_CHARS = 1_000_000


def hostile_answer(rng: random.Random, valid: str) -> tuple[str, str]:
    """(mutation chain, text): one to three mutations of a valid answer."""
    text, names = valid, []
    for _ in range(rng.choice([1, 1, 2, 3])):
        mutation = rng.choice(ANSWER_MUTATIONS)
        names.append(mutation.__name__)
        text = mutation(rng, text)[:MAX_ANSWER_CHARS]
    return "+".join(names), text


# ---------------------------------------------------------------------------------------------- specs

#: Words of the language and hostile tokens to put in place of a spec's tokens.
SPEC_WORDS = ["table", "end", "hard", "soft", "minimize", "makespan", "penalty", "instance", "family", "calendar",
              "resources", "jobs", "activities", "unary", "renewable", "->", "->+3", "..", "=", "@x", "[", "]",
              "(", ")", "{", "}", '"', '"a b"', "#", "-1", "0", "9" * 120, "1" * 5000, "x" * 10_000, "J1.1", "M1",
              "\ufeff", "\x00", "\u2028", "é", "min=", "max=", "values=[E L]", "weekends(Foo)", "*", "!E"]


def spec_token_edits(rng: random.Random, text: str) -> str:
    tokens = list(re.finditer(r"\S+", text))
    for match in sorted(rng.sample(tokens, min(len(tokens), rng.randint(1, 12))), key=lambda m: -m.start()):
        text = text[:match.start()] + rng.choice(SPEC_WORDS) + text[match.end():]
    return text


def spec_repeat_rows(rng: random.Random, text: str) -> str:
    """A row of a table (or a statement) repeated up to 20,000 times: duplicate names, duplicate facts."""
    lines = _lines(text)
    candidates = [i for i, line in enumerate(lines) if line.startswith("  ") and line.strip()] or list(
        range(len(lines)))
    i = rng.choice(candidates) if candidates else 0
    count = rng.choice([2, 2, 100, 100, 5000, 20_000])
    return "\n".join(lines[:i] + [lines[i]] * count + lines[i:]) + "\n" if lines else text


def spec_repeat_statements(rng: random.Random, text: str) -> str:
    lines = _lines(text)
    statements = [i for i, line in enumerate(lines) if line.startswith(("hard ", "soft "))]
    if not statements:
        return text
    i = rng.choice(statements)
    return "\n".join(lines + [lines[i]] * rng.choice([2, 500, 3000])) + "\n"


def spec_line_edits(rng: random.Random, text: str) -> str:
    lines = _lines(text)
    for _ in range(rng.randint(1, 8)):
        if not lines:
            break
        i, j = _pick(rng, lines), _pick(rng, lines)
        op = rng.choice(["delete", "duplicate", "swap"])
        if op == "delete":
            del lines[i]
        elif op == "duplicate":
            lines.insert(j, lines[i])
        else:
            lines[i], lines[j] = lines[j], lines[i]
    return "\n".join(lines) + "\n"


def spec_nesting(rng: random.Random, text: str) -> str:
    opener, closer = rng.choice([("[", "]"), ("(", ")"), ("{", "}"), ('"', '"')])
    depth = rng.choice([100, 10_000, 100_000])
    lines = _lines(text)
    lines.insert(_pick(rng, lines), "hard forbid_pattern p " + opener * depth + closer * rng.choice([0, depth]))
    return "\n".join(lines) + "\n"


def spec_characters(rng: random.Random, text: str) -> str:
    chars = list(text)
    for _ in range(rng.randint(1, 40)):
        chars.insert(rng.randint(0, len(chars)), rng.choice(ODD + SEPARATORS + list('[](){}"#=@.-:>')))
    return "".join(chars)


SPEC_MUTATIONS: tuple[Mutation, ...] = (spec_token_edits, spec_repeat_rows, spec_repeat_statements, spec_line_edits,
                                        spec_nesting, spec_characters, truncate, huge_numbers, garbage, long_line)


def hostile_spec(rng: random.Random, valid: str) -> tuple[str, str]:
    """(mutation chain, text): one or two mutations of a valid spec (or canonical file)."""
    text, names = valid, []
    for _ in range(rng.choice([1, 1, 2])):
        mutation = rng.choice(SPEC_MUTATIONS)
        names.append(mutation.__name__)
        text = mutation(rng, text)[:MAX_ANSWER_CHARS]
    return "+".join(names), text


# ---------------------------------------------------------------------------------------------- XML

LAUGHS = ('<?xml version="1.0"?>\n<!DOCTYPE lolz [\n <!ENTITY lol "lol">\n'
          + "".join(f' <!ENTITY lol{i} "{("&lol" + (str(i - 1) if i > 1 else "") + ";") * 10}">\n'
                    for i in range(1, 10)) + "]>\n")


def xml_attacks(rng: random.Random, text: str) -> str:
    """Entity expansion, external entities, deep nesting, huge attributes in an INRC-2010 file."""
    body = re.sub(r"^<\?xml[^>]*>\s*", "", text)
    kind = rng.choice(["laughs", "external", "parameter", "deep", "attribute", "comment"])
    if kind == "laughs":  # a billion "lol"s if expanded
        return LAUGHS + body.replace("<StartDate>", "<StartDate>&lol9;", 1)
    if kind == "external":
        return ('<?xml version="1.0"?>\n<!DOCTYPE x [ <!ENTITY xxe SYSTEM "file:///etc/passwd"> ]>\n'
                + body.replace("<StartDate>", "<StartDate>&xxe;", 1))
    if kind == "parameter":
        return ('<?xml version="1.0"?>\n<!DOCTYPE x [ <!ENTITY % p SYSTEM "file:///etc/passwd"> %p; ]>\n' + body)
    if kind == "deep":
        depth = rng.choice([1000, 100_000])
        return body.replace("</SchedulingPeriod>", "<a>" * depth + "</a>" * depth + "</SchedulingPeriod>", 1)
    if kind == "attribute":
        return body.replace("<SchedulingPeriod", '<SchedulingPeriod junk="' + "x" * 1_000_000 + '"', 1)
    return body.replace("<StartDate>", "<!--" + "-" * 100_000 + "--><StartDate>", 1)
