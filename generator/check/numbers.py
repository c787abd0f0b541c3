"""Numbers in running text, in es, en and ko: digits, number words and Korean counters.

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


@dataclass(frozen=True)
class Number:
    value: int
    start: int
    end: int  # after the number, and after its Korean counter when there is one
    text: str
    word: bool = False  # written as a word ("dos", "two", "두")
    counter: str | None = None  # Korean counter (장, 개, 명, 척…)


# ---------------------------------------------------------------- words

_ES_UNITS = {
    "cero": 0,
    "un": 1,
    "uno": 1,
    "una": 1,
    "dos": 2,
    "tres": 3,
    "cuatro": 4,
    "cinco": 5,
    "seis": 6,
    "siete": 7,
    "ocho": 8,
    "nueve": 9,
}
_ES_WORDS = {
    **_ES_UNITS,
    "diez": 10,
    "once": 11,
    "doce": 12,
    "trece": 13,
    "catorce": 14,
    "quince": 15,
    "dieciséis": 16,
    "dieciseis": 16,
    "diecisiete": 17,
    "dieciocho": 18,
    "diecinueve": 19,
    "veinte": 20,
    "veintiuno": 21,
    "veintiuna": 21,
    "veintiún": 21,
    "veintidós": 22,
    "veintidos": 22,
    "veintitrés": 23,
    "veintitres": 23,
    "veinticuatro": 24,
    "veinticinco": 25,
    "veintiséis": 26,
    "veintiseis": 26,
    "veintisiete": 27,
    "veintiocho": 28,
    "veintinueve": 29,
    "cien": 100,
    "ciento": 100,
}
_ES_TENS = {
    "treinta": 30,
    "cuarenta": 40,
    "cincuenta": 50,
    "sesenta": 60,
    "setenta": 70,
    "ochenta": 80,
    "noventa": 90,
}
for _t, _v in _ES_TENS.items():
    _ES_WORDS[_t] = _v
    for _u, _uv in _ES_UNITS.items():
        if _uv:
            _ES_WORDS[f"{_t} y {_u}"] = _v + _uv

_EN_UNITS = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
}
_EN_WORDS = {
    "zero": 0,
    **_EN_UNITS,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "thirteen": 13,
    "fourteen": 14,
    "fifteen": 15,
    "sixteen": 16,
    "seventeen": 17,
    "eighteen": 18,
    "nineteen": 19,
    "hundred": 100,
    "a hundred": 100,
    "one hundred": 100,
}
for _t, _v in {
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "sixty": 60,
    "seventy": 70,
    "eighty": 80,
    "ninety": 90,
}.items():
    _EN_WORDS[_t] = _v
    for _u, _uv in _EN_UNITS.items():
        _EN_WORDS[f"{_t}-{_u}"] = _EN_WORDS[f"{_t} {_u}"] = _v + _uv

# Korean native numerals: adnominal forms (before a noun or counter) and pronoun forms.
_KO_UNIT_ADN = {
    "한": 1,
    "두": 2,
    "세": 3,
    "석": 3,
    "네": 4,
    "넉": 4,
    "다섯": 5,
    "여섯": 6,
    "일곱": 7,
    "여덟": 8,
    "아홉": 9,
}
_KO_UNIT_PRON = {
    "하나": 1,
    "둘": 2,
    "셋": 3,
    "넷": 4,
    "다섯": 5,
    "여섯": 6,
    "일곱": 7,
    "여덟": 8,
    "아홉": 9,
}
_KO_TENS = {"열": 10, "스물": 20, "스무": 20, "서른": 30, "마흔": 40, "쉰": 50, "예순": 60}
KO_ADNOMINAL: dict[str, int] = dict(_KO_UNIT_ADN)
KO_PRONOUN: dict[str, int] = dict(_KO_UNIT_PRON)
for _t, _v in _KO_TENS.items():
    KO_ADNOMINAL[_t] = _v
    if _t not in ("열", "스물"):  # 열 is also "column", 스물 only stands alone as 스물
        KO_PRONOUN[_t] = _v
    for _u, _uv in _KO_UNIT_ADN.items():
        KO_ADNOMINAL[_t + _u] = _v + _uv
    for _u, _uv in _KO_UNIT_PRON.items():
        KO_PRONOUN[_t + _u] = _v + _uv
KO_ADNOMINAL["스무"] = 20
KO_PRONOUN["스물"] = 20

# Korean counters that follow a number: cards, things, people, ships, vehicles, spaces, times…
KO_COUNTERS = (
    "장",
    "개",
    "명",
    "척",
    "대",
    "칸",
    "번",
    "점",
    "세",
    "종",
    "곳",
    "줄",
    "권",
    "벌",
    "쌍",
    "인",
    "회",
    "구역",
    "포인트",
)
_KO_COUNTER_RE = "|".join(sorted(KO_COUNTERS, key=len, reverse=True))
_KO_PARTICLE_CHARS = set("이가을를은는의도만씩과와로으에서게까지부터뿐랑")

WORDS = {"es": _ES_WORDS, "en": _EN_WORDS}
ES_ORDINAL_SUFFIX = re.compile(r"^(?:º|ª|°|\.?ª|\.?º)")
EN_ORDINAL_SUFFIX = re.compile(r"^(?:st|nd|rd|th)\b")


@lru_cache(maxsize=8)
def _word_regex(lang: str) -> re.Pattern | None:
    words = WORDS.get(lang)
    if not words:
        return None
    alternatives = "|".join(
        re.escape(w).replace(r"\ ", r"\s+") for w in sorted(words, key=len, reverse=True)
    )
    return re.compile(rf"(?<![\w-])(?:{alternatives})(?![\w-])", re.IGNORECASE)


DIGITS = re.compile(r"\d+")
HANGUL_RUN = re.compile(r"[가-힣]+")
_PARTICLES = "[" + "".join(sorted(_KO_PARTICLE_CHARS)) + "]*"
_ADN = "|".join(sorted(KO_ADNOMINAL, key=len, reverse=True))
_PRON = "|".join(sorted(KO_PRONOUN, key=len, reverse=True))
_KO_ATTACHED = re.compile(rf"^({_ADN})({_KO_COUNTER_RE}){_PARTICLES}$")
_KO_PRONOUN = re.compile(rf"^({_PRON}){_PARTICLES}$")
_KO_COUNTER_START = re.compile(rf"({_KO_COUNTER_RE})")
# a bare pronoun numeral before these words is a verb form: "둘 수 있다" (can put), "둘 때"
_VERB_NEXT = (" 수 ", " 때", " 것", " 거", " 곳", " 줄 ")
# "세대" (generation), "한대", "두인", "세종"… are words, not counts
_NOT_COUNTS = {"세대", "한대", "네인", "세인", "세종", "한종", "두대", "한번에"}


def _ko_counter(text: str, end: int, spaced: bool) -> tuple[str | None, int]:
    """A counter right after position `end` ("15장", "다섯 장"): (counter, new end)."""
    at = end + 1 if spaced and text[end : end + 1] == " " else end
    m = _KO_COUNTER_START.match(text, at)
    if not m:
        return None, end
    rest = text[m.end() : m.end() + 12]
    if rest.startswith("째"):
        return None, end
    if spaced:  # the counter must be a word of its own: "다섯 장", "두 개를", not "두 장소"
        tail = re.match(r"[가-힣]*", rest).group()  # type: ignore[union-attr]  # `*` always matches
        if set(tail) - _KO_PARTICLE_CHARS:
            return None, end
    return m.group(1), m.end()


def _is_ordinal_ko(text: str, start: int, end: int) -> bool:
    before = text[max(0, start - 1) : start]
    after = text[end : end + 4].lstrip()
    return before == "제" or after.startswith(("번째", "째", "차 ", "등"))


def find_numbers(text: str, lang: str) -> list[Number]:
    """Every number in `text`, in order, with its span."""
    return list(_find_numbers(text, lang))


@lru_cache(maxsize=4096)
def _find_numbers(text: str, lang: str) -> tuple[Number, ...]:
    found: list[Number] = []
    for m in DIGITS.finditer(text):
        start, end = m.span()
        if lang == "ko":
            if _is_ordinal_ko(text, start, end):
                continue
            counter, stop = _ko_counter(text, end, spaced=False)
            found.append(Number(int(m.group()), start, stop, text[start:stop], False, counter))
            continue
        after = text[end : end + 3]
        if (lang == "es" and ES_ORDINAL_SUFFIX.match(after)) or (
            lang == "en" and EN_ORDINAL_SUFFIX.match(after)
        ):
            continue
        found.append(Number(int(m.group()), start, end, m.group()))
    if lang == "ko":
        found += _korean_words(text)
    else:
        regex = _word_regex(lang)
        if regex is not None:
            words = WORDS[lang]
            for m in regex.finditer(text):
                key = " ".join(m.group().lower().split())
                found.append(Number(words[key], m.start(), m.end(), m.group(), True))
    return tuple(sorted(found, key=lambda n: n.start))


def _korean_words(text: str) -> list[Number]:
    out = []
    for m in HANGUL_RUN.finditer(text):
        word, start, end = m.group(), m.start(), m.end()
        if start and (text[start - 1].isalnum() or text[start - 1] == "-"):
            continue  # part of a longer token, not a word of its own
        if word in KO_ADNOMINAL and text[end : end + 1] == " " and HANGUL_RUN.match(text, end + 1):
            # before a word: "두 칸", "한 척"; "세 번째" is an ordinal
            if text.startswith(("번째", "째"), end + 1):
                continue
            counter, stop = _ko_counter(text, end, spaced=True)
            out.append(Number(KO_ADNOMINAL[word], start, stop, text[start:stop], True, counter))
            continue
        attached = _KO_ATTACHED.match(word)
        if attached and word not in _NOT_COUNTS and not word.startswith(tuple(_NOT_COUNTS)):
            stop = start + attached.end(2)
            out.append(
                Number(
                    KO_ADNOMINAL[attached.group(1)],
                    start,
                    stop,
                    text[start:stop],
                    True,
                    attached.group(2),
                )
            )
            continue
        pronoun = _KO_PRONOUN.match(word)
        if pronoun and word == pronoun.group(1) and text.startswith(_VERB_NEXT, end):
            continue  # "둘 수 있습니다" is the verb 두다 (can put), not two
        if pronoun:
            stop = start + pronoun.end(1)
            out.append(Number(KO_PRONOUN[pronoun.group(1)], start, stop, pronoun.group(1), True))
    return out


def values(text: str, lang: str, ignore: frozenset[int] = frozenset()) -> list[int]:
    return [n.value for n in find_numbers(text, lang) if n.value not in ignore]
