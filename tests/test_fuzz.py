"""Fuzzing the loader and the checker: every failure must be a clean ContentError, and no
example may hang (each has a time limit) or crash.

Game, component, manifest and layout files are mutated as text and as values; the rulebook
(Markdown with Jinja: figures, tables, images, headings) as text. `pnp check` now builds the
rulebooks' HTML, so rulebook mutations run the same code `pnp print` runs before WeasyPrint.
`make test-all` (and CI) runs a small deterministic sample, 25 examples per test, each a
whole `pnp check`: slow by nature, so `make test` leaves the module out; `make fuzz` runs
2,000+ examples (PNP_FUZZ_EXAMPLES per test) with hypothesis choosing freely.
"""

from __future__ import annotations

import os
import shutil
import signal
import time

import pytest
import yaml
from conftest import ROOT, copy_templates
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generator import session
from generator.check import check_game
from generator.errors import ContentError
from generator.load.content import load_game
from generator.load.project import Project

pytestmark = pytest.mark.slow  # see the module docstring

EXAMPLES = int(os.environ.get("PNP_FUZZ_EXAMPLES", "25"))
DERANDOMIZE = "PNP_FUZZ_EXAMPLES" not in os.environ
FUZZ = settings(
    max_examples=EXAMPLES,
    derandomize=DERANDOMIZE,
    deadline=None,
    database=None,
    suppress_health_check=list(HealthCheck),
)
# How every example ended; test_zz_report checks that each one is counted once.
RESULTS = {
    "examples": 0,
    "content_errors": 0,
    "loaded": 0,
    "crashes": 0,
    "hangs": 0,
    "slowest": 0.0,
}
HANG_SECONDS = 60  # one load and check of the cut-down game takes well under a second

FILES = {
    "game": "content/dogfight/game.yaml",
    "component": "content/dogfight/components/rewards.yaml",
    "manifest": "content/dogfight/manifest.yaml",
    "layout": "templates/layouts/dogfight/reward.yaml",
    "rules": "content/dogfight/rules/es.md",
}
VALUE_FILES = sorted(k for k in FILES if k != "rules")
YAML_BITS = [
    ":",
    "-",
    "[",
    "]",
    "{",
    "}",
    "\t",
    "\n",
    "'",
    '"',
    "!",
    "&a",
    "*a",
    "#",
    "%",
    "@",
    "`",
    "|",
    ">",
    "{{",
    "}}",
    "{%",
    "  ",
    "\x00",
    "\ufeff",
    "ñ",
    "한",
    "9" * 30,
    "-1",
    "null",
    "~",
    "?",
    ": :",
    "<<: *a",
    "!!python/name:os.system",
    "\\",
    "1e309",
    "0x",
    ".inf",
    ".nan",
    "1e20",
    "0pt",
    "-5mm",
    "99999999999999999999999999999999999999999999999999999999999999999999",
    # round three (issue 29): geometry, names that become file names
    "1e300",
    "-20mm",
    "0.001mm",
    "\nshape: {kind: circle, diameter: -20mm}\n",
    "\nshape: {kind: hexagon, across_flats: 0}\n",
    "\nshape: {kind: polygon, points: [[0, 0], [100, 100], [100, 0], [0, 60]]}\n",
    "\nshape: {kind: polygon, points: [[0, 0], [50, 50], [100, 100]]}\n",
    "x/../../pwned",
    "es\n",
]
RULES_BITS = [
    "\n## 9 Otra\n",
    "\n## 1 Duplicada\n",
    "\n### 2.1.1.1 Muy hondo\n",
    "\n## " + "9" * 80 + " Larga\n",
    "{{ figure('rewards', 'red-0') }}",
    "{{ figure('rewards', 'nope') }}",
    "{{ figure('rewards', 'red-0', width='900mm') }}",
    "{{ figure('planes', 'x', side='left') }}",
    "{{ component_list() }}",
    "{{ table(items('rewards'), ['nope']) }}",
    "![x](/etc/passwd)",
    "![x](../../secret.png)",
    "![x](http://example.com/x.png)",
    "![x](art/german-plane.svg)",
    "<img src=x>",
    "{% for i in range(1000) %}{% for j in range(1000) %}x{% endfor %}{% endfor %}",
    "{% macro f() %}{{ f() }}{% endmacro %}{{ f() }}",
    "{{ 9 ** 64 ** 64 }}",
    "{{ '%0999999999d' % 1 }}",
    "{{ ([0] * 300000000) | length }}",
    "{{ " + "(" * 300 + "1" + ")" * 300 + " }}",
    "{{ undefined_name }}",
    # round three: every string-producing operator at a size it must refuse before making it
    "{% set a = 'x' * 90000 %}{{ (a ~ a ~ a) | length }}",
    "{{ ('x' * 90000 + 'y' * 90000) | length }}",
    "{{ ((['x' * 90000] * 90000) | join) | length }}",
    "{{ ('x' * 90000) | replace('x', 'x' * 90000) | length }}",
    "{{ ('\\n' * 90000) | indent(90000) | length }}",
    "{{ ('x' * 9).join(['y' * 90000] * 90000) | length }}",
    "{{ '{:>99999999}'.format(1) }}",
    "{{ table([{'a': 'x'}] * 90000) }}",
    "{%",
    "}}",
    ":star:",
    "```\n",
    "\n- ",
    "| a | b |\n|---|---|\n",
]


@pytest.fixture(scope="module")
def small_project(tmp_path_factory):
    """Dogfight cut down to a few cards, so each example loads and checks quickly."""
    root = tmp_path_factory.mktemp("fuzz")
    copy_templates(root, "all")  # not the fonts: pnp's own
    shutil.copytree(ROOT / "content/dogfight", root / "content/dogfight")
    for name in ("rewards", "allied-planes"):
        path = root / f"content/dogfight/components/{name}.yaml"
        text = path.read_text()
        text = text.replace("suit: [red, blue, green, yellow, purple]", "suit: [red]")
        text = text.replace("value: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]", "value: [1, 10]")
        text = text.replace("value: [0, 1, 2, 3, 4]", "value: [0, 3]")
        path.write_text(text)
    manifest = root / "content/dogfight/manifest.yaml"
    manifest.write_text("components: {allied-planes: 2, rewards: 2}\n")
    # Three of the six languages (the source, a Latin and a Korean translation) and one
    # side-by-side edition: each example costs half as much and still meets every kind.
    game = root / "content/dogfight/game.yaml"
    text = game.read_text()
    for old, new in (
        ("languages: [es, en, ko, fr, de, pl]", "languages: [es, en, ko]"),
        ("bilingual: [[es, en], [es, fr]]", "bilingual: [[es, en]]"),
    ):
        assert old in text, old
        text = text.replace(old, new)
    game.write_text(text)
    originals = {k: (root / v).read_bytes() for k, v in FILES.items()}
    return root, originals


class Hang(AssertionError):
    """An example ran over HANG_SECONDS."""


def attempt(root, originals, which: str, data: bytes) -> None:
    for key, rel in FILES.items():
        (root / rel).write_bytes(data if key == which else originals[key])
    RESULTS["examples"] += 1

    def hang(signum, frame):
        raise Hang(f"hang: an example ran over {HANG_SECONDS} s:\n{data[:2000]!r}")

    previous = signal.signal(signal.SIGALRM, hang)
    signal.alarm(HANG_SECONDS)
    started = time.monotonic()
    outcome = "crashes"  # anything but a clean load or one located error (re-raised below)
    try:
        with session.new():  # as a new command: nothing cached from the previous example
            content = load_game(Project(root), "dogfight")
            check_game(content)  # findings, never exceptions
        outcome = "loaded"
    except ContentError as exc:
        line = exc.format()
        assert "\n" not in line and line.strip()
        outcome = "content_errors"
    except Hang:
        outcome = "hangs"
        raise
    finally:
        RESULTS[outcome] += 1
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
        RESULTS["slowest"] = max(RESULTS["slowest"], time.monotonic() - started)


@st.composite
def mutated(draw):
    which = draw(st.sampled_from(VALUE_FILES))
    return which, draw(
        st.lists(
            st.tuples(
                st.integers(0, 10_000),
                st.integers(0, 3),
                st.sampled_from(YAML_BITS) | st.text(max_size=6),
            ),
            min_size=1,
            max_size=6,
        )
    )


@FUZZ
@given(case=mutated())
def test_mutated_files_fail_cleanly(small_project, case):
    root, originals = small_project
    which, edits = case
    text = originals[which].decode("utf-8")
    for position, length, insert in edits:
        position %= len(text) + 1
        text = text[:position] + insert + text[position + length :]
    attempt(root, originals, which, text.encode("utf-8", "surrogatepass"))


values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**12), 10**12)
    | st.floats(allow_nan=True)
    | st.text(max_size=20)
    | st.sampled_from(["{{ x }}", "{% if %}", "poker", "a4", "#fff"]),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)


def _paths(node, prefix=()):
    yield prefix
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _paths(v, (*prefix, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _paths(v, (*prefix, i))


@FUZZ
@given(which=st.sampled_from(VALUE_FILES), pick=st.integers(0, 10_000), value=values)
def test_wrong_values_anywhere_fail_cleanly(small_project, which, pick, value):
    root, originals = small_project
    doc = yaml.safe_load(originals[which])
    paths = list(_paths(doc))
    path = paths[pick % len(paths)]
    if not path:
        doc = value
    else:
        node = doc
        for part in path[:-1]:
            node = node[part]
        node[path[-1]] = value
    attempt(root, originals, which, yaml.safe_dump(doc, allow_unicode=True).encode())


@st.composite
def mutated_rules(draw):
    return draw(
        st.lists(
            st.tuples(
                st.integers(0, 100_000),
                st.integers(0, 40),
                st.sampled_from(RULES_BITS) | st.sampled_from(YAML_BITS) | st.text(max_size=8),
            ),
            min_size=1,
            max_size=5,
        )
    )


@FUZZ
@given(edits=mutated_rules())
def test_mutated_rulebooks_fail_cleanly(small_project, edits):
    root, originals = small_project
    text = originals["rules"].decode("utf-8")
    for position, length, insert in edits:
        position %= len(text) + 1
        text = text[:position] + insert + text[position + length :]
    attempt(root, originals, "rules", text.encode("utf-8", "surrogatepass"))


shapes = st.fixed_dictionaries(
    {"kind": st.sampled_from(["circle", "hexagon", "polygon", "rect", "octagon"])},
    optional={
        "diameter": st.floats(allow_nan=True) | st.sampled_from(["-20mm", "0", "1e300"]),
        "across_flats": st.floats(allow_nan=True) | st.sampled_from(["0.001mm", "-5"]),
        "radius": st.floats(allow_nan=True),
        "sides": st.integers(-3, 100),
        "viewbox": st.lists(st.floats(allow_nan=True), min_size=2, max_size=2),
        "points": st.lists(
            st.lists(st.floats(allow_nan=True, width=32), min_size=2, max_size=2), max_size=40
        ),
    },
)


@FUZZ
@given(shape=shapes, keep_size=st.booleans())
def test_wrong_die_lines_fail_cleanly(small_project, shape, keep_size):
    """Round three: a die-cut shape of any geometry loads and checks, or is one clean error."""
    root, originals = small_project
    doc = yaml.safe_load(originals["component"])
    doc["shape"] = shape
    if not keep_size:
        doc.pop("size", None)
    attempt(root, originals, "component", yaml.safe_dump(doc, allow_unicode=True).encode())


def test_zz_report(small_project):
    """How many examples ran and how they ended, printed (run with -s) and checked: every example
    ended once, as a clean load or one located error; none crashed or hung (hypothesis keeps
    failing examples to replay, so a crash also fails its own test)."""
    r = RESULTS
    print(
        f"\nfuzz: {r['examples']} examples, {r['content_errors']} clean load errors, "
        f"{r['loaded']} loaded and checked, {r['crashes']} crashes, {r['hangs']} hangs "
        f"(slowest example {r['slowest']:.2f} s)"
    )
    if r["examples"] == 0:
        pytest.skip("no fuzz example ran in this session (run the whole file)")
    assert r["examples"] == r["content_errors"] + r["loaded"] + r["crashes"] + r["hangs"]
    assert r["crashes"] == 0, f"{r['crashes']} example(s) crashed (see the failing tests above)"
    assert r["hangs"] == 0, f"{r['hangs']} example(s) ran over {HANG_SECONDS} s"
