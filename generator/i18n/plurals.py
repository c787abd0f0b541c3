"""Counted strings as gettext plural entries (`msgid` / `msgid_plural` / `msgstr[n]`).

In the YAML a counted string chooses its words with Jinja: `Mueve {{ value }} {{ 'casilla' if
value == 1 else 'casillas' }}`. A source text whose choices all have that form and read one
variable is *counted*: its PO entry is a plural entry, the msgid the text for one
(`Mueve {0} casilla`), the msgid_plural the text for many (`Mueve {0} casillas`), and one
msgstr per plural form of the target language (its `Plural-Forms`, from
`templates/languages/<code>.yaml`). Form i of a translation is the translation rendered with
the counter set to a number of that form (1 for the form of 1, else the smallest such number
from 2 up, else 0), the data placeholders kept as `{n}`.

Import writes the forms back as the language's own Jinja: nothing when the forms are what the
translation already gives (so export then import changes no byte), one text when every form
is the same (Korean), else the common start and end once and a choice between the parts that
differ, with the condition taken from the language's plural formula
(`{{ 'Karte' if value == 1 else 'Karten' }}`, `{% if ... %}...{% elif ... %}...{% endif %}`
for three forms or where a part holds a placeholder).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from generator import session
from generator.load import templating

CHOICE = re.compile(
    r"\{\{-?\s*(?P<q1>['\"])(?P<one>[^'\"\\{}]*)(?P=q1)\s+if\s+(?P<var>[A-Za-z_]\w*)\s*==\s*1"
    r"\s+else\s+(?P<q2>['\"])(?P<many>[^'\"\\{}]*)(?P=q2)\s*-?\}\}"
)
_FORMS = re.compile(r"nplurals\s*=\s*(\d+)\s*;\s*plural\s*=\s*(.+?);?\s*$")
_SEARCH = 1000  # numbers tried for a form's representative


@dataclass
class Counted:
    """A counted source text: its counter and the text for one and for many."""

    var: str
    one: str
    many: str
    choices: list[str]  # the Jinja blocks that choose words


def counted(text: str) -> Counted | None:
    found = list(CHOICE.finditer(text))
    if not found or len({m["var"] for m in found}) != 1:
        return None
    one = CHOICE.sub(lambda m: m["one"], text)
    many = CHOICE.sub(lambda m: m["many"], text)
    if one == many:
        return None
    return Counted(found[0]["var"], one, many, [m.group() for m in found])


@dataclass
class Rule:
    """A language's plural rule: how many forms, and the form of a number n."""

    count: int
    expr: str  # a Jinja expression of n (converted from the C of Plural-Forms)

    def form(self, n: int) -> int:
        return int(_form_template(self.expr).render(n=n))

    def representatives(self) -> list[int]:
        """One number per form: 1 for the form of 1, else the smallest from 2 up, else 0."""
        return list(_representatives(self.count, self.expr))

    def condition(self, form: int, var: str) -> str:
        """A Jinja condition on `var` true for the numbers of `form`."""
        expr = re.sub(r"\bn\b", var, self.expr)
        if self.count == 2:
            simple = {
                f"({var} != 1)": f"{var} == 1",
                f"{var} != 1": f"{var} == 1",
                f"({var} > 1)": f"{var} <= 1",
                f"{var} > 1": f"{var} <= 1",
            }
            if form == 0:
                return simple.get(expr.strip(), f"not ({expr})")
            return f"({expr})"
        return f"(({expr}) | int) == {form}"


# Once per rule and command: an export asks for a language's representatives once per counted
# string, and each is a thousand renders of the formula (compiling it each time cost seconds).
@session.cached
def _form_template(expr: str):
    return templating.ENV.from_string("{{ (" + expr + ") | int }}")


@session.cached
def _representatives(count: int, expr: str) -> tuple[int, ...]:
    template = _form_template(expr)
    seen: dict[int, int] = {}
    for n in [1, *range(2, _SEARCH), 0]:
        seen.setdefault(int(template.render(n=n)), n)
    return tuple(seen.get(i, 0) for i in range(count))


def rule(plural_forms: str | None) -> Rule:
    """The rule of a `Plural-Forms` header (`nplurals=2; plural=(n != 1);`); none: one form
    for one and another for the rest, as the source's own choices."""
    m = _FORMS.match((plural_forms or "").strip())
    if not m:
        return Rule(2, "n != 1")
    return Rule(int(m.group(1)), c_to_jinja(m.group(2)))


def c_to_jinja(expr: str) -> str:
    """A C plural expression (`n%10==1 && n%100!=11 ? 0 : 1`) as Jinja."""
    expr = expr.strip()
    while expr.startswith("(") and _closing(expr, 0) == len(expr) - 1:
        expr = expr[1:-1].strip()
    q = _top_level(expr, "?")
    if q is not None:
        depth, pending, colon = 0, 0, None  # pending: nested '?' waiting for their ':'
        for i in range(q + 1, len(expr)):
            ch = expr[i]
            if ch == "(":
                depth += 1
            elif ch == ")":
                depth -= 1
            elif depth == 0 and ch == "?":
                pending += 1
            elif depth == 0 and ch == ":":
                if pending == 0:
                    colon = i
                    break
                pending -= 1
        if colon is None:
            raise ValueError(f"not a plural expression: {expr}")
        cond, a, b = expr[:q], expr[q + 1 : colon], expr[colon + 1 :]
        return f"(({c_to_jinja(a)}) if ({c_to_jinja(cond)}) else ({c_to_jinja(b)}))"
    out = expr.replace("&&", " and ").replace("||", " or ")
    out = re.sub(r"!(?!=)", " not ", out)
    return out


def _closing(expr: str, start: int) -> int:
    depth = 0
    for i in range(start, len(expr)):
        if expr[i] == "(":
            depth += 1
        elif expr[i] == ")":
            depth -= 1
            if depth == 0:
                return i
    return -1


def _top_level(expr: str, char: str) -> int | None:
    depth = 0
    for i, ch in enumerate(expr):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == char and depth == 0:
            return i
    return None


def forms(text: str, var: str, numbers: list[int]) -> list[str]:
    """A (placeholder-protected) translation rendered for each number: its own Jinja (the
    choices) evaluated with the counter set, the `{n}` placeholders left as they are."""
    out = []
    for n in numbers:
        try:
            out.append(templating.ENV.from_string(text).render({var: n}))
        except Exception:
            out.append(text)
    return out


def _quote(text: str) -> str:
    q = "'" if "'" not in text else '"'
    return q + text + q


def jinja(parts: list[str], var: str, plural_rule: Rule) -> str:
    """The one (placeholder-protected) text that gives `parts[i]` for the numbers of form i."""
    if all(p == parts[0] for p in parts):
        return parts[0]
    prefix = _common_prefix(parts)
    suffix = _common_prefix([p[len(prefix) :][::-1] for p in parts])[::-1]
    # whole words: a choice between "Karte" and "Karten", not "" and "n"
    cut = max(prefix.rfind(" "), -1) + 1
    prefix = prefix[:cut]
    first_space = suffix.find(" ")
    suffix = suffix[first_space:] if first_space >= 0 else ""
    middles = [p[len(prefix) : len(p) - len(suffix)] for p in parts]
    simple = len(parts) == 2 and not any(
        ("{" in m or "}" in m or ("'" in m and '"' in m)) for m in middles
    )
    if simple:
        cond = plural_rule.condition(0, var)
        return f"{prefix}{{{{ {_quote(middles[0])} if {cond} else {_quote(middles[1])} }}}}{suffix}"
    chain = ""
    for i, middle in enumerate(middles):
        if i == 0:
            chain += f"{{% if {plural_rule.condition(i, var)} %}}{middle}"
        elif i < len(middles) - 1:
            chain += f"{{% elif {plural_rule.condition(i, var)} %}}{middle}"
        else:
            chain += f"{{% else %}}{middle}{{% endif %}}"
    return prefix + chain + suffix


def _common_prefix(texts: list[str]) -> str:
    first = texts[0]
    n = 0
    while n < len(first) and all(len(t) > n and t[n] == first[n] for t in texts):
        n += 1
    return first[:n]
