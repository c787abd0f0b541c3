"""Text per language and sandboxed Jinja over item data.

Content may come from other people, so templates run in Jinja's SandboxedEnvironment with
StrictUndefined: `{{ ''.__class__ }}` is refused and a misspelt variable is an error.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import Any

from jinja2 import StrictUndefined, Template, TemplateError, UndefinedError, nodes
from jinja2.runtime import Context, new_context
from jinja2.sandbox import SandboxedEnvironment, SecurityError
from jinja2.visitor import NodeTransformer

from generator.cache.template_cache import CachedCompile
from generator.errors import ContentError
from generator.limits import LIMITS

_LANG = re.compile(r"^[a-z]{2}(?:-[A-Z][a-z]{3})?(?:-[A-Z]{2})?\Z")  # a language tag: es, zh-Hant
MAX_RENDERED = 100_000  # characters; longer output is a runaway template


_WIDTH = re.compile(r"(?<![0-9])([0-9]{4,})")  # a number of 4+ digits in a format spec


class _Budget:
    """What one top-level render may spend (limits.yaml, jinja): reset when it starts."""

    depth = 0
    loops = 0
    fills = 0


def _too_big(what: str, size: int, limit: int) -> SecurityError:
    return SecurityError(f"{what} would be {size:,} long (limit {limit:,})")


def _check_size(value: Any) -> Any:
    if isinstance(value, str):
        if len(value) > LIMITS.jinja.string_chars:
            raise _too_big("a string", len(value), LIMITS.jinja.string_chars)
    elif isinstance(value, (list, tuple, dict)) and len(value) > LIMITS.jinja.list_items:
        raise _too_big("a list", len(value), LIMITS.jinja.list_items)
    return value


def _check_spec(spec: str) -> None:
    """'%0999999999d' or '{:999999999}': refuse widths and precisions no text needs."""
    for digits in _WIDTH.findall(spec):
        if int(digits) > LIMITS.jinja.string_chars:
            raise _too_big("a formatted field", int(digits), LIMITS.jinja.string_chars)


def _check_int(value: Any) -> None:
    if isinstance(value, int) and value.bit_length() > LIMITS.jinja.power_bits:
        raise SecurityError(
            f"a number of {value.bit_length()} bits (limit {LIMITS.jinja.power_bits})"
        )


_WIDTH_METHODS = {"ljust", "rjust", "center", "zfill", "expandtabs"}
# Operators whose result on two plain numbers is a plain number no limit applies to.
_PLAIN_OPS = frozenset(["+", "//", "%"])
_NUMBERS = frozenset([int, float])


class _Template(Template):
    def render(self, *args: Any, **kwargs: Any) -> str:
        # The loop budget is per top-level render; fill() renders inside a render.
        if _Budget.depth == 0:
            _Budget.loops = _Budget.fills = 0
        _Budget.depth += 1
        try:
            if (
                self.environment.is_async
                or kwargs
                or len(args) != 1
                or not isinstance(args[0], dict)
            ):
                return super().render(*args, **kwargs)
            # Jinja's render, less its copy of the mapping: new_context copies it anyway.
            ctx = self.new_context(args[0])
            try:
                return self.environment.concat(self.root_render_func(ctx))
            except Exception:
                self.environment.handle_exception()
        except RecursionError:
            raise SecurityError(
                "recursion too deep (a macro or fill() that calls itself?)"
            ) from None
        finally:
            _Budget.depth -= 1

    def new_context(
        self,
        vars: dict[str, Any] | None = None,
        shared: bool = False,
        locals: Mapping[str, Any] | None = None,
    ) -> Context:
        """Jinja's context, built from one flat copy of the globals: Jinja's own flattens the
        template's globals (a ChainMap, slow to iterate) twice per render, and a card check
        renders thousands of small texts. The globals are fixed once ENV is set up."""
        if shared or locals:
            return super().new_context(vars, shared, locals)
        flat = self.__dict__.get("_flat_globals")
        if flat is None:
            flat = self.__dict__["_flat_globals"] = dict(self.globals)
        parent = {**flat, **vars} if vars else dict(flat)
        # No globals: their keys only matter to {% import %}, which has no loader here.
        return new_context(self.environment, self.name, self.blocks, parent, True, None)


class _Env(CachedCompile, SandboxedEnvironment):
    """The sandbox, limited: loop iterations, string and list sizes, big numbers, recursion.

    Jinja's own sandbox stops escapes to Python but not runaway work: `range(1000)` nested
    three deep, `[0] * 300000000`, `'%0999999999d' % 1` or `9 ** 64 ** 64` all pass it.
    Compiled templates are kept between commands (template_cache.py).
    """

    template_class = _Template
    intercepted_binops = frozenset(["*", "**", "%", "+", "//"])

    def call_binop(self, context, operator, left, right):
        if operator in _PLAIN_OPS and type(left) in _NUMBERS and type(right) in _NUMBERS:
            return self.binop_table[operator](left, right)  # nothing to budget (card maths)
        jinja = LIMITS.jinja
        if operator == "*":
            seq, times = (left, right) if isinstance(left, (str, list, tuple)) else (right, left)
            if isinstance(seq, (str, list, tuple)) and isinstance(times, int):
                limit = jinja.string_chars if isinstance(seq, str) else jinja.list_items
                if len(seq) * times > limit:
                    raise _too_big("a repetition", len(seq) * times, limit)
            elif (
                isinstance(left, int)
                and isinstance(right, int)
                and left.bit_length() + right.bit_length() > jinja.power_bits
            ):
                raise SecurityError("a product too large to compute")
        elif operator == "**":
            if isinstance(left, int) and isinstance(right, int) and right > 0:
                bits = max(left.bit_length(), 1) * right
                if abs(left) > 1 and bits > jinja.power_bits:
                    raise SecurityError(
                        f"a power of about {bits:,} bits (limit {jinja.power_bits})"
                    )
        elif operator == "%" and isinstance(left, str):
            _check_spec(left)
        elif operator == "+" and type(left) is type(right) and isinstance(left, (str, list, tuple)):
            limit = jinja.string_chars if isinstance(left, str) else jinja.list_items
            if len(left) + len(right) > limit:  # refused before the result exists
                raise _too_big("a concatenation", len(left) + len(right), limit)
        result = super().call_binop(context, operator, left, right)
        return _check_size(result)

    def call(__self, __context, __obj, *args, **kwargs):
        # str.format reaches us wrapped by the sandbox: the string is on the wrapped method.
        owner = getattr(__obj, "__self__", None)
        if owner is None:
            owner = getattr(getattr(__obj, "__wrapped__", None), "__self__", None)
        name = getattr(__obj, "__name__", "")
        if isinstance(owner, str):
            wide = args and isinstance(args[0], int) and args[0] > LIMITS.jinja.string_chars
            if name in _WIDTH_METHODS and wide:
                raise _too_big(f"str.{name}()", args[0], LIMITS.jinja.string_chars)
            if name == "join" and args:
                _check_join(owner, args[0])
            if name == "replace" and len(args) >= 2:
                _check_replace(owner, *args[:2])
            if name in ("format", "format_map"):
                _check_spec(owner)
                if re.search(r"\{[^{}]*\{", owner):  # a width taken from an argument
                    for value in (*args, *kwargs.values()):
                        _check_spec(str(value) if isinstance(value, int) else "")
        result = super().call(__context, __obj, *args, **kwargs)
        return _check_size(result)

    def _parse(self, source, name, filename):
        _refuse_deep_nesting(source)
        # Every {% for %} iterates through a counter: nested loops share one budget.
        tree = _SizedConcat().visit(super()._parse(source, name, filename))
        for loop in tree.find_all(nodes.For):
            loop.iter = nodes.Filter(loop.iter, "pnp_loop", [], [], None, None, lineno=loop.lineno)
        return tree


class _SizedConcat(NodeTransformer):
    """`a ~ b ~ c` becomes `[a, b, c] | pnp_concat`: the size is checked before the join."""

    def visit_Concat(self, node: nodes.Concat) -> nodes.Node:
        parts = [self.visit(n) for n in node.nodes]
        return nodes.Filter(
            nodes.List(parts, lineno=node.lineno),
            "pnp_concat",
            [],
            [],
            None,
            None,
            lineno=node.lineno,
        )


def _concat(values) -> str:
    texts = [str(v) for v in values]  # each part is already within the budget
    size = sum(len(t) for t in texts)
    if size > LIMITS.jinja.string_chars:
        raise _too_big("a '~' concatenation", size, LIMITS.jinja.string_chars)
    return "".join(texts)


def _check_join(sep: str, items) -> list:
    """The size of `sep.join(items)` before it is made; returns the items as a list."""
    items = list(items) if not isinstance(items, (list, tuple)) else items
    if len(items) > LIMITS.jinja.list_items:
        raise _too_big("a list", len(items), LIMITS.jinja.list_items)
    size = sum(len(str(v)) for v in items) + len(sep) * max(len(items) - 1, 0)
    if size > LIMITS.jinja.string_chars:
        raise _too_big("a join", size, LIMITS.jinja.string_chars)
    return list(items)


def _check_replace(text, old, new, count=-1) -> None:
    if not (isinstance(text, str) and isinstance(old, str) and isinstance(new, str)):
        return
    n = text.count(old) if old else len(text) + 1
    if isinstance(count, int) and count >= 0:
        n = min(n, count)
    size = len(text) + n * (len(new) - len(old))
    if size > LIMITS.jinja.string_chars:
        raise _too_big("a replace", size, LIMITS.jinja.string_chars)


def _check_indent(text, width=4, first=False, blank=False) -> None:
    w = len(width) if isinstance(width, str) else width if isinstance(width, int) else 0
    lines = str(text).count("\n") + 1
    size = len(str(text)) + max(w, 0) * lines
    if size > LIMITS.jinja.string_chars:
        raise _too_big("an indent", size, LIMITS.jinja.string_chars)


_PRECHECKS = {"do_join": "join", "do_replace": "replace", "do_indent": "indent"}


def _loop(iterable):
    limit = LIMITS.jinja.loop_iterations
    for value in iterable:
        _Budget.loops += 1
        if _Budget.loops > limit:
            raise SecurityError(f"more than {limit:,} loop iterations in one template")
        yield value


def _guarded(filter_func):
    """A built-in filter whose arguments and result are held to the budget."""

    skip = 2 if getattr(filter_func, "jinja_pass_arg", None) else 1  # (context,) value

    @functools.wraps(filter_func)
    def run(*args, **kwargs):
        for value in (*args[skip:], *kwargs.values()):  # the arguments, not the value filtered
            if (
                isinstance(value, int)
                and not isinstance(value, bool)
                and value > LIMITS.jinja.string_chars
            ):
                raise _too_big(
                    f"an argument of '{filter_func.__name__}'", value, LIMITS.jinja.string_chars
                )
        if filter_func.__name__ in ("do_format", "format"):
            for value in args:
                if isinstance(value, str):
                    _check_spec(value)
        given = list(args[skip - 1 :])  # the value filtered, then the arguments
        which = _PRECHECKS.get(filter_func.__name__)
        if which == "join" and given:  # the size it is about to make, before making it
            items = _check_join(str(given[1]) if len(given) > 1 else "", given[0])
            args = (*args[: skip - 1], items, *args[skip:])
        elif which == "replace" and len(given) >= 3:
            _check_replace(*given[:4])
        elif which == "indent" and given:
            _check_indent(
                given[0], *given[1:2], **{k: v for k, v in kwargs.items() if k == "width"}
            )
        return _check_size(filter_func(*args, **kwargs))

    return run


def _finalize(value: Any) -> Any:
    """What `{{ }}` prints. A mapping is never text: printing one means per-language text whose
    keys are not the game's languages (`eng:` for `en:`), or a wrong name."""
    if isinstance(value, dict):
        keys = ", ".join(str(k) for k in list(value)[:6])
        raise ContentError(
            f"a mapping ({keys}) is printed as text",
            code="mapping-as-text",
            hint="per-language text takes the codes in game.yaml's languages: as keys; "
            "otherwise print one of its values, e.g. {{ x.name }}",
        )
    return value


ENV = _Env(
    undefined=StrictUndefined, autoescape=False, keep_trailing_newline=False, finalize=_finalize
)
ENV.filters = {name: _guarded(f) for name, f in ENV.filters.items()}
ENV.filters["pnp_loop"] = _loop
ENV.filters["pnp_concat"] = _concat


def _small_range(*args):
    """range() for templates, capped so a template cannot build a huge list."""
    r = range(*args)
    if len(r) > LIMITS.jinja.range_items:
        raise SecurityError(
            f"range() in a template is limited to {LIMITS.jinja.range_items:,} numbers"
        )
    return r


ENV.globals["range"] = _small_range
ENV.globals.pop("lipsum", None)
ENV.globals.pop("cycler", None)
ENV.globals.pop("joiner", None)
ENV.globals.pop("namespace", None)


def _fill(text, data):
    """`{{ cell.effect | fill(cell) }}`: a data string that is itself a template, rendered over the
    mapping it belongs to (an ability's effect text over that ability's own numbers)."""
    if not isinstance(text, str):
        return text
    if not isinstance(data, dict):
        raise SecurityError("fill() needs a mapping of values")
    _Budget.fills += 1
    if _Budget.depth > LIMITS.jinja.fill_depth or _Budget.fills > LIMITS.jinja.loop_iterations:
        raise SecurityError(f"fill() nested more than {LIMITS.jinja.fill_depth} deep")
    return render(text, data)


ENV.filters["fill"] = _fill


def is_template(text: str) -> bool:
    return "{{" in text or "{%" in text or "{#" in text


@lru_cache(maxsize=4096)
def _compile(text: str):
    return ENV.from_string(text)


@lru_cache(maxsize=1024)
def _compile_expr(text: str):
    _refuse_deep_nesting(text)
    return ENV.compile_expression(text, undefined_to_none=False)


_BRACKETS = re.compile(r"[()\[\]{}]")
_TAGS = re.compile(r"\{\{.*?\}\}|\{%.*?%\}", re.DOTALL)


def _refuse_deep_nesting(source: str) -> None:
    """Brackets nested deeper than limits.yaml allows are refused before Jinja's parser, which
    recurses once per level: reaching Python's recursion limit there is slow, and whatever the
    garbage collector finalises at that depth fails too and prints noise of its own."""
    limit = LIMITS.jinja.nesting
    if source.count("(") + source.count("[") + source.count("{") <= limit:
        return
    # Inside {{ }} and {% %} only: the text around them is prose, where a ":(" is no bracket.
    tags = _TAGS.findall(source) if is_template(source) else [source]
    for tag in tags:
        depth = 0
        for match in _BRACKETS.finditer(tag):
            depth += 1 if match.group() in "([{" else -1
            if depth > limit:
                raise RecursionError(f"brackets nested more than {limit} deep")


def _explain(exc: Exception) -> tuple[str, str | None]:
    if isinstance(exc, RecursionError):
        return "template nested or recursing too deeply", "simplify the expression or macro"
    if isinstance(exc, SecurityError):
        return f"template refused by the sandbox: {exc}", "templates may only read the item's data"
    if isinstance(exc, UndefinedError):
        return (
            f"template uses undefined data: {exc.message}",
            "check the name against the item's data keys",
        )
    message = getattr(exc, "message", None) or str(exc)
    return f"template error: {message}", "check the {{ }} and {% %} pairs"


_NAME_ONLY = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")


@lru_cache(maxsize=4096)
def _name_only(text: str) -> str | None:
    """The name a template made of one `{{ name }}` prints, compiled once per text."""
    found = _NAME_ONLY.fullmatch(text)
    return found.group(1) if found else None


def render(text: str, context: dict[str, Any]) -> str:
    """Render `text` as a template when it looks like one; plain text passes through. A
    template that only prints one name of the context (`{{ title }}`, most of a card's texts)
    gives that value as Jinja would (a string as it is, an integer in decimal) without running
    the template; anything else (a missing name, a number with a fraction, a mapping) takes
    the full render and its errors."""
    if not is_template(text):
        return text
    name = _name_only(text)
    if name is not None:
        value = context.get(name)
        if type(value) is str or type(value) is int:
            return str(value)  # a string itself, not a copy
    try:
        out = _compile(text).render(context)
    except (
        TemplateError,
        SecurityError,
        TypeError,
        ValueError,
        ArithmeticError,
        AttributeError,
        RecursionError,
    ) as exc:
        message, hint = _explain(exc)
        raise ContentError(message, hint=hint, code="template") from None
    if len(out) > MAX_RENDERED:
        raise ContentError(
            f"template output is {len(out)} characters long",
            code="template",
            hint="a runaway template; keep text short",
        )
    return out


def render_data(
    mapping: dict[str, Any],
    scope: dict[str, Any] | None = None,
    *,
    nested: bool = False,
    on_error: Callable[[str, ContentError], Any] | None = None,
    where: str = "",
) -> dict[str, Any]:
    """Data strings are templates: an effect text "Hace {{ damage }} daño" is rendered over the
    data it belongs to, so a card and the rulebook's tables print the same words. The one rule,
    used two ways:

    - a face (`nested=False`): the face's whole context, in place, one level deep; each string
      sees the values before it already rendered;
    - the rulebook's game data (`nested=True`): every mapping, however deep, each string over
      the plain values of its own mapping and of the mappings around it (`scope`).

    A string that cannot be rendered raises, or becomes `on_error(key, error)`."""
    if not nested:
        for key, value in list(mapping.items()):
            if isinstance(value, str) and is_template(value):
                mapping[key] = _rendered(f"{where}{key}", value, mapping, on_error)
        return mapping
    return _walk(value=mapping, scope=scope or {}, where=where, on_error=on_error)


# Module functions, not closures: a recursive closure is a reference cycle, garbage for the
# cyclic collector on every face's context.
def _walk(value: Any, scope: dict[str, Any], where: str, on_error) -> Any:
    if isinstance(value, list):
        return [_walk(v, scope, where, on_error) for v in value]
    if not isinstance(value, dict):
        return value
    inner = {**scope, **{k: v for k, v in value.items() if not isinstance(v, dict | list)}}
    return {
        key: _rendered(f"{where}{key}", item, inner, on_error)
        if isinstance(item, str) and is_template(item)
        else _walk(item, inner, f"{where}{key}.", on_error)
        for key, item in value.items()
    }


def _rendered(key: str, text: str, over: dict[str, Any], on_error) -> Any:
    try:
        return render(text, over)
    except ContentError as exc:
        if on_error is None:
            raise
        return on_error(key, exc)


def evaluate(expression: str, context: dict[str, Any]) -> Any:
    """Evaluate a Jinja expression (an `if:` condition, a count) in the sandbox."""
    text = expression.strip()
    if text.startswith("{{") and text.endswith("}}"):
        text = text[2:-2]
    try:
        # TemplateExpression.__call__, less two copies of the context (new_context makes one).
        template = _compile_expr(text)._template
        ctx = template.new_context(context)
        for _ in template.root_render_func(ctx):
            pass
        return ctx.vars["result"]
    except (
        TemplateError,
        SecurityError,
        TypeError,
        ValueError,
        ArithmeticError,
        AttributeError,
        RecursionError,
    ) as exc:
        message, hint = _explain(exc)
        raise ContentError(message, hint=hint, code="template") from None


def check_syntax(text: str) -> None:
    """Raise a ContentError for a template that does not compile (an unclosed block)."""
    if is_template(text):
        try:
            _compile(text)
        except (TemplateError, RecursionError) as exc:
            message, hint = _explain(exc)
            raise ContentError(message, hint=hint, code="template") from None


def localize(value: Any, lang: str, languages: tuple[str, ...]) -> Any:
    """Pick `lang` out of per-language values, recursively through lists and mappings.

    A mapping counts as per-language text when its keys all look like language codes and one of
    them is a language of the game ({es: ..., fr: ...} in a game without fr still needs its es).
    """
    if isinstance(value, dict):
        if (
            value
            and all(isinstance(k, str) and _LANG.match(k) for k in value)
            and any(k in languages for k in value)
        ):
            if lang not in value:
                raise ContentError(
                    f"no '{lang}' text (has {', '.join(value)})",
                    getattr(value, "file", None),
                    getattr(value, "line", None),
                    hint=f"add a '{lang}:' entry",
                    code="missing-language",
                )
            return value[lang]
        return {k: localize(v, lang, languages) for k, v in value.items()}
    if isinstance(value, list):
        return [localize(v, lang, languages) for v in value]
    return value


def pick(value: Any, lang: str) -> str:
    """A LangText field (a string, or one string per language) in `lang`."""
    if isinstance(value, dict):
        if lang not in value:
            raise ContentError(
                f"no '{lang}' text (has {', '.join(value)})",
                hint=f"add a '{lang}:' entry",
                code="missing-language",
            )
        return value[lang]
    return value
