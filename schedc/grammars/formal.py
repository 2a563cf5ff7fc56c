"""Lark and GBNF grammars of an answer format, written so that every decoding engine reads them alike."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from schedc.grammars.spec import AnswerSpec, IntRange, LineGroup, NameList

_WRAP = 100  # wrap alternatives lists at about this many characters


def digit_pieces(lo: int, hi: int) -> list[list[tuple[int, int]]]:
    """``lo..hi`` (0 ≤ lo ≤ hi) as disjoint digit patterns: per position an inclusive digit range.

    ``1..28`` → ``[[(1, 9)], [(1, 1), (0, 9)], [(2, 2), (0, 8)]]``, i.e. ``[1-9] | 1[0-9] | 2[0-8]``.
    """
    if not 0 <= lo <= hi:
        raise ValueError(f"bad range {lo}..{hi}")
    pieces: list[list[tuple[int, int]]] = []
    for width in range(len(str(lo)), len(str(hi)) + 1):
        first = max(lo, 10 ** (width - 1) if width > 1 else 0)
        last = min(hi, 10 ** width - 1)
        if first <= last:
            pieces += _same_width(str(first), str(last))
    return pieces


def _same_width(a: str, b: str) -> list[list[tuple[int, int]]]:
    """Digit patterns for ``a..b``, two numerals of the same width."""
    if len(a) == 1:
        return [[(int(a), int(b))]]
    rest = len(a) - 1
    if a[0] == b[0]:
        return [[(int(a[0]), int(a[0]))] + p for p in _same_width(a[1:], b[1:])]
    out: list[list[tuple[int, int]]] = []
    low, high = int(a[0]), int(b[0])
    if a[1:] != "0" * rest:
        out += [[(low, low)] + p for p in _same_width(a[1:], "9" * rest)]
        low += 1
    upper: list[list[tuple[int, int]]] = []
    if b[1:] != "9" * rest:
        upper = [[(high, high)] + p for p in _same_width("0" * rest, b[1:])]
        high -= 1
    if low <= high:
        out.append([(low, high)] + [(0, 9)] * rest)
    return out + upper


def _longest_first(pieces: list[list[tuple[int, int]]]) -> list[list[tuple[int, int]]]:
    """Longer numerals first: a regex alternation takes the first alternative that matches."""
    return sorted(pieces, key=len, reverse=True)


# ---------------------------------------------------------------------------------------- Lark and GBNF

#: Characters written as ``\xNN`` in Lark literals: quotes (vLLM's Lark→EBNF conversion counts them and
#: rewrites '…' pairs), and the comment starters ``#`` and ``/`` (it cuts lines at them, even in a string).
_LARK_HEX = frozenset("\"'#/")
#: Rule names GBNF readers misread: llguidance takes a grammar with a ``start`` rule for Lark.
_GBNF_RENAMED = {"start": "start-time", "root": "root-value"}


def lark_string(text: str) -> str:
    """A Lark string literal matching exactly ``text``, safe through vLLM's Lark→EBNF conversion.

    Backslashes are escaped; quotes, ``#``, ``/`` and control characters are written as ``\\xNN``.
    """
    out = []
    for char in text:
        if char == "\\":
            out.append("\\\\")
        elif char in _LARK_HEX or ord(char) < 32 or ord(char) == 127:
            out.append(f"\\x{ord(char):02x}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def gbnf_string(text: str) -> str:
    """A GBNF (llama.cpp) string literal matching exactly ``text``; non-ASCII characters stay UTF-8."""
    escapes = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"}
    out = []
    for char in text:
        if char in escapes:
            out.append(escapes[char])
        elif ord(char) < 32 or ord(char) == 127:
            out.append(f"\\x{ord(char):02X}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


@dataclass(frozen=True)
class _Style:
    """How one grammar dialect writes symbols, literals, rules and number terminals."""

    name: Literal["lark", "gbnf"]

    def string(self, text: str) -> str:
        return lark_string(text) if self.name == "lark" else gbnf_string(text)

    def symbol(self, field: str, key: tuple[int, ...]) -> str:
        """Lark: an upper-case terminal of letters and digits; GBNF: a lower-case rule name."""
        if self.name == "lark":
            return field.upper().replace("_", "") + "X".join(str(k) for k in key)
        name = "-".join([field.replace("_", "-"), *map(str, key)])
        return _GBNF_RENAMED.get(name, name)

    def rule(self, head: str, alternatives: list[str]) -> str:
        """``head: a | b`` (Lark) or ``head ::= a | b`` (GBNF), long lists wrapped on ``|`` lines."""
        if self.name == "lark":
            return f"{head}: " + "\n    | ".join(_wrap(alternatives, " | "))
        return f"{head} ::= " + " |\n    ".join(_wrap(alternatives, " | "))

    def digits(self, piece: list[tuple[int, int]], rules: dict[str, str]) -> str:
        """A digit pattern: fixed digits as one literal, each digit range as a class (a terminal in Lark)."""
        parts: list[str] = []
        fixed = ""
        for a, b in piece:
            if a == b:
                fixed += str(a)
                continue
            if fixed:
                parts.append(f'"{fixed}"')
                fixed = ""
            parts.append(self._digit_class(a, b, rules))
        if fixed:
            parts.append(f'"{fixed}"')
        return " ".join(parts)

    def _digit_class(self, a: int, b: int, rules: dict[str, str]) -> str:
        if self.name == "gbnf":
            return f"[{a}-{b}]"
        name = f"D{a}{b}"  # no regex (vLLM's conversion cannot read one): the digits as alternatives
        rules.setdefault(name, self.rule(name, [f'"{d}"' for d in range(a, b + 1)]))
        return name

    def number(self, domain: IntRange, rules: dict[str, str]) -> list[str]:
        """The alternatives of an integer range (longer numerals first, for Lark's regex alternation)."""
        if domain.hi is None:
            return ['"0"', self._digit_class(1, 9, rules) + " " + self._digit_class(0, 9, rules) + "*"]
        return [self.digits(p, rules) for p in _longest_first(digit_pieces(domain.lo, domain.hi))]


def _line_sequence(spec: AnswerSpec, group: LineGroup, style: _Style, rules: dict[str, str]) -> str:
    """One alternative of the line rule; the rules it uses are added to ``rules``.

    A name field followed by a literal is one symbol whose alternatives are *name + literal*
    (``"Iron step " | "Iron Gate step "``): a greedy lexer (llguidance) that met ``Iron`` and a blank
    could otherwise never end the shorter name. Longer alternatives come first (Lark's regex alternation
    takes the first that matches).
    """
    out: list[str] = []
    pieces = list(spec.pieces)
    index = 0
    while index < len(pieces):
        kind, text = pieces[index]
        index += 1
        if kind == "lit":
            out.append(style.string(text))
            continue
        domain = group.domains[text]
        symbol = style.symbol(text, group.key if text in ("job", "activity", "step", "mode") else ())
        if isinstance(domain, IntRange):
            rules.setdefault(symbol, style.rule(symbol, style.number(domain, rules)))
        elif isinstance(domain, NameList):  # NAME (", " NAME)* | "-": the grammar does not keep names distinct
            item = style.symbol(f"{text}_name", ())
            names = sorted(dict.fromkeys(domain.names), key=len, reverse=True)
            rules.setdefault(item, style.rule(item, [style.string(name) for name in names]))
            rules.setdefault(symbol, style.rule(symbol, [f"{item} ({style.string(', ')} {item})*",
                                                         style.string("-")]))
        else:
            follow = ""
            if index < len(pieces) and pieces[index][0] == "lit":
                follow = pieces[index][1]
                index += 1
            names = sorted(dict.fromkeys(domain), key=len, reverse=True)
            rules.setdefault(symbol, style.rule(symbol, [style.string(name + follow) for name in names]))
        out.append(symbol)
    return " ".join(out)


def _header_sequence(spec: AnswerSpec, style: _Style, rules: dict[str, str]) -> str:
    """The header line (``ASSIGNMENTS=<count>``)."""
    count = style.symbol("count", ())
    rules.setdefault(count, style.rule(count, style.number(IntRange(0), rules)))
    return " ".join(style.string(text) if kind == "lit" else count for kind, text in spec.header_pieces)


def _body(spec: AnswerSpec, style: _Style, lines: str, newline: str, rules: dict[str, str]) -> str:
    """The sequence of the whole answer: header, lines (any number ≥ 1, or exactly the instance's), newline.

    Where the instance requires no line (``min_lines`` 0: nothing demanded, every activity optional) the
    empty answer is an answer, as the verifier reads it: the lines are optional as a whole."""
    head = ("header " + newline + " ") if spec.header else ""
    if lines == "any":
        if spec.min_lines > 0:
            return f"{head}line ({newline} line)* {newline}?"
        return f"header ({newline} line)* {newline}?" if spec.header else f"(line ({newline} line)*)? {newline}?"
    if lines != "exact":
        raise ValueError(f"unknown line mode {lines!r} (expected any or exact)")
    if spec.max_lines is None or spec.max_lines != spec.min_lines:
        raise ValueError(f"the {spec.family} family does not fix the number of answer lines of {spec.instance}")
    if spec.min_lines == 0:
        return f"header {newline}?" if spec.header else f"{newline}?"
    return f"{head}line {_repeat(spec.min_lines - 1, style, newline, rules)}{newline}?".replace("  ", " ")


def _repeat(count: int, style: _Style, newline: str, rules: dict[str, str]) -> str:
    """``count`` times ``newline line`` as a sum of power-of-two rules (``rep4: rep2 rep2``): O(log n) rules,
    no repetition operator (vLLM's Lark conversion passes none through)."""
    used, power, name = [], 1, "rep1"
    prefix = "rep" if style.name == "lark" else "rep-"
    while power <= count:
        name = f"{prefix}{power}"
        body = f"{newline} line" if power == 1 else f"{prefix}{power // 2} {prefix}{power // 2}"
        rules.setdefault(name, style.rule(name, [body]))
        if count & power:
            used.append(name)
        power *= 2
    return "".join(f"{u} " for u in reversed(used))


def lark_grammar(spec: AnswerSpec, lines: str = "any") -> str:
    """A Lark grammar accepting exactly the well-formed answers of ``spec``.

    It is read alike by Lark (``parser="lalr"`` or ``"earley"``), llguidance, and vLLM's Lark→EBNF
    conversion for xgrammar: plain ``name: …`` rules (no ``!``, ``?`` or ``->``), no regular expressions,
    no repetition counts, only ``*`` and ``?``. ``lines="exact"`` fixes the number of lines where the
    instance does (a ValueError where it does not).
    """
    style, rules = _Style("lark"), {}
    alternatives = [_line_sequence(spec, group, style, rules) for group in spec.groups]
    header = [f"header: {_header_sequence(spec, style, rules)}"] if spec.header else []
    start = f"start: {_body(spec, style, lines, 'NL', rules)}"
    return "\n".join([f"// Answer grammar (Lark) of {spec.instance}, family {spec.family}.",
                      f"// Line: {spec.template}" + (f"  (after the header {spec.header})" if spec.header else ""),
                      '// Lines are separated by "\\n"; a trailing newline is optional.',
                      start, style.rule("line", alternatives), *header, *rules.values(), 'NL: "\\n"']) + "\n"


def gbnf_grammar(spec: AnswerSpec, lines: str = "any") -> str:
    """A GBNF grammar (llama.cpp, xgrammar, llguidance) accepting exactly the well-formed answers of ``spec``.

    The root rule is ``root``; no rule is named ``start`` (llguidance would take the grammar for Lark).
    ``lines="exact"`` fixes the number of lines where the instance does.
    """
    style, rules = _Style("gbnf"), {}
    alternatives = [_line_sequence(spec, group, style, rules) for group in spec.groups]
    header = [f"header ::= {_header_sequence(spec, style, rules)}"] if spec.header else []
    root = f"root ::= {_body(spec, style, lines, chr(34) + chr(92) + 'n' + chr(34), rules)}"
    return "\n".join([f"# Answer grammar (GBNF) of {spec.instance}, family {spec.family}.",
                      f"# Line: {spec.template}" + (f"  (after the header {spec.header})" if spec.header else ""),
                      root, style.rule("line", alternatives), *header, *rules.values()]) + "\n"


def _wrap(items: list[str], separator: str) -> list[str]:
    """Items joined by ``separator`` in rows of about :data:`_WRAP` characters."""
    rows: list[list[str]] = [[]]
    width = 0
    for item in items:
        if rows[-1] and width + len(separator) + len(item) > _WRAP:
            rows.append([])
            width = 0
        width += len(item) + (len(separator) if rows[-1] else 0)
        rows[-1].append(item)
    return [separator.join(row) for row in rows]


# ---------------------------------------------------------------------------------------- JSON Schema
