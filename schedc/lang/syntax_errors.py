"""Syntax errors people can act on.

Lark reports where parsing stopped and which terminals it expected; this module turns that
into one diagnostic: the offending token in words, what was expected in the language's
terms ("a new statement", "a value"), and a hint for the typical mistakes (an unclosed
table, ``key = value`` with blanks, a keyword swallowed as an id or a weight, a misspelt
keyword, an unclosed bracket).
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from typing import Any

import lark
from lark import Token

from schedc.core.diagnostics import SchedcError
from schedc.lang.tables import parse_int

_TERMINAL_NAMES = {
    "WORD": "a name or number", "STRING": "a quoted string", "LONG_STRING": 'a """long string"""',
    "KEY": "a parameter key=", "TABLE": "a table ... end block", "SELECTOR": "a selector class[...]",
    "CALL": "a call like weekends(SaturdaySunday)", "LBRACE": "'{'", "RBRACE": "'}'", "LSQB": "'['",
    "RSQB": "']'", "LPAR": "'('", "RPAR": "')'", "AT": "'@'", "COLON": "':'", "STAR": "'*'",
    "$END": "the end of the file",
}
# Keywords that start a top-level statement, and those that start an item of a family block. In a
# merged LALR state both may be "expected"; only the ones that fit the kind of file are shown.
_STATEMENT_TERMINALS = frozenset({"INSTANCE", "META", "HORIZON", "CALENDAR", "HARD", "SOFT", "MINIMIZE", "FAMILY"})
_FAMILY_ITEM_TERMINALS = frozenset({"CLASS", "DECISION", "PLAN"})
# The terminals that may start a parameter value; listed together as "a value".
_VALUE_TERMINALS = frozenset({"WORD", "STRING", "LONG_STRING", "AT", "LSQB", "SELECTOR", "CALL"})
_STATEMENT_WORDS = ("instance", "meta", "horizon", "calendar", "hard", "soft", "minimize", "family")
_KEY_VALUE_HINT = "parameters are written key=value without blanks around '='"
_CONSTRAINT_FORM = "a constraint is 'hard KIND ID key=value ...' or 'soft WEIGHT KIND ID key=value ...'"


def _expected(names: Sequence[str], in_family: bool = False) -> str:
    """The expected terminals in words; statement keywords are summed up as "a new statement"."""
    names = set(names)
    statements = names & _STATEMENT_TERMINALS
    items = names & _FAMILY_ITEM_TERMINALS
    if in_family and items:
        names -= statements
        statements = set()
    elif len(statements) >= 3:
        names -= items | {"RBRACE"}  # family-block terminals of a merged state: not in an instance file
    values = names >= _VALUE_TERMINALS
    if values:
        names -= _VALUE_TERMINALS
    shown = {_TERMINAL_NAMES.get(n, repr(n.lower()) if n.isupper() else n) for n in names - statements}
    if values:
        shown.add("a value")
    if len(statements) >= 3:
        shown.add("a new statement")
    else:
        shown.update(repr(n.lower()) for n in statements)
    return ", ".join(sorted(shown))


def syntax_error(exc: lark.exceptions.LarkError, file: str, text: str, in_family: bool = False) -> SchedcError:
    """The diagnostic of a Lark error in ``text`` (``in_family``: the text is a family spec, whose block
    items are then among what is expected)."""
    if isinstance(exc, lark.exceptions.UnexpectedCharacters):
        message, hint = _bad_character(exc, text)
        column = exc.column
        if message.startswith("unterminated long string") and not text.startswith('"""', exc.pos_in_stream):
            column -= 2  # the lexer read the first two quotes as an empty string: point at the first
        return SchedcError.at("E001", message, file=file, line=exc.line, column=column, hint=hint, source=text)
    if isinstance(exc, lark.exceptions.UnexpectedToken):
        token = exc.token
        if token.type == "$END":
            return _eof_error(exc, file, text, in_family)
        message = f"unexpected {_show(token)}; expected {_expected(exc.expected, in_family)}"
        unclosed = _unclosed_table_word(exc, text)
        if unclosed is not None:
            token = unclosed
            message, hint = _broken_table(token, text)
        elif str(token) == "table" and "TABLE" in exc.expected:
            message, hint = _broken_table(token, text)
        else:
            hint = _hint_for(token, exc)
        return SchedcError.at("E002", message, file=file, line=token.line, column=token.column, hint=hint,
                              source=text)
    if isinstance(exc, lark.exceptions.UnexpectedEOF):
        line = _last_line(text)
        return SchedcError.at("E003", f"unexpected end of file; expected {_expected(exc.expected)}",
                              file=file, line=line, column=1, source=text)
    return SchedcError.at("E000", f"cannot parse: {exc}", file=file, source=text)


def _last_line(text: str) -> int:
    """The number of the last non-empty line, counting lines by '\\n' as lark does."""
    return max(1, len(text.rstrip("\n").split("\n")))


def _show(token: Token) -> str:
    """A token as quoted in a message: a table block by its first word, long tokens cut."""
    text = str(token)
    if not text:
        return token.type.lower()
    if token.type == "TABLE":
        return "'table' (a table block)"
    first = text.split("\n", 1)[0].rstrip()
    if first != text or len(first) > 40:
        return repr(first[:37] + "...")
    return repr(text)


def _bad_character(exc: lark.exceptions.UnexpectedCharacters, text: str) -> tuple[str, str | None]:
    """Message and hint for a character no token can start with."""
    pos = exc.pos_in_stream
    char = text[pos]
    if text.startswith('"""', pos) or (char == '"' and pos >= 2 and text.startswith('""', pos - 2)):
        return ('unterminated long string: no closing """',
                'a """long string""" may span several lines but must end with """')
    if char == '"':
        return ("unterminated string: no closing '\"' on this line",
                'a "quoted string" ends on the line where it starts; use """...""" for text over several lines')
    message = f"unexpected character {char!r}"
    if text.startswith("table", pos):
        return message, "a table starts with 'table' alone on its line and ends with 'end' alone on a line"
    if char == "=":
        return message, _equals_hint(exc, text, pos)
    if text.startswith("->", pos):
        return message, "precedence rows 'a -> b' belong inside a 'table ... end' block"
    if char == "-":
        return message, "a name or number cannot start with '-' (negative numbers are not allowed here)"
    return message, None


def _equals_hint(exc: lark.exceptions.UnexpectedCharacters, text: str, pos: int) -> str:
    """Why an '=' cannot be read: blanks around it, or a key=value where no parameter may stand."""
    if pos == 0 or text[pos - 1] in " \t" or text[pos + 1:pos + 2] in (" ", "\t"):
        return _KEY_VALUE_HINT
    history = getattr(exc, "token_history", None) or []
    last = history[-1] if history else None
    if last is not None and last.type in _STATEMENT_TERMINALS:
        return f"'{last}' is followed by a blank, not '='"
    stack = list(getattr(getattr(exc, "state", None), "value_stack", None) or [])
    for k in range(len(stack) - 1, -1, -1):
        item = stack[k]
        if isinstance(item, lark.Tree) and item.data == "soft":
            weight = str(item.children[0]) if item.children else ""
            if parse_int(weight) is None:
                return f"'soft' needs a weight before the kind ({weight!r} was read as the weight); " + _CONSTRAINT_FORM
        if isinstance(item, lark.Tree) and item.data in ("hard", "soft", "inactive"):
            words = [t for t in stack[k + 1:] if isinstance(t, Token) and t.type == "WORD"]
            if len(words) == 2 and last is not None and words[-1] is last:
                return f"{str(last)!r} was read as the id of the constraint; " + _CONSTRAINT_FORM
            break
        if isinstance(item, Token) and item.type == "LBRACE":
            before = stack[k - 1] if k else None
            if isinstance(before, Token) and before.type == "META":
                return "meta items are written 'key value', without '='"
            return "family fields are written 'field value', without '='"
    if last is not None and last.type == "WORD":
        return f"{str(last)!r} cannot take a value here; " + _CONSTRAINT_FORM
    return "no key=value parameter is allowed here; " + _CONSTRAINT_FORM


def _broken_table(token: Token, text: str) -> tuple[str, str]:
    """The word 'table' was not read as a table block: either text follows it, or no 'end' closes it."""
    lines = text.split("\n")  # lark counts lines by '\n' only (splitlines also splits at \f, \v, ...)
    rest = lines[token.line - 1][token.end_column - 1:].strip() if token.line and token.line <= len(lines) else ""
    if rest and not rest.startswith("#"):
        return ("'table' must end its line",
                "the rows of a table start on the next line; the table ends with 'end' alone on a line")
    owner = _table_owner(lines[token.line - 1][:token.column - 1] if token.line and token.line <= len(lines) else "")
    return (f"{owner} is never closed: no line holding only 'end' follows",
            "a table ends with 'end' alone on a line (blanks and a # comment may follow)")


def _table_owner(head: str) -> str:
    """How to name a table from the text before its word 'table' (``jobs``, ``hard KIND ID ...``)."""
    cells = head.split("#", 1)[0].split()
    if cells and cells[0] in ("hard", "soft"):
        at = 2 if cells[0] == "hard" else 3
        if len(cells) > at and "=" not in cells[at] and cells[1] != "inactive":
            return f"the table of constraint {cells[at]}"
        return "the table"
    return f"table {cells[0]}" if cells else "the table"


def _unclosed_table_word(exc: lark.exceptions.UnexpectedToken, text: str) -> Token | None:
    """The word 'table' ending its line that was read as a name because no 'end' follows it.

    Without a closing ``end`` the lexer cannot form a table block, so ``table`` becomes a word
    (taken for the name of a table statement) and the parser fails on the first row after it.
    """
    stack = _value_stack(exc)
    word = stack[-1] if stack and isinstance(stack[-1], Token) else None
    if word is None or word.type != "WORD" or str(word) != "table" or exc.token.line == word.line:
        return None
    return word


def _value_stack(exc: lark.exceptions.UnexpectedToken) -> list[Any]:
    state = getattr(getattr(exc, "interactive_parser", None), "parser_state", None)
    return list(getattr(state, "value_stack", None) or [])


def _tokens_of(item: Any) -> list[Token]:
    if isinstance(item, Token):
        return [item]
    if isinstance(item, lark.Tree):
        return [t for child in item.children for t in _tokens_of(child)]
    return []


def _last_token(stack: list[Any]) -> Token | None:
    for item in reversed(stack):
        tokens = _tokens_of(item)
        if tokens:
            return tokens[-1]
    return None


def _unclosed(stack: list[Any], expected: Sequence[str]) -> str | None:
    """A hint naming the innermost '{' or '[' still open, when its closer is expected."""
    for item in reversed(stack):
        if isinstance(item, Token) and item.type in ("LBRACE", "LSQB"):
            closer = "}" if item.type == "LBRACE" else "]"
            if ("RBRACE" if closer == "}" else "RSQB") in expected:
                return f"the '{item}' opened at line {item.line} is not closed with '{closer}'"
            return None
    return None


def _eof_error(exc: lark.exceptions.UnexpectedToken, file: str, text: str, in_family: bool) -> SchedcError:
    stack = _value_stack(exc)
    last = _last_token(stack)
    expected = _expected(exc.expected, in_family)
    hint = _unclosed(stack, exc.expected) or _table_name_hint(exc, stack, None)
    if last is None or not last.end_line:
        line = _last_line(text)
        return SchedcError.at("E003", f"unexpected end of file; expected {expected}", file=file, line=line,
                              column=1, hint=hint, source=text)
    return SchedcError.at("E003", f"unexpected end of file after {_show(last)}; expected {expected}", file=file,
                          line=last.end_line, column=last.end_column or 1, hint=hint, source=text)


def _table_name_hint(exc: lark.exceptions.UnexpectedToken, stack: list[Any], token: Token | None) -> str | None:
    """Hint when a word at the start of a statement was taken for a table name (only '(' or table may follow)."""
    if not set(exc.expected) <= {"LPAR", "TABLE"} or not stack or not isinstance(stack[-1], Token):
        return None
    word = stack[-1]

    close = difflib.get_close_matches(str(word).lower(), _STATEMENT_WORDS, n=1, cutoff=0.7)
    if close and close[0] != str(word):
        return f"did you mean {close[0]!r}? A statement that starts with a name is a table: NAME table ... end"
    previous = next((item for item in reversed(stack[:-1]) if isinstance(item, lark.Tree)), None)
    swallowed = [t for t in _tokens_of(previous)[1:] if t.type == "WORD" and str(t) in _STATEMENT_WORDS]
    if swallowed:
        first = swallowed[0]
        return (f"{str(first)!r} (line {first.line}) was read as part of the statement before it; "
                + _CONSTRAINT_FORM)
    prev_tokens = _tokens_of(previous)
    if (prev_tokens and prev_tokens[-1].line == word.line and token is not None
            and token.type in ("WORD", "STRING") and token.line == word.line):
        return f"did you mean the parameter {word}={token}? " + _KEY_VALUE_HINT
    return ("a statement that starts with a name is a table (NAME table ... end); other statements start "
            "with " + ", ".join(_STATEMENT_WORDS[:-1]))


def _hint_for(token: Token, exc: lark.exceptions.UnexpectedToken) -> str | None:
    if token.type == "WORD" and "KEY" in exc.expected:
        return _KEY_VALUE_HINT
    if token.type == "WORD" and token == "=":
        return _KEY_VALUE_HINT
    stack = _value_stack(exc)
    hint = _unclosed(stack, exc.expected) or _table_name_hint(exc, stack, token)
    if hint:
        return hint
    last = _last_token(stack)
    glued = last is not None and last.type == "WORD" and last.end_line == token.line
    if token.type == "LSQB" and glued and "LSQB" not in exc.expected:
        return f"a selector has no blanks inside: {last}[attr=value] or {last}[name1,name2]"
    if token.type == "LPAR" and glued and "LPAR" not in exc.expected:
        return f"a call has no blanks inside: {last}(ARGUMENT)"
    if token.type == "LBRACE" and "LSQB" in exc.expected:
        return "lists are written in square brackets: [a b c]"
    return None
