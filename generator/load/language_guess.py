"""Which of a few languages a short text is written in, from language data only.

Two clues, both from templates/languages/<code>.yaml: the language's `script` (the share of the
text's letters whose Unicode name starts with it: LATIN, HANGUL, CYRILLIC...) and its
`stopwords` (articles and prepositions: "de", "la", "und"...). A text is guessed as a language
when most of its letters are in that language's script and, among the candidates sharing that
script, it says clearly more of that language's stopwords than of any other's. When the clues
do not decide (a name, a number, two words), the answer is None: callers never guess.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from functools import lru_cache

from generator.load import languages
from generator.load.rules_source import plain

# a word: letters, with one inner apostrophe (check/text.py uses the same)
WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?")

_ICON = re.compile(r":[a-z][a-z0-9_-]*:")


@lru_cache(maxsize=4096)
def _script_of(ch: str) -> str:
    try:
        return unicodedata.name(ch).split(" ", 1)[0].casefold()
    except ValueError:
        return ""


def script_share(text: str, script: str) -> float | None:
    """The share of the text's letters in `script`, None when it has no letter."""
    return _share(_letters_by_script(text), script)


def _letters_by_script(text: str) -> Counter[str]:
    """How many of the text's letters each script has (a text repeats its letters: each
    distinct one is looked up once)."""
    out: Counter[str] = Counter()
    for ch, n in Counter(text).items():
        if ch.isalpha():
            out[_script_of(ch)] += n
    return out


def _share(scripts: Counter[str], script: str) -> float | None:
    letters = scripts.total()
    return scripts[script.casefold()] / letters if letters else None


def guess(text: str, candidates: list[str]) -> str | None:
    """The candidate language `text` is written in, or None when that is not clear."""
    text = _ICON.sub(" ", plain(text))
    if sum(1 for w in WORD.findall(text) if len(w) > 1) < 4:
        return None
    in_script = []
    scripts = _letters_by_script(text)
    for lang in candidates:
        share = _share(scripts, languages.get(lang).script)
        if share is not None and share >= 0.6:
            in_script.append(lang)
    if not in_script:
        return None
    if len({languages.get(lang).script for lang in in_script}) > 1:
        return None
    words = [m.group().casefold() for m in WORD.finditer(text)]
    if len(in_script) == 1:
        lang = in_script[0]
        stop = languages.get(lang).stopwords
        return lang if not stop or sum(1 for w in words if w in stop) >= 2 else None
    # only the stopwords no other candidate shares count ("de" is Spanish and French)
    stops = {lang: languages.get(lang).stopwords for lang in in_script}
    hits, distinct = {}, {}
    for lang in in_script:
        others = set().union(*(stops[o] for o in in_script if o != lang))
        mine = [w for w in words if w in stops[lang] and w not in others]
        hits[lang], distinct[lang] = len(mine), len(set(mine))
    ranked = sorted(in_script, key=lambda lang: hits[lang], reverse=True)
    best, second = ranked[0], ranked[1]
    # two different stopwords at least (English "a ... a" is not Spanish), a tenth of the words
    if distinct[best] >= 2 and hits[best] >= 3 * hits[second] and hits[best] * 10 >= len(words):
        return best
    return None
