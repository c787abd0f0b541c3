"""Numbers in running text: digits, number words and counters, from each language's data.

    find_numbers("Mover dos casillas", "es") -> [Number(value=2, ...)]
    find_numbers("맵 카드 15장", "ko")        -> [Number(value=15, counter="장", ...)]

Ordinals are not numbers here ("segunda", "두 번째", "제2차"): translations write them in
too many ways to compare. Korean native numerals count only where they are used as numbers:
before a word ("두 칸", "한 척"), with a counter ("다섯 장", "두개") or as a pronoun with a
particle ("하나를", "둘 다"); Sino-Korean numerals (일, 이, 삼…) are left out because they are
ordinary words too (이 = "this").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from generator.load import languages


@dataclass(frozen=True)
class Number:
    value: int
    start: int
    end: int  # after the number, and after its Korean counter when there is one
    text: str
    word: bool = False  # written as a word ("dos", "two", "두")
    counter: str | None = None  # Korean counter (장, 개, 명, 척…)


# Number words, counters and particles come from templates/languages/<code>.yaml. A language
# whose file lists `counters` counts the Korean way: digits or native numerals followed by a
# counter, numerals that change form before a noun (adnominal) and particles glued after words.

DIGITS = re.compile(r"\d+")
HANGUL_RUN = re.compile(r"[^\W\d_]+")


@lru_cache(maxsize=16)
def _word_regex(lang: str) -> re.Pattern | None:
    words = languages.get(lang).numbers.words
    if not words:
        return None
    longest_first = sorted(words, key=len, reverse=True)
    return re.compile(rf"(?<![\w-])(?:{_by_first_letter(longest_first)})(?![\w-])", re.IGNORECASE)


def _pattern(word: str) -> str:
    return re.escape(word).replace(r"\ ", r"\s+")


def _by_first_letter(words: list[str]) -> str:
    """The words as one alternation, grouped by first letter ("o(?:ne|...)|t(?:wo|...)"): the
    regex engine tries a case-blind alternative one by one at every word start, so 175 flat
    English words cost about 5 times as much. Each group keeps the words' order and a text can
    start only one group, so the first alternative that matches is the same as in the flat
    one; where that would not hold (first letters equal ignoring case, a space), it is flat."""
    groups: dict[str, list[str]] = {}
    for word in words:
        groups.setdefault(word[0], []).append(word)
    firsts = list(groups)
    blind_twins = any(
        re.fullmatch(re.escape(a), b, re.IGNORECASE) for a in firsts for b in firsts if a != b
    )
    if blind_twins or any(not c.isalnum() for c in firsts):
        return "|".join(_pattern(w) for w in words)
    return "|".join(
        re.escape(c) + "(?:" + "|".join(_pattern(w[1:]) for w in groups[c]) + ")" for c in firsts
    )


@lru_cache(maxsize=16)
def _ordinal_suffix(lang: str) -> re.Pattern | None:
    suffix = languages.get(lang).numbers.ordinal_suffix
    return re.compile(suffix) if suffix else None


@dataclass(frozen=True)
class _Counting:
    """The regular expressions of a counter language, built once from its data."""

    nums: languages.Numbers
    attached: re.Pattern
    pronoun: re.Pattern
    counter_start: re.Pattern
    particles: frozenset[str]


@lru_cache(maxsize=16)
def _counting(lang: str) -> _Counting:
    nums = languages.get(lang).numbers
    counters = "|".join(re.escape(c) for c in sorted(nums.counters, key=len, reverse=True))
    particles = "[" + "".join(sorted(set(nums.particles))) + "]*" if nums.particles else ""
    adn = "|".join(re.escape(w) for w in sorted(nums.adnominal, key=len, reverse=True)) or "(?!)"
    pron = "|".join(re.escape(w) for w in sorted(nums.pronoun, key=len, reverse=True)) or "(?!)"
    return _Counting(
        nums,
        re.compile(rf"^({adn})({counters}){particles}$"),
        re.compile(rf"^({pron}){particles}$"),
        re.compile(rf"({counters})"),
        frozenset(nums.particles),
    )


def _counter_after(c: _Counting, text: str, end: int, spaced: bool) -> tuple[str | None, int]:
    """A counter right after position `end` ("15장", "다섯 장"): (counter, new end)."""
    at = end + 1 if spaced and text[end : end + 1] == " " else end
    m = c.counter_start.match(text, at)
    if not m:
        return None, end
    rest = text[m.end() : m.end() + 12]
    if rest.startswith(c.nums.ordinal_after_counter):
        return None, end
    if spaced:  # the counter must be a word of its own: "다섯 장", "두 개를", not "두 장소"
        tail = re.match(r"[^\W\d_]*", rest)
        if tail and set(tail.group()) - c.particles:
            return None, end
    return m.group(1), m.end()


def _is_ordinal(c: _Counting, text: str, start: int, end: int) -> bool:
    before = text[max(0, start - 1) : start]
    after = text[end : end + 4].lstrip()
    return before in c.nums.ordinal_before or after.startswith(c.nums.ordinal_after)


def find_numbers(text: str, lang: str) -> list[Number]:
    """Every number in `text`, in order, with its span."""
    return list(_find_numbers(text, lang))


@lru_cache(maxsize=4096)
def _find_numbers(text: str, lang: str) -> tuple[Number, ...]:
    nums = languages.get(lang).numbers
    counting = _counting(lang) if nums.uses_counters else None
    ordinal = _ordinal_suffix(lang)
    found: list[Number] = []
    for m in DIGITS.finditer(text):
        start, end = m.span()
        if counting is not None:
            if _is_ordinal(counting, text, start, end):
                continue
            counter, stop = _counter_after(counting, text, end, spaced=False)
            found.append(Number(int(m.group()), start, stop, text[start:stop], False, counter))
            continue
        if ordinal is not None and ordinal.match(text[end : end + 3]):
            continue
        found.append(Number(int(m.group()), start, end, m.group()))
    if counting is not None:
        found += _counter_words(counting, text)
    regex = _word_regex(lang)
    if regex is not None:
        for m in regex.finditer(text):
            key = " ".join(m.group().lower().split())
            found.append(Number(nums.words[key], m.start(), m.end(), m.group(), True))
    return tuple(sorted(found, key=lambda n: n.start))


def _counter_words(c: _Counting, text: str) -> list[Number]:
    nums = c.nums
    out = []
    for m in HANGUL_RUN.finditer(text):
        word, start, end = m.group(), m.start(), m.end()
        if start and (text[start - 1].isalnum() or text[start - 1] == "-"):
            continue  # part of a longer token, not a word of its own
        if (
            word in nums.adnominal
            and text[end : end + 1] == " "
            and HANGUL_RUN.match(text, end + 1)
        ):
            # before a word: "두 칸", "한 척"; "세 번째" is an ordinal
            if text.startswith(nums.ordinal_after_numeral, end + 1):
                continue
            counter, stop = _counter_after(c, text, end, spaced=True)
            out.append(Number(nums.adnominal[word], start, stop, text[start:stop], True, counter))
            continue
        attached = c.attached.match(word)
        if attached and word not in nums.not_counts and not word.startswith(tuple(nums.not_counts)):
            stop = start + attached.end(2)
            out.append(
                Number(
                    nums.adnominal[attached.group(1)],
                    start,
                    stop,
                    text[start:stop],
                    True,
                    attached.group(2),
                )
            )
            continue
        pronoun = c.pronoun.match(word)
        if pronoun and word == pronoun.group(1) and text.startswith(nums.verb_next, end):
            continue  # "둘 수 있습니다" is the verb 두다 (can put), not two
        if pronoun:
            stop = start + pronoun.end(1)
            out.append(Number(nums.pronoun[pronoun.group(1)], start, stop, pronoun.group(1), True))
    return out


def values(text: str, lang: str, ignore: frozenset[int] = frozenset()) -> list[int]:
    return [n.value for n in find_numbers(text, lang) if n.value not in ignore]
