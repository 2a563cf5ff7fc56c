"""Jinja2 environments and the paraphrase templates of each statement category.

Templates live in ``templates/<family>/<category>/*.j2`` (several paraphrases per category,
ordered by their leading number: ``1_stepwise.j2`` is the first, used by v1), shared phrasing
in ``templates/_macros.j2``. The built-in templates are trusted and rendered by a plain
:class:`~jinja2.Environment`; templates beside a user's family spec (``<spec folder>/templates/
<family>/<category>/``) and the spec's own ``background`` text are rendered by a
:class:`~jinja2.sandbox.SandboxedEnvironment`. Both use ``StrictUndefined``: a template naming
a value the renderer does not provide fails loudly.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import cache
from pathlib import Path

import jinja2
from jinja2.sandbox import SandboxedEnvironment

from schedc.core.diagnostics import SchedcError
from schedc.lang.resources import data_dir

_OPTIONS = {"undefined": jinja2.StrictUndefined, "trim_blocks": True, "lstrip_blocks": True, "autoescape": False,
            "keep_trailing_newline": False}


_A_BEFORE_VOWEL = re.compile(r"(?:uni|use|usu|uti|ure|eu|one\b|once)", re.IGNORECASE)
_AN_BEFORE_H = re.compile(r"(?:hour|honest|honou?r|heir)", re.IGNORECASE)


def takes_an(word: str) -> bool:
    """Whether ``word`` is said after "an": it starts with a vowel sound, read off its spelling
    (``an hour``, ``a unit``, ``an SUV``: an acronym is read letter by letter)."""
    if len(word) > 1 and word[:2].isupper():
        return word[0] in "AEFHILMNORSX"
    if word[:1].lower() in "aeiou":
        return _A_BEFORE_VOWEL.match(word) is None
    return _AN_BEFORE_H.match(word) is not None


def article(word: str) -> str:
    """``word`` with its indefinite article: ``a step``, ``an activity``, ``a unit``, ``an hour``."""
    return ("an " if takes_an(word) else "a ") + word


def agree_articles(text: str, words: Iterable[str]) -> str:
    """``text`` with "a"/"an" before each of ``words`` (a rendering's role words) agreeing with it: a
    template that writes "a {{ w.machine }}" says "an oven" where a family calls its machines ovens."""
    pattern = _article_pattern(frozenset(w for w in words if w))
    return text if pattern is None else pattern.sub(_agreeing, text)


def _agreeing(match: re.Match[str]) -> str:
    start = match.start()
    if start and (match.string[start - 1].isalnum() or match.string[start - 1] in "_-"):
        return match.group(0)  # "Cobra oven", "Kappa order": the end of a word, not an article
    written, word = match.group(1), match.group(2)
    wanted = "an" if takes_an(word) else "a"
    return f"{wanted.capitalize() if written[0].isupper() else wanted} {word}"


@cache
def _article_pattern(words: frozenset[str]) -> re.Pattern[str] | None:
    if not words:
        return None
    alternatives = "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))
    # no look-behind: it would cost a test at every position; _agreeing checks what precedes a match
    return re.compile(r"(an|a|An|A) (" + alternatives + r")(?![\w-])")


def upper_first(text: str) -> str:
    """The first letter upper-cased, the rest untouched (``capitalize`` would lower-case names)."""
    return text[:1].upper() + text[1:]


FILTERS = {"a": article, "upper_first": upper_first}
"""Filters every template environment has."""


@cache
def builtin_environment() -> jinja2.Environment:
    """The environment of the templates shipped with schedc."""
    loader = jinja2.FileSystemLoader(str(data_dir("templates")))
    env = jinja2.Environment(loader=loader, auto_reload=False, **_OPTIONS)  # package data: read once
    env.filters.update(FILTERS)
    return env


@cache
def sandbox_environment(user_dirs: tuple[str, ...] = ()) -> SandboxedEnvironment:
    """A sandbox for user templates (re-read when they change); the built-in folder stays on the
    path for ``_macros.j2``."""
    loader = jinja2.FileSystemLoader([*user_dirs, str(data_dir("templates"))])
    env = SandboxedEnvironment(loader=loader, **_OPTIONS)
    env.filters.update(FILTERS)
    return env


def user_template_dirs(search: Sequence[Path]) -> tuple[str, ...]:
    """``templates`` folders beside the given spec folders (user templates)."""
    return tuple(str(Path(s) / "templates") for s in search if (Path(s) / "templates").is_dir())


DEFAULT_FAMILY = "default"
"""The folder of the built-in default paraphrases of every category (``templates/default/<category>/``):
used by every family that does not word a category itself; entity classes fall back to ``entities``."""


class Paraphrases:
    """Numbered paraphrase templates looked up along a search order, and the environment that renders them.

    For each (family folder, category folder) candidate of a key, the folders beside the user's
    spec are searched first (rendered in the sandbox), then the built-in ones.
    """

    def __init__(self, family: str, search: Sequence[Path] = (), source: str | None = None):
        self.family = family
        self.source = source
        self.user_dirs = user_template_dirs(search)
        self._cache: dict[str, tuple[jinja2.Environment, tuple[str, ...]]] = {}
        self._templates: dict[str, jinja2.Template] = {}
        self._articles: tuple[tuple[int, int] | None, re.Pattern[str] | None] = (None, None)
        self._numbers: tuple[re.Pattern[str], dict[str, str]] | None = None
        self._held: tuple[object, object] = (None, None)

    def candidates(self, key: str) -> list[tuple[str, str]]:
        """(family folder, category folder) pairs to look in, in order (subclasses define them)."""
        raise NotImplementedError

    def missing(self, key: str) -> SchedcError:
        """The error when no candidate has templates."""
        raise NotImplementedError

    def paraphrases(self, key: str) -> tuple[jinja2.Environment, tuple[str, ...]]:
        """(environment, template names in paraphrase order) of a key; a SchedcError if none."""
        found = self._cache.get(key)
        if found is None:
            found = self._find(key)
            self._cache[key] = found
        return found

    def _find(self, key: str) -> tuple[jinja2.Environment, tuple[str, ...]]:
        builtin = str(data_dir("templates"))
        for family, category in self.candidates(key):
            for folder in self.user_dirs:
                names = _listing(folder, family, category)
                if names:
                    return sandbox_environment(self.user_dirs), names
            names = _listing(builtin, family, category)
            if names:
                return builtin_environment(), names
        raise self.missing(key)

    def render(self, key: str, index: int, context: dict[str, object]) -> tuple[str, str]:
        """(template name, rendered text on one line) of paraphrase ``index`` (modulo their number)."""
        env, names = self.paraphrases(key)
        name = names[index % len(names)]
        try:
            template = self._templates.get(name)
            if template is None:
                template = self._templates[name] = env.get_template(name)
            text = template.render(context)
        except jinja2.TemplateError as exc:
            raise SchedcError.at("E604", f"template {name} failed: {exc}", file=self.source) from None
        return name, self._agreeing(reflow(text), context)

    def _agreeing(self, text: str, context: dict[str, object]) -> str:
        """``text`` with its articles agreeing with the context's role words (the words of one rendering
        are the same dicts in every call: their pattern is looked up once per pair)."""
        w, r = context.get("w"), context.get("r")
        key, pattern = self._articles
        if key != (id(w), id(r)):
            pattern = _article_pattern(frozenset(role_words_in(context)))
            self._articles = ((id(w), id(r)), pattern)
            self._numbers = _number_pattern(frozenset(singular_plural_pairs(context)))
            self._held = (w, r)  # keeps the dicts alive, so that their ids are not reused meanwhile
        text = text if pattern is None else pattern.sub(_agreeing, text)
        if self._numbers is not None and "1 " in text:
            numbers, singular = self._numbers
            text = numbers.sub(lambda m: f"1 {singular[m.group(1)]}", text)
        return text


class TemplateSet(Paraphrases):
    """The paraphrases of every statement category of one family.

    Search order for category C of family F: ``<spec folder>/templates/F/C/``, the built-in
    ``F/C/``, then the defaults ``default/C/`` (and ``default/entities/`` for an entity class).
    """

    def __init__(self, family: str, search: Sequence[Path] = (), entity_categories: frozenset[str] = frozenset(),
                 source: str | None = None):
        super().__init__(family, search, source)
        self.entity_categories = entity_categories

    def candidates(self, key: str) -> list[tuple[str, str]]:
        entities = [(DEFAULT_FAMILY, "entities")] if key in self.entity_categories else []
        return [(self.family, key), (DEFAULT_FAMILY, key), *entities]

    def missing(self, key: str) -> SchedcError:
        return SchedcError.at("E603", f"family {self.family!r} has no templates for statement category {key!r}",
                              file=self.source,
                              hint=f"add templates/{self.family}/{key}/1_plain.j2 beside the family spec")


class KindTemplates(Paraphrases):
    """The sentence paraphrases of every constraint kind for one family.

    Search order for kind K of family F: ``<spec folder>/templates/F/kinds/K/``, the built-in
    ``F/kinds/K/`` (a family's domain wording), ``<spec folder>/templates/kinds/K/``, then the
    built-in defaults ``kinds/K/`` that every kind has.
    """

    def candidates(self, key: str) -> list[tuple[str, str]]:
        return [(self.family, f"kinds/{key}"), ("kinds", key)]

    def missing(self, key: str) -> SchedcError:
        return SchedcError.at("E603", f"constraint kind {key!r} has no sentence templates", file=self.source,
                              hint=f"add templates/kinds/{key}/1_plain.j2")

    def sentence(self, kind: str, style: int, context: dict[str, object]) -> str:
        """The sentence of paraphrase ``style`` of a kind."""
        return self.render(kind, style, context)[1]


_GLUED = re.compile(r"(?<=[a-z0-9)][.;!?])(?=[A-Z])")
_REPEATED = re.compile(r"\b([a-z]+) (?=\1\b)", re.IGNORECASE)


def reflow(text: str) -> str:
    """Rendered text on one line: blanks collapsed, one space after a sentence end that a template's
    line break had glued to the next sentence (``at 12.No step`` → ``at 12. No step``), and a role word
    not repeated before a name that begins with it (``Class Class Braldin`` → ``Class Braldin``, for
    the neutral labels of themed names)."""
    return _REPEATED.sub("", _GLUED.sub(" ", " ".join(text.split())))


@cache
def _listing(root: str, family: str, category: str) -> tuple[str, ...]:
    folder = Path(root) / family / category
    if not folder.is_dir():
        return ()
    files = sorted(folder.glob("*.j2"), key=lambda p: (_leading_number(p.name), p.name))
    return tuple(f"{family}/{category}/{p.name}" for p in files)


def _leading_number(name: str) -> int:
    match = re.match(r"(\d+)", name)
    return int(match.group(1)) if match else 1 << 30


#: Units the kind templates count in besides the role words (singular, plural).
COUNTED_UNITS = (("day", "days"), ("period", "periods"), ("weekend", "weekends"), ("hour", "hours"),
                 ("minute", "minutes"), ("time unit", "time units"), ("slot", "slots"))


def singular_plural_pairs(context: dict[str, object]) -> list[tuple[str, str]]:
    """(singular, plural) of every role word a template context carries (``unit``/``units``,
    ``agent``/``agent_many``, ...) and of :data:`COUNTED_UNITS`."""
    out = list(COUNTED_UNITS)
    for key in ("w", "r"):
        words = context.get(key)
        if isinstance(words, dict):
            for name, one in words.items():
                many = words.get(f"{name}s", words.get(f"{name}_many"))
                if isinstance(one, str) and isinstance(many, str) and one and many and one != many:
                    out.append((one, many))
    return out


@cache
def _number_pattern(pairs: frozenset[tuple[str, str]]) -> tuple[re.Pattern[str], dict[str, str]] | None:
    """A pattern of "1 <plural>" where 1 is a count of its own ("exactly 1 rooms"; not "0 and 1 days",
    "1.5 days" or "Room 1 days"), and the singular of each plural."""
    singular = {many: one for one, many in pairs}
    if not singular:
        return None
    alternatives = "|".join(re.escape(w) for w in sorted(singular, key=len, reverse=True))
    return re.compile(r"(?<![\w.,-])(?<!and )(?<!or )(?<!, )1 (" + alternatives + r")(?![\w-])"), singular


def role_words_in(context: dict[str, object]) -> list[str]:
    """The role words a template context carries (its vocabulary ``w`` and rule words ``r``)."""
    out: list[str] = []
    for key in ("w", "r"):
        words = context.get(key)
        if isinstance(words, dict):
            out += [v for v in words.values() if isinstance(v, str)]
    return out


@cache
def _sandbox_template(text: str) -> jinja2.Template:
    """A spec-provided text compiled once (a benchmark renders one family's background thousands of times)."""
    return sandbox_environment().from_string(text)


def render_string(text: str, context: dict[str, object]) -> str:
    """A spec-provided text (the family background) rendered in the sandbox."""
    try:
        return agree_articles(_sandbox_template(text).render(context), role_words_in(context))
    except jinja2.TemplateError as exc:
        raise SchedcError.at("E605", f"the family background is not a valid template: {exc}") from None


def render_shared(name: str, context: dict[str, object]) -> str:
    """A shared built-in template (system prompt, response format), blanks kept as written."""
    try:
        text = builtin_environment().get_template(name).render(context).strip()
    except jinja2.TemplateError as exc:
        raise SchedcError.at("E604", f"template {name} failed: {exc}") from None
    return agree_articles(text, role_words_in(context))


@cache
def _shared_template(text: str) -> jinja2.Template:
    return builtin_environment().from_string(text)


def render_shared_string(text: str, context: dict[str, object]) -> str:
    """A built-in sentence template given as a string (background assumptions), blanks collapsed."""
    try:
        rendered = " ".join(_shared_template(text).render(context).split())
    except jinja2.TemplateError as exc:
        raise SchedcError.at("E604", f"assumption template failed: {exc}") from None
    return agree_articles(rendered, role_words_in(context))
