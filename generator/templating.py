"""Text per language and sandboxed Jinja over item data.

Content may come from other people, so templates run in Jinja's SandboxedEnvironment with
StrictUndefined: `{{ ''.__class__ }}` is refused and a misspelt variable is an error.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from jinja2 import StrictUndefined, TemplateError, UndefinedError
from jinja2.sandbox import SandboxedEnvironment, SecurityError

from generator.errors import ContentError

_LANG = re.compile(r"^[a-z]{2}$")
MAX_RENDERED = 100_000  # characters; longer output is a runaway template


class _Env(SandboxedEnvironment):
    # Ranges and string repetition are the usual ways to make a template explode.
    def call_binop(self, context, operator, left, right):
        if operator in ("*", "**") and (
            isinstance(left, str)
            or isinstance(right, str)
            or (operator == "**" and isinstance(right, (int, float)) and abs(right) > 64)
        ):
            raise SecurityError("repetition and large powers are not allowed in templates")
        return super().call_binop(context, operator, left, right)


def _finalize(value: Any) -> Any:
    """What `{{ }}` prints. A mapping is never text: printing one means per-language text whose
    keys are not the game's languages (`eng:` for `en:`), or a wrong name."""
    if isinstance(value, dict):
        keys = ", ".join(str(k) for k in list(value)[:6])
        raise ContentError(
            f"a mapping ({keys}) is printed as text",
            code="mapping-as-text",
            hint="per-language text needs the game's language codes as keys (es, en, ko); "
            "otherwise print one of its values, e.g. {{ x.name }}",
        )
    return value


ENV = _Env(
    undefined=StrictUndefined, autoescape=False, keep_trailing_newline=False, finalize=_finalize
)
ENV.intercepted_binops = frozenset(["*", "**"])


def _small_range(*args):
    """range() for templates, capped so a template cannot build a huge list."""
    r = range(*args)
    if len(r) > 1000:
        raise SecurityError("range() in a template is limited to 1,000 numbers")
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
    return render(text, data)


ENV.filters["fill"] = _fill


def is_template(text: str) -> bool:
    return "{{" in text or "{%" in text or "{#" in text


@lru_cache(maxsize=4096)
def _compile(text: str):
    return ENV.from_string(text)


@lru_cache(maxsize=1024)
def _compile_expr(text: str):
    return ENV.compile_expression(text, undefined_to_none=False)


def _explain(exc: Exception) -> tuple[str, str | None]:
    if isinstance(exc, SecurityError):
        return f"template refused by the sandbox: {exc}", "templates may only read the item's data"
    if isinstance(exc, UndefinedError):
        return (
            f"template uses undefined data: {exc.message}",
            "check the name against the item's data keys",
        )
    message = getattr(exc, "message", None) or str(exc)
    return f"template error: {message}", "check the {{ }} and {% %} pairs"


def render(text: str, context: dict[str, Any]) -> str:
    """Render `text` as a template when it looks like one; plain text passes through."""
    if not is_template(text):
        return text
    try:
        out = _compile(text).render(context)
    except (
        TemplateError,
        SecurityError,
        TypeError,
        ValueError,
        ArithmeticError,
        AttributeError,
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


def evaluate(expression: str, context: dict[str, Any]) -> Any:
    """Evaluate a Jinja expression (an `if:` condition, a count) in the sandbox."""
    text = expression.strip()
    if text.startswith("{{") and text.endswith("}}"):
        text = text[2:-2]
    try:
        return _compile_expr(text)(**context)
    except (
        TemplateError,
        SecurityError,
        TypeError,
        ValueError,
        ArithmeticError,
        AttributeError,
    ) as exc:
        message, hint = _explain(exc)
        raise ContentError(message, hint=hint, code="template") from None


def check_syntax(text: str) -> None:
    """Raise a ContentError for a template that does not compile (an unclosed block)."""
    if is_template(text):
        try:
            _compile(text)
        except TemplateError as exc:
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
