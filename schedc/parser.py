"""Parsing ``.sched`` text into the IR.

Two stages. Lark (LALR, ``grammar/sched.lark``) turns the text into a list of statements;
:class:`InstanceBuilder` / :func:`parse_family_text` then build IR nodes statement by
statement, reading table rows and typed parameters, and collect every error they meet as a
diagnostic. The semantic pass (:mod:`schedc.semantic`) then checks cross references.
Everything wrong with the input is raised together as one :class:`SchedcError`.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator, Sequence
from functools import cache
from pathlib import Path
from typing import Any

import lark
import msgspec
from lark import Token, Transformer, v_args

from schedc.diagnostics import Diagnostic, SchedcError, Span
from schedc.ir import (
    WEEKDAYS,
    Activity,
    AttributeDecl,
    Calendar,
    Entity,
    EntityClass,
    Family,
    Instance,
    Meta,
    Mode,
    Objective,
    PlanStep,
    Resource,
    SlotDecision,
    Use,
)
from schedc.kinds import KINDS, Constraint, Row, RowError, TableContext
from schedc.params import ParamError, coerce, field_types, unquote
from schedc.resources import data_dir
from schedc.tables import split_table

COMMON_FIELDS = ("id", "hard", "weight", "active", "reason", "span")
RESERVED_TABLES = ("resources", "jobs", "activities")


@cache
def _lark() -> lark.Lark:
    grammar = (data_dir("grammar") / "sched.lark").read_text(encoding="utf-8")
    return lark.Lark(grammar, parser="lalr", propagate_positions=True, maybe_placeholders=False)


def _span(meta: Any) -> Span | None:
    if getattr(meta, "empty", True):
        return None
    return Span(line=meta.line, column=meta.column, end_line=meta.end_line, end_column=meta.end_column)


def _tok_span(tok: Token) -> Span:
    return Span(line=tok.line or 1, column=tok.column or 1, end_line=tok.end_line or 0, end_column=tok.end_column or 0)


class Stmt(msgspec.Struct):
    """A parsed statement before IR building: its rule name, parts and position."""

    rule: str
    parts: list[Any]
    span: Span | None


@v_args(meta=True)
class _ToStatements(Transformer):
    """Tree → flat statement records and raw parameter values (see :mod:`schedc.params`)."""

    def start(self, meta: Any, items: list[Stmt]) -> list[Stmt]:
        return items

    def __default__(self, data: str, children: list[Any], meta: Any) -> Stmt:
        return Stmt(rule=str(data), parts=children, span=_span(meta))

    def word(self, meta: Any, items: list[Token]) -> tuple[str, Any]:
        return ("word", str(items[0]))

    def string(self, meta: Any, items: list[Token]) -> tuple[str, Any]:
        return ("string", _unquote(str(items[0])))

    def long_string(self, meta: Any, items: list[Token]) -> tuple[str, Any]:
        return ("string", _dedent_long(str(items[0])[3:-3]))

    def attr_ref(self, meta: Any, items: list[Token]) -> tuple[str, Any]:
        return ("attr", str(items[0]))

    def list(self, meta: Any, items: list[Any]) -> tuple[str, Any]:
        return ("list", items)

    def selector(self, meta: Any, items: list[Token]) -> tuple[str, Any]:
        return ("selector", str(items[0]))

    def call(self, meta: Any, items: list[Token]) -> tuple[str, Any]:
        return ("call", str(items[0]))

    def param(self, meta: Any, items: list[Any]) -> tuple[str, Any, Span | None]:
        return (str(items[0])[:-1], items[1], _span(meta))


_unquote = unquote


def _dedent_long(text: str) -> str:
    import textwrap

    return textwrap.dedent(text).strip("\n")


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


def _syntax_error(exc: lark.exceptions.LarkError, file: str, text: str) -> SchedcError:
    if isinstance(exc, lark.exceptions.UnexpectedCharacters):
        message, hint = _bad_character(exc, text)
        column = exc.column
        if message.startswith("unterminated long string") and not text.startswith('"""', exc.pos_in_stream):
            column -= 2  # the lexer read the first two quotes as an empty string: point at the first
        return SchedcError.at("E001", message, file=file, line=exc.line, column=column, hint=hint, source=text)
    if isinstance(exc, lark.exceptions.UnexpectedToken):
        token = exc.token
        if token.type == "$END":
            return _eof_error(exc, file, text)
        message = f"unexpected {_show(token)}; expected {_expected(exc.expected, _looks_like_family(text))}"
        if str(token) == "table" and "TABLE" in exc.expected:
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
            if _parse_int(weight) is None:
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
    return ("table is never closed: no line holding only 'end' follows",
            "a table ends with 'end' alone on a line (blanks and a # comment may follow)")


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


def _eof_error(exc: lark.exceptions.UnexpectedToken, file: str, text: str) -> SchedcError:
    stack = _value_stack(exc)
    last = _last_token(stack)
    expected = _expected(exc.expected, _looks_like_family(text))
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
    import difflib

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


def parse_statements(text: str, file: str = "<input>") -> list[Stmt]:
    """Run the LALR parser and return the statement records (syntax errors raised)."""
    try:
        tree = _lark().parse(text)
    except lark.exceptions.LarkError as exc:
        raise _syntax_error(exc, file, text) from None
    return _ToStatements().transform(tree)


# ----------------------------------------------------------------------------- helpers


class Collector:
    """Collects diagnostics for one file."""

    def __init__(self, file: str, text: str):
        self.file = file
        self.text = text
        self.diagnostics: list[Diagnostic] = []
        self.sources: dict[str, str] = {file: text}

    def error(self, code: str, message: str, span: Span | None, hint: str | None = None) -> None:
        self.diagnostics.append(Diagnostic(code=code, message=message, file=self.file, span=span, hint=hint))

    def row_error(self, exc: RowError, code: str = "E107") -> None:
        self.error(code, exc.message, Span(line=exc.line, column=exc.column), exc.hint)

    def add(self, exc: SchedcError) -> None:
        """Take over the diagnostics (and source texts) of another error."""
        self.diagnostics.extend(exc.diagnostics)
        self.sources.update({k: v for k, v in exc.sources.items() if k not in self.sources})

    def raise_if_any(self) -> None:
        if self.diagnostics:
            raise SchedcError(self.diagnostics, self.sources)


def _word_of(raw: tuple[str, Any]) -> str | None:
    return raw[1] if raw[0] in ("word", "string") else None


def _rows(tok: Token) -> list[Row]:
    return split_table(str(tok), tok.line or 1)


def _parse_int(text: str) -> int | None:
    try:
        return int(text)
    except ValueError:
        return None


# ----------------------------------------------------------------------------- instances


class InstanceBuilder:
    """Builds an :class:`Instance` from statements, collecting every error."""

    def __init__(self, out: Collector, search: Sequence[Path]):
        self.out = out
        self.search = search
        self.family: Family | None = None
        self.fields: dict[str, Any] = {}
        self.seen: dict[str, Span | None] = {}
        self.resources: list[Resource] = []
        self.activities: list[Activity] = []
        self.entities: list[Entity] = []
        self.constraints: list[Constraint] = []

    def build(self, stmts: list[Stmt]) -> Instance | None:
        if not stmts or stmts[0].rule != "instance_stmt":
            span = stmts[0].span if stmts else Span(line=1, column=1)
            self.out.error("E101", "an instance file starts with 'instance NAME family FAMILY'", span,
                           "e.g. instance ft06 family jobshop")
            return None
        for stmt in stmts:
            handler = getattr(self, "on_" + stmt.rule, None)
            if handler is None:
                self.out.error("E118", f"a {stmt.rule.removesuffix('_stmt')} statement cannot appear in an "
                               "instance file", stmt.span)
                continue
            handler(stmt)
        if "objective" not in self.fields and self.family is not None:
            self.fields["objective"] = Objective(measure=self.family.objective)
        if self.out.diagnostics:
            return None
        return Instance(
            resources=tuple(self.resources), activities=tuple(self.activities), entities=tuple(self.entities),
            constraints=tuple(self.constraints), **self.fields,
        )

    def once(self, key: str, stmt: Stmt) -> bool:
        if key in self.seen:
            first = self.seen[key]
            where = f" (first at line {first.line})" if first else ""
            self.out.error("E102", f"'{key}' is given twice{where}", stmt.span)
            return False
        self.seen[key] = stmt.span
        return True

    # -- statements ------------------------------------------------------------------

    def on_instance_stmt(self, stmt: Stmt) -> None:
        if not self.once("instance", stmt):
            return
        name, family = (str(t) for t in stmt.parts)
        self.fields.update(name=name, family=family, span=stmt.span)
        try:
            from schedc.family import load_family

            self.family = load_family(family, self.search)
        except SchedcError as exc:
            located = [d if d.file != "<input>" else
                       msgspec.structs.replace(d, span=_tok_span(stmt.parts[1]), file=self.out.file)
                       for d in exc.diagnostics]
            self.out.add(SchedcError(located, exc.sources))

    def on_meta_stmt(self, stmt: Stmt) -> None:
        if not self.once("meta", stmt):
            return
        values: dict[str, Any] = {}
        types = field_types(Meta)
        for item in stmt.parts:
            key = str(item.parts[0])
            raw = item.parts[1]
            if key not in types or key == "span":
                self.out.error("E104", f"unknown meta key {key!r}", item.span,
                               "meta keys: " + ", ".join(k for k in types if k != "span"))
                continue
            try:
                values[key] = coerce(raw, types[key])
            except ParamError as exc:
                self.out.error("E105", f"meta {key}: {exc}", item.span)
        self.fields["meta"] = Meta(span=stmt.span, **values)

    def on_horizon_stmt(self, stmt: Stmt) -> None:
        if not self.once("horizon", stmt):
            return
        value = _parse_int(str(stmt.parts[0]))
        if value is None or value < 0:
            self.out.error("E105", f"horizon must be a non-negative integer, found {str(stmt.parts[0])!r}",
                           stmt.span)
            return
        self.fields["horizon"] = value

    def on_calendar_stmt(self, stmt: Stmt) -> None:
        if not self.once("calendar", stmt):
            return
        values: dict[str, Any] = {}
        for key, raw, span in stmt.parts:
            try:
                values.update(_calendar_param(key, raw))
            except ParamError as exc:
                self.out.error("E114", f"calendar {key}: {exc}", span)
        if "days" not in values:
            self.out.error("E114", "calendar needs days=N", stmt.span)
            return
        self.fields["calendar"] = Calendar(span=stmt.span, **values)

    def on_objective_stmt(self, stmt: Stmt) -> None:
        if not self.once("objective", stmt):
            return
        measure = str(stmt.parts[0])
        if measure not in ("makespan", "penalty"):
            self.out.error("E105", f"unknown objective {measure!r}; expected makespan or penalty", stmt.span)
            return
        self.fields["objective"] = Objective(measure=measure, span=stmt.span)  # type: ignore[arg-type]

    def on_table_stmt(self, stmt: Stmt) -> None:
        name = str(stmt.parts[0])
        columns = [str(t) for t in stmt.parts[1].parts] if len(stmt.parts) == 3 else None
        try:
            rows = _rows(stmt.parts[-1])
            if name == "resources":
                self.resources.extend(_read_resources(rows, stmt.span))
            elif name == "jobs":
                self.activities.extend(_read_jobs(rows))
            elif name == "activities":
                self.activities.extend(_read_activities(rows, columns or []))
            else:
                self.read_entities(name, columns, rows, stmt)
        except RowError as exc:
            self.out.row_error(exc)

    def read_entities(self, cls_name: str, columns: list[str] | None, rows: list[Row], stmt: Stmt) -> None:
        if self.family is None:
            return
        cls = self.family.entity_class(cls_name)
        if cls is None:
            known = ", ".join([*RESERVED_TABLES, *(c.name for c in self.family.classes)])
            self.out.error("E106", f"unknown table {cls_name!r} for family {self.family.name}", stmt.span,
                           f"tables of this family: {known}")
            return
        declared = [a.name for a in cls.attributes]
        if (columns or []) != declared:
            self.out.error("E113", f"columns of {cls_name} must be ({' '.join(declared)}), found "
                           f"({' '.join(columns or [])})", stmt.span)
            return
        for row in rows:
            if not cls.attributes:  # a class without attributes lists several names per row
                self.entities.extend(Entity(name=name, cls=cls.name, span=Span(line=row.line, column=col))
                                     for name, col in zip(row.cells, row.columns, strict=True))
            else:
                self.entities.append(_read_entity(row, cls))

    def on_constraint_stmt(self, stmt: Stmt) -> None:
        built = _build_constraint(stmt, self.out, self.table_context())
        if built is None:
            return
        if self.family is not None and self.family.kinds and built.__struct_config__.tag not in self.family.kinds:
            self.out.error("E115", f"kind {built.__struct_config__.tag!r} is not used by family "
                           f"{self.family.name}", stmt.span,
                           "kinds of this family: " + ", ".join(self.family.kinds))
            return
        self.constraints.append(built)

    def table_context(self) -> TableContext:
        calendar = self.fields.get("calendar")
        value_cls = self.family.decision.value if self.family and self.family.decision else None
        values = tuple(e.name for e in self.entities if e.cls == value_cls)
        return TableContext(days=calendar.days if calendar else 0, values=values)


def _calendar_param(key: str, raw: tuple[str, Any]) -> dict[str, Any]:
    word = _word_of(raw)
    if key in ("days", "periods_per_day"):
        value = _parse_int(word or "")
        if value is None or value < 1:
            raise ParamError(f"expected a positive integer, found {word!r}")
        return {key: value}
    if key == "start_date":
        try:
            return {key: dt.date.fromisoformat(word or "")}
        except ValueError:
            raise ParamError(f"expected a date YYYY-MM-DD, found {word!r}") from None
    if key == "start_weekday":
        if word not in WEEKDAYS:
            raise ParamError(f"expected a weekday name ({', '.join(WEEKDAYS)}), found {word!r}")
        return {key: word}
    raise ParamError("unknown calendar parameter; expected days, periods_per_day, start_date or start_weekday")


def _read_resources(rows: list[Row], span: Span | None) -> Iterator[Resource]:
    for row in rows:
        if len(row) not in (2, 3):
            raise row.error(f"expected 'name kind [capacity]', found {len(row)} cells")
        kind = row.cells[1]
        if kind not in ("unary", "renewable", "nonrenewable"):
            raise row.error(f"unknown resource kind {kind!r}; expected unary, renewable or nonrenewable", 1)
        if kind == "unary" and len(row) == 3 and row.cells[2] != "1":
            raise row.error("a unary resource has capacity 1", 2)
        if kind != "unary" and len(row) != 3:
            raise row.error(f"a {kind} resource needs a capacity", 1)
        capacity = row.int(2, "a capacity") if len(row) == 3 else 1
        yield Resource(name=row.cells[0], kind=kind, capacity=capacity,  # type: ignore[arg-type]
                       span=Span(line=row.line, column=row.columns[0]))


def _read_jobs(rows: list[Row]) -> Iterator[Activity]:
    """Rows ``JOB op op …``; an op is ``MACHINE:DURATION`` or alternatives ``M1:d1/M2:d2``."""
    for row in rows:
        if len(row) < 2:
            raise row.error("expected a job name followed by its operations (MACHINE:DURATION ...)")
        job = row.cells[0]
        for step, cell in enumerate(row.cells[1:], start=1):
            modes = tuple(_job_option(row, step, option) for option in cell.split("/"))
            yield Activity(name=f"{job}.{step}", modes=modes, job=job, step=step,
                           span=Span(line=row.line, column=row.columns[step]))


def _job_option(row: Row, index: int, option: str) -> Mode:
    machine, sep, duration = option.rpartition(":")
    value = _parse_int(duration)
    if not sep or not machine or value is None:
        raise row.error(f"expected MACHINE:DURATION, found {option!r}", index)
    if value < 0:
        raise row.error(f"a duration cannot be negative, found {value}", index)
    return Mode(duration=value, uses=(Use(resource=machine),))


def _read_activities(rows: list[Row], resources: list[str]) -> list[Activity]:
    """Rows ``name mode duration q_1 … q_R`` (one per mode, modes numbered 1.. in order)."""
    order: list[str] = []
    modes: dict[str, list[Mode]] = {}
    spans: dict[str, Span] = {}
    for row in rows:
        row.expect_len(3 + len(resources), "name mode duration and one amount per resource column")
        name = row.cells[0]
        if name in modes and order[-1] != name:
            raise row.error(f"activity {name} is defined twice (first at line {spans[name].line}); "
                            "the rows of one activity's modes must be consecutive")
        if name not in modes:
            order.append(name)
            modes[name] = []
            spans[name] = Span(line=row.line, column=row.columns[0])
        number = row.int(1, "a mode number", minimum=1)
        if number != len(modes[name]) + 1:
            raise row.error(f"modes of {name} are numbered 1, 2, ... in order; expected mode "
                            f"{len(modes[name]) + 1}, found {number}", 1)
        duration = row.int(2, "a duration")
        uses = tuple(Use(resource=r, amount=a) for r, a in
                     zip(resources, (row.int(3 + k, f"the amount of {r}") for k, r in enumerate(resources)),
                         strict=True) if a)
        modes[name].append(Mode(duration=duration, uses=uses))
    return [Activity(name=n, modes=tuple(modes[n]), span=spans[n]) for n in order]


def _read_entity(row: Row, cls: EntityClass) -> Entity:
    row.expect_len(1 + len(cls.attributes), "the name and " + " ".join(a.name for a in cls.attributes))
    attrs: dict[str, Any] = {}
    for k, decl in enumerate(cls.attributes, start=1):
        text = row.cells[k]
        if decl.type == "int":
            attrs[decl.name] = row.int(k, decl.name, minimum=None)
        elif decl.type == "names":
            items = () if text == "-" else tuple(text.split(","))
            if any(not item or item == "-" for item in items):
                raise row.error(f"{decl.name} is a comma-separated list of names (- for none); found {text!r}", k)
            attrs[decl.name] = items
        else:
            attrs[decl.name] = text
    return Entity(name=row.cells[0], cls=cls.name, attrs=attrs, span=Span(line=row.line, column=row.columns[0]))


def _build_constraint(stmt: Stmt, out: Collector, ctx: TableContext) -> Constraint | None:
    parts = list(stmt.parts)
    strength = parts.pop(0)
    reason = None
    if isinstance(parts[0], Stmt) and parts[0].rule == "inactive":
        reason = _unquote(str(parts.pop(0).parts[0]))
    kind_tok, id_tok = parts[0], parts[1]
    table = parts[-1] if parts and isinstance(parts[-1], Token) and parts[-1].type == "TABLE" else None
    params = [p for p in parts[2:] if isinstance(p, tuple)]
    cls = KINDS.get(str(kind_tok))
    if cls is None:
        out.error("E108", f"unknown constraint kind {str(kind_tok)!r}", _tok_span(kind_tok),
                  _closest(str(kind_tok), KINDS) or "kinds: " + ", ".join(sorted(KINDS)))
        return None
    cid = unquote(str(id_tok)) if id_tok.type == "STRING" else str(id_tok)
    common: dict[str, Any] = {"id": cid, "span": stmt.span, "hard": strength.rule == "hard"}
    if strength.rule == "soft":
        weight = _parse_int(str(strength.parts[0]))
        if weight is None or weight < 0:
            out.error("E110", f"a soft weight is a non-negative integer, found {str(strength.parts[0])!r}",
                      stmt.span)
            return None
        common["weight"] = weight
    if reason is not None:
        common.update(active=False, reason=reason)
    values = _kind_params(cls, params, out, stmt)
    if values is None:
        return None
    if not _fill_table(cls, table, values, out, stmt, ctx):
        return None
    try:
        return cls(**common, **values)
    except TypeError as exc:
        missing = str(exc).split("'")[1] if "'" in str(exc) else str(exc)
        out.error("E111", f"{cls.__struct_config__.tag} needs the parameter {missing}=...", stmt.span)
        return None


def _kind_params(cls: type[Constraint], params: list[tuple[str, Any, Span | None]], out: Collector,
                 stmt: Stmt) -> dict[str, Any] | None:
    types = field_types(cls)
    allowed = [k for k in types if k not in COMMON_FIELDS and k != cls.TABLE_FIELD]
    values: dict[str, Any] = {}
    ok = True
    for key, raw, span in params:
        if key not in allowed:
            hint = _closest(key, allowed) or ("parameters: " + ", ".join(allowed) if allowed else
                                              "this kind takes no parameters")
            out.error("E109", f"unknown parameter {key!r} for {cls.__struct_config__.tag}", span, hint)
            ok = False
            continue
        if key in values:
            out.error("E102", f"parameter {key!r} is given twice", span)
            ok = False
            continue
        try:
            values[key] = coerce(raw, types[key])
        except ParamError as exc:
            out.error("E110", f"{key}: {exc}", span)
            ok = False
    return values if ok else None


def _fill_table(cls: type[Constraint], table: Token | None, values: dict[str, Any], out: Collector,
                stmt: Stmt, ctx: TableContext) -> bool:
    tag = cls.__struct_config__.tag
    if table is None:
        return True
    if cls.TABLE_FIELD is None:
        out.error("E112", f"{tag} takes no table", _tok_span(table))
        return False
    try:
        values[cls.TABLE_FIELD] = cls.parse_rows(_rows(table), values, ctx)
    except RowError as exc:
        out.row_error(exc)
        return False
    return True


def _closest(word: str, options: Any) -> str | None:
    import difflib

    match = difflib.get_close_matches(word, list(options), n=1)
    return f"did you mean {match[0]!r}?" if match else None


# ----------------------------------------------------------------------------- family specs


def parse_family_text(text: str, file: str = "<input>") -> Family:
    """Parse a family spec file (``family NAME { ... }``)."""
    stmts = parse_statements(text, file)
    out = Collector(file, text)
    families = [s for s in stmts if s.rule == "family_stmt"]
    if len(stmts) != 1 or len(families) != 1:
        span = stmts[0].span if stmts else Span(line=1, column=1)
        out.error("E120", "a family spec file holds exactly one 'family NAME { ... }' block", span)
        out.raise_if_any()
    family = _build_family(families[0], out)
    out.raise_if_any()
    assert family is not None
    return family


_FAMILY_FIELDS = {"title": str, "structure": str, "objective": str, "answer": str, "answer_header": str,
                  "day_names": str, "background": str}
_PAIR_FIELDS = ("roles", "rename")


def _build_family(stmt: Stmt, out: Collector) -> Family | None:
    values: dict[str, Any] = {"name": str(stmt.parts[0]), "span": stmt.span}
    classes: list[EntityClass] = []
    for item in stmt.parts[1:]:
        if item.rule == "class_decl":
            classes.append(_class_decl(item, out))
        elif item.rule == "decision_decl":
            values["decision"] = _decision_decl(item, out)
        elif item.rule == "plan_decl":
            values["plan"] = tuple(PlanStep(category=str(p.parts[0]), shuffle=len(p.parts) > 1, span=p.span)
                                   for p in item.parts)
        else:
            _family_field(item, values, out)
    values["classes"] = tuple(classes)
    for required in ("structure", "objective"):
        if required not in values:
            out.error("E121", f"family spec needs '{required}'", stmt.span)
    if out.diagnostics:
        return None
    try:
        return msgspec.convert(values, Family, from_attributes=True)
    except msgspec.ValidationError as exc:
        out.error("E121", f"invalid family spec: {exc}", stmt.span)
        return None


def _class_decl(item: Stmt, out: Collector) -> EntityClass:
    attrs = []
    for decl in item.parts[1:]:
        name, type_ = (str(t) for t in decl.parts)
        if type_ not in ("int", "name", "names", "str"):
            out.error("E122", f"unknown attribute type {type_!r}; expected int, name, names or str", decl.span)
            continue
        attrs.append(AttributeDecl(name=name, type=type_, span=decl.span))  # type: ignore[arg-type]
    return EntityClass(name=str(item.parts[0]), attributes=tuple(attrs), span=item.span)


def _decision_decl(item: Stmt, out: Collector) -> SlotDecision | None:
    values: dict[str, Any] = {"span": item.span}
    types = field_types(SlotDecision)
    for key, raw, span in item.parts:
        if key not in types or key == "span":
            out.error("E109", f"unknown decision parameter {key!r}", span, "parameters: agent, value, grain, free")
            continue
        try:
            values[key] = coerce(raw, types[key])
        except ParamError as exc:
            out.error("E110", f"{key}: {exc}", span)
    try:
        return SlotDecision(**values)
    except TypeError:
        out.error("E111", "decision needs agent=CLASS and value=CLASS", item.span)
        return None


def _family_field(item: Stmt, values: dict[str, Any], out: Collector) -> None:
    key = str(item.parts[0])
    raw = item.parts[1]
    if key in _FAMILY_FIELDS:
        word = _word_of(raw)
        if word is None:
            out.error("E110", f"{key}: expected a name or a string", item.span)
        else:
            values[key] = word
    elif key == "kinds":
        names = [_word_of(r) for r in raw[1]] if raw[0] == "list" else [_word_of(raw)]
        unknown = [n for n in names if n not in KINDS]
        if unknown:
            out.error("E108", f"unknown constraint kind(s): {', '.join(map(str, unknown))}", item.span)
        values["kinds"] = tuple(n for n in names if n)
    elif key in _PAIR_FIELDS:
        items = raw[1] if raw[0] == "list" else []
        words = [_word_of(r) for r in items]
        if len(words) % 2 or None in words:
            out.error("E110", f"{key}: expected a list of pairs [name \"word\" ...]", item.span)
        else:
            values[key] = tuple(zip(words[::2], words[1::2], strict=True))
    else:
        out.error("E123", f"unknown family field {key!r}", item.span,
                  "fields: " + ", ".join([*_FAMILY_FIELDS, *_PAIR_FIELDS, "kinds", "class", "decision", "plan"]))


# ----------------------------------------------------------------------------- entry points


def parse_instance_text(text: str, file: str = "<input>", search: Sequence[Path] = (),
                        check: bool = True) -> Instance:
    """Parse the text of an instance file; all syntax, build and semantic errors raised together."""
    stmts = parse_statements(text, file)
    out = Collector(file, text)
    builder = InstanceBuilder(out, search)
    instance = builder.build(stmts)
    out.raise_if_any()
    assert instance is not None
    if check:
        from schedc.semantic import check_instance

        check_instance(instance, family=builder.family, file=file, source=text)
    return instance


def parse_file(path: str | Path, search: Sequence[Path] = ()) -> Instance | Family:
    """Parse a ``.sched`` file: an instance (its family looked up beside it first) or a family spec."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SchedcError.at("E100", f"cannot read file: {exc}", file=str(path)) from None
    if _looks_like_family(text):
        return parse_family_text(text, file=str(path))
    return parse_instance_text(text, file=str(path), search=[path.parent, *search])


def _looks_like_family(text: str) -> bool:
    for line in text.splitlines():
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            return stripped.startswith("family ")
    return False
