"""A new game is content, never Python: generator/ names no game, component, item or game term."""

from __future__ import annotations

import re
from pathlib import Path

import yaml
from conftest import ROOT

# Words that are also ordinary programming or printing vocabulary, so finding them proves nothing.
GENERIC = {
    "card",
    "cards",
    "token",
    "tokens",
    "board",
    "boards",
    "back",
    "front",
    "count",
    "items",
    "color",
    "colour",
    "score",
    "track",
    "slots",
    "layout",
    "print",
    "check",
    "order",
    "orders",
    "move",
    "repair",
    "range",
    "black",
    "white",
    "red",
    "blue",
    "green",
    "yellow",
    "purple",
    "shield",
    "markers",
    "marker",
    "player",
    "players",
    "turn",
    "phase",
    "hidden",
    "alert",
    "objective",
    "activation",
    "action",
    "actions",
    "reward",
    "rewards",
    "deck",
    "value",
    "suit",
    "shape",
    "components",
    "current",
    "target",
    "stack",
    "breakdown",
    "draw",
    "space",
    "chain",
    "column",
    "restore",
    "setup",
    "declare",
    "declared",
    "cost",
    "crash",
    "cube",
    "damage",
    "game",
    "piece",
    "pieces",
    "base",
    "pass",
    "ability",
    "extended",
    "corner",
}


def key_terms(game_dir: Path) -> set[str]:
    terms = {game_dir.name}
    game = yaml.safe_load((game_dir / "game.yaml").read_text())
    title = game.get("title")
    terms |= set(title.values()) if isinstance(title, dict) else {title}
    for comp_file in (game_dir / "components").glob("*.yaml"):
        comp = yaml.safe_load(comp_file.read_text())
        terms.add(comp["id"])
        terms |= {item["id"] for item in comp.get("items", [])}
    glossary = game_dir / "glossary.yaml"
    if glossary.exists():
        for term in yaml.safe_load(glossary.read_text())["terms"]:
            terms.add(term["id"])
            terms.add(
                term.get("en", [""])[0] if isinstance(term.get("en"), list) else term.get("en", "")
            )
    return {t.lower() for t in terms if t and len(t) >= 4 and t.lower() not in GENERIC}


def test_generator_names_no_game():
    games = [p for p in (ROOT / "content").iterdir() if (p / "game.yaml").exists()]
    assert games
    terms = set().union(*(key_terms(g) for g in games))
    assert len(terms) > 50  # the check is only as good as its word list
    pattern = re.compile(
        r"(?<![\w-])("
        + "|".join(sorted(map(re.escape, terms), key=len, reverse=True))
        + r")(?![\w-])",
        re.IGNORECASE,
    )
    found = []
    for path in sorted((ROOT / "generator").rglob("*.py")):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            for match in pattern.finditer(line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {match.group(0)!r}")
    assert not found, "game names in generator/:\n" + "\n".join(found)
