"""Rulebook speed: pnp's rulebook API against WeasyPrint alone on the same final HTML.

    .venv/bin/python tests/bench/bench_rulebook.py [GAME] [--paper a4] [--runs 3]

For each edition (every language, then the bilingual pairs given with --pairs), after one warm-up
run that fills the picture cache, it times `render_rulebook` / `render_bilingual` and
`weasyprint.HTML(string=html).write_pdf()` on the HTML that `rulebook_html` returns, alternately,
and prints the best and median times and the ratio of the best times (the goal is at most 1.1;
the best of several runs is the least disturbed by other processes).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from generator.load.content import load_game  # noqa: E402
from generator.load.project import Project  # noqa: E402
from generator.rulebook import book as rulebook  # noqa: E402


def weasy_alone(content, html: str, out: Path, cache: Path) -> None:
    from weasyprint import HTML

    HTML(
        string=html,
        base_url=(content.project.templates / "rulebook").as_uri() + "/",
        url_fetcher=rulebook.url_fetcher(content, cache),
    ).write_pdf(out)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("game", nargs="?", default="dogfight")
    parser.add_argument("--paper", default="a4")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--pairs", default="es-en", help="bilingual pairs, comma separated")
    args = parser.parse_args()
    content = load_game(Project(ROOT), args.game)
    editions = [(lang,) for lang in content.languages]
    editions += [tuple(p.split("-")) for p in args.pairs.split(",") if p]
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        cache = tmp / "cache"
        print(
            f"{'edition':8} {'pages':>5} {'api best/median s':>18} "
            f"{'weasy best/median s':>20} {'ratio':>6}"
        )
        for edition in editions:
            out = tmp / f"{'-'.join(edition)}.pdf"
            if len(edition) == 1:
                api = partial(rulebook.render_rulebook, content, edition[0], args.paper, out, cache)
                html_of = partial(rulebook.rulebook_html, content, edition[0], args.paper, cache)
            else:
                api = partial(rulebook.render_bilingual, content, *edition, args.paper, out, cache)
                html_of = partial(rulebook.bilingual_html, content, *edition, args.paper, cache)
            result = api()  # warm-up: pictures into the cache, fonts loaded
            html = html_of()
            t_api, t_weasy = [], []
            for _ in range(args.runs):
                start = time.perf_counter()
                api()
                t_api.append(time.perf_counter() - start)
                start = time.perf_counter()
                weasy_alone(content, html, tmp / "alone.pdf", cache)
                t_weasy.append(time.perf_counter() - start)
            a, w = min(t_api), min(t_weasy)
            am, wm = statistics.median(t_api), statistics.median(t_weasy)
            print(
                f"{'-'.join(edition):8} {result['pages']:>5} {a:>9.2f} /{am:>6.2f} "
                f"{w:>11.2f} /{wm:>6.2f} {a / w:>6.2f}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
