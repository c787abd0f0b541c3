"""The manifest's `invariants:`: small expressions over counts and constants that must hold.

    constants: {ships: 6, crew_per_ship: 6}
    invariants:
      - crew_cubes == ships * crew_per_ship
      - order_cards == 30
      - map_cards_used == 12 <= map_cards

Names:
- a component id, '-' written '_', is the component's total: the manifest's count (the content's
  total when the manifest does not list it; `check_manifest` reports when the two differ);
- `component.item` is one item's count (`tokens.crew_cube`, ids written with '_' too);
- every key of `constants:`.

Expressions are evaluated by simpleeval (never Python's eval): numbers, names, + - * / // % **
(bounded), comparisons (chains too), and/or/not, and min, max, abs. A failed comparison names
both sides with their values: "crew_cubes (36) == ships * crew_per_ship (6 × 5 = 30)".
"""

from __future__ import annotations

import ast
import difflib
import operator

from simpleeval import (
    AttributeDoesNotExist,
    FeatureNotAvailable,
    InvalidExpression,
    IterableTooLong,
    NameNotDefined,
    NumberTooHigh,
    SimpleEval,
    safe_add,
    safe_mult,
    safe_power,
)

from generator.check.game import GameView
from generator.errors import Finding

OPERATORS = {
    ast.Add: safe_add,
    ast.Sub: operator.sub,
    ast.Mult: safe_mult,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.USub: operator.neg,
    ast.UAdd: operator.pos,
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.Not: operator.not_,
}
SYMBOLS = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}
FUNCTIONS = {"min": min, "max": max, "abs": abs}
MAX_LENGTH = 500


OPERATORS[ast.Pow] = safe_power


def mangle(name: str) -> str:
    return name.replace("-", "_")


def names(view: GameView) -> dict[str, float]:
    """Every name an invariant may use, with its value."""
    out: dict[str, float] = {}
    for comp_id, (count, _) in view.totals.items():
        out[mangle(comp_id)] = count
    for comp in view.content.components:
        for item in comp.items:
            key = f"{mangle(comp.id)}.{mangle(item.id)}"
            out[key] = out.get(key, 0) + item.count
    manifest = view.content.manifest
    if manifest is not None:
        for key, value in manifest.constants.items():
            out[mangle(key)] = value
    return out


class _Dotted(ast.NodeTransformer):
    """`component.item` becomes one name: no look-ups on objects at run time."""

    def visit_Attribute(self, node):
        if isinstance(node.value, ast.Name):
            return ast.copy_location(
                ast.Name(id=f"{node.value.id}.{node.attr}", ctx=ast.Load()), node
            )
        return self.generic_visit(node)


class _Values(ast.NodeTransformer):
    """Names replaced by their values, to show how a side was computed."""

    def __init__(self, values):
        self.values = values

    def visit_Name(self, node):
        if node.id in self.values:
            return ast.copy_location(ast.Constant(self.values[node.id]), node)
        return node


def _evaluator(values: dict) -> SimpleEval:
    return SimpleEval(operators=OPERATORS, functions=FUNCTIONS, names=values)


def _show(value) -> str:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    text = str(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _side(node: ast.expr, values: dict, evaluator: SimpleEval) -> tuple[object, str]:
    """A side's value and how to read it: "ships * crew_per_ship (6 × 5 = 30)"."""
    value = evaluator.eval("", previously_parsed=node)
    text = ast.unparse(node)
    if isinstance(node, ast.Constant):
        return value, text
    if isinstance(node, ast.Name):
        return value, f"{text} ({_show(value)})"
    shown = ast.unparse(_Values(values).visit(ast.parse(text, mode="eval")).body)
    shown = shown.replace(" * ", " × ").replace(" / ", " ÷ ")
    return value, f"{text} ({shown} = {_show(value)})"


def evaluate(expression: str, values: dict) -> tuple[bool, str]:
    """(holds, explanation). Raises InvalidExpression, SyntaxError or ValueError for bad ones."""
    if len(expression) > MAX_LENGTH:
        raise ValueError(f"longer than {MAX_LENGTH} characters")
    tree = ast.parse(expression.strip(), mode="eval")
    tree = _Dotted().visit(tree)
    ast.fix_missing_locations(tree)
    evaluator = _evaluator(values)
    body = tree.body
    if isinstance(body, ast.Compare):
        left_node = body.left
        left = _side(left_node, values, evaluator)
        for op, right_node in zip(body.ops, body.comparators, strict=True):
            if type(op) not in SYMBOLS:
                raise ValueError(f"operator '{type(op).__name__}' is not allowed")
            right = _side(right_node, values, evaluator)
            if not OPERATORS[type(op)](left[0], right[0]):
                return False, f"{left[1]} {SYMBOLS[type(op)]} {right[1]}"
            left = right
        return True, ""
    result = evaluator.eval("", previously_parsed=body)
    if not isinstance(result, bool):
        raise ValueError("an invariant must be a comparison or a true/false expression")
    return result, f"{expression.strip()} is false"


def check(view: GameView) -> list[Finding]:
    manifest = view.content.manifest
    if manifest is None or not manifest.invariants:
        return []
    file = view.rel(view.content.dir / "manifest.yaml")
    raw = view.content.manifest_raw
    values = names(view)
    out = []
    for index, expression in enumerate(manifest.invariants):
        try:
            line = raw["invariants"].line_of(index)
        except (KeyError, TypeError, AttributeError):
            line = None
        where = dict(file=file, line=line, key=f"invariants[{index}]")
        try:
            holds, why = evaluate(expression, values)
        except NameNotDefined as exc:
            close = difflib.get_close_matches(exc.name, list(values), n=1)
            hint = f"did you mean '{close[0]}'? " if close else ""
            out.append(
                Finding(
                    "error",
                    "invariant-bad",
                    f"invariant '{expression}': unknown name '{exc.name}'",
                    hint=hint + "names: components (id with '_'), component.item, constants",
                    **where,
                )
            )
            continue
        except (
            SyntaxError,
            InvalidExpression,
            FeatureNotAvailable,
            AttributeDoesNotExist,
            NumberTooHigh,
            IterableTooLong,
            ValueError,
            TypeError,
            ArithmeticError,
            RecursionError,
        ) as exc:
            message = exc.msg if isinstance(exc, SyntaxError) else str(exc)
            out.append(
                Finding(
                    "error",
                    "invariant-bad",
                    f"invariant '{expression}' cannot be evaluated: {message}",
                    hint="write a comparison such as 'crew_cubes == ships * crew_per_ship'",
                    **where,
                )
            )
            continue
        if not holds:
            out.append(
                Finding(
                    "error",
                    "invariant-failed",
                    f"invariant does not hold: {why}",
                    hint="fix the counts or the constants in manifest.yaml",
                    **where,
                )
            )
    return out
