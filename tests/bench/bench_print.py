"""`make bench`: pnp against plain ReportLab on a synthetic 1,000-card duplex deck.

Both sides draw the same cards (poker, 3x3 on A4, crop marks, one common back as a Form
XObject, a title, three lines of body text and a number, in the same embedded TrueType font)
and both run as fresh processes, so start-up and imports count on each side. pnp's first
build checks every face; later --force builds of the same content reuse that check and the
cached content model, as a designer's repeated builds do. The plain side
is plain_deck.py. A 10,000-card run of the same deck shows how time and memory grow.
Both sides run at 1,000 and 10,000 cards; the line through the two points gives each side's
cost per extra card and its fixed cost, so start-up no longer blurs the comparison. pnp's
first build (empty output and cache: load, check, draw, lint) and its --force build are
reported separately. Targets (issue #23): marginal cost per card of --force <= 1.5 x plain's,
first build of 10,000 cards <= 2.5 x plain's 10,000, fixed cost <= 0.4 s CPU, no-op rebuild
<= 0.3 s, `pnp check` of the project's games < 1.2 s CPU warm, PDF <= 0.5 MB, 10,000-card peak
RSS <= 1.5 x the 1,000-card figure. `pnp check` is also timed with no compiled templates and
with an empty cache folder (check_runs).
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
N = 1000
BIG = 10_000
RUNS = 5
# Figures are CPU seconds (user + system): on a busy machine wall time mostly measures the
# other processes.
BODY = "Body line one of card {n}\\nthe second line of text\\nand the third line ends here"

LAYOUT = """\
background: "#fbf8f1"
boxes:
  - {id: frame, kind: rect, x: 3, y: 3, w: 57, h: 82, radius: 3mm, stroke: "#333333"}
  - {id: title, kind: text, text: "{{ title }}", x: 6, y: 6, w: 51, h: 10, size: 14pt, style: bold}
  - {id: body, kind: text, text: "{{ body }}", x: 6, y: 40, w: 51, h: 24, size: 9pt, leading: 1.3}
  - {id: number, kind: text, text: "{{ number }}", x: 6, y: 68, w: 51, h: 14, size: 28pt,
     style: black, align: right}
"""
BACK = """\
background: "#1f2f4a"
boxes:
  - {id: ring, kind: rect, x: 5, y: 5, w: 53, h: 78, radius: 3mm, stroke: "#d9c9a0"}
  - {id: name, kind: text, text: BENCH, x: 5, y: 38, w: 53, h: 12, size: 20pt, style: black,
     align: center, valign: middle, color: "#f3e7c6"}
"""


def make_project(folder: Path, n: int) -> None:
    shutil.copytree(ROOT / "templates" / "fonts", folder / "templates" / "fonts")
    for name in ("paper.yaml", "card-sizes.yaml"):
        shutil.copy(ROOT / "templates" / name, folder / "templates" / name)
    (folder / "templates/layouts/bench").mkdir(parents=True)
    (folder / "templates/layouts/bench/card.yaml").write_text(LAYOUT)
    (folder / "templates/layouts/bench/back.yaml").write_text(BACK)
    game = folder / "content/bench"
    (game / "components").mkdir(parents=True)
    (game / "game.yaml").write_text(
        "id: bench\ntitle: Bench\nlanguages: [en]\nprint: {papers: [a4], rotate: never}\n"
    )
    items = "\n".join(
        f"  - id: c{i + 1}\n    data: {{title: Card {i + 1}, number: {i % 100}, "
        f'body: "{BODY.format(n=i + 1)}"}}'
        for i in range(n)
    )
    (game / "components/cards.yaml").write_text(
        "id: cards\nname: Cards\nsize: poker\nlayout: bench/card\nback: bench/back\n"
        f"items:\n{items}\n"
    )
    (game / "manifest.yaml").write_text(f"components: {{cards: {n}}}\n")


def timed(cmd: list[str], cwd: Path) -> tuple[float, int, float]:
    """Wall time, peak RSS (MiB) and CPU seconds (user + system) of one fresh process."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    start = time.perf_counter()
    proc = subprocess.Popen(
        cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    _, status, usage = os.wait4(proc.pid, 0)
    took = time.perf_counter() - start
    if status != 0:
        raise SystemExit(f"failed: {' '.join(cmd)}\n{proc.stderr.read().decode()}")
    return took, usage.ru_maxrss // 1024, usage.ru_utime + usage.ru_stime


def check_runs(cache: Path) -> dict[str, tuple[float, float]]:
    """`pnp check` on this project's games, min wall and CPU of RUNS fresh processes each:
    warm (the content models and compiled templates of an earlier command in the user's cache
    folder, as a designer's second check finds them), without compiled templates (only the
    models kept) and with an empty cache folder. Every check itself runs in full each time."""
    cmd = [sys.executable, "-m", "generator", "--root", str(ROOT), "check"]
    env = dict(os.environ, PYTHONPATH=str(ROOT), PNP_CACHE_DIR=str(cache))

    def run() -> tuple[float, float]:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL)
        _, status, usage = os.wait4(proc.pid, 0)
        if status not in (0, 256):  # 1: the games have error findings; still a full check
            raise SystemExit(f"failed: {' '.join(cmd)}")
        return time.perf_counter() - start, usage.ru_utime + usage.ru_stime

    def best(prepare) -> tuple[float, float]:
        times = []
        for _ in range(RUNS):
            prepare()
            times.append(run())
        return min(t[0] for t in times), min(t[1] for t in times)

    shutil.rmtree(cache, ignore_errors=True)
    run()  # fills the cache
    return {
        "warm": best(lambda: None),
        "no compiled templates": best(
            lambda: shutil.rmtree(cache / "templates", ignore_errors=True)
        ),
        "empty cache": best(lambda: shutil.rmtree(cache, ignore_errors=True)),
    }


def line(label: str, value: str, target: str = "", ok: bool | None = None) -> None:
    verdict = "" if ok is None else ("ok" if ok else "MISSED")
    print(f"{label + ':':44}{value:24}{target:24}{verdict}".rstrip())


def scale(small: tuple[float, float], big: tuple[float, float]) -> tuple[float, float]:
    """Marginal cost per card (ms) and fixed cost (s) from two (cards, CPU seconds) points: the
    line through them (cost = fixed + cards x marginal)."""
    (n1, t1), (n2, t2) = small, big
    marginal = (t2 - t1) / (n2 - n1)
    return marginal * 1000, t1 - n1 * marginal


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        decks = {N: Path(tmp) / "deck", BIG: Path(tmp) / "big"}
        for n, folder in decks.items():
            make_project(folder, n)

        def pnp(n: int, *args: str) -> list[str]:
            return [sys.executable, "-m", "generator", "--root", str(decks[n]), *args]

        def plain(n: int) -> list[str]:
            folder = decks[n]
            script = str(Path(__file__).with_name("plain_deck.py"))
            fonts = str(folder / "templates/fonts")
            return [sys.executable, script, fonts, str(folder / "plain.pdf"), str(n)]

        # Rounds: each runs every side at both sizes, one after the other, so the sides of a
        # round meet the same machine (a shared one's load moves between rounds, and the ratio
        # of two figures taken minutes apart measures the load). Each figure is the median of
        # its rounds; the marginal ratio is also given as the median of the rounds' own ratios.
        runs: dict[tuple[str, int], list[float]] = {}
        rss: dict[int, int] = {}
        for _ in range(RUNS):
            for n, folder in decks.items():
                # The first build: load, check every face, draw, lint, from an empty output/
                # and an empty cache folder, as a designer's first `pnp print` of a new deck.
                shutil.rmtree(folder / "output", ignore_errors=True)
                env_cache = Path(tmp) / f"cache-{n}"
                shutil.rmtree(env_cache, ignore_errors=True)
                os.environ["PNP_CACHE_DIR"] = str(env_cache)
                runs.setdefault(("first", n), []).append(timed(pnp(n, "print"), folder)[2])
                _, peak, took = timed(pnp(n, "print", "--force"), folder)
                runs.setdefault(("force", n), []).append(took)
                rss[n] = max(rss.get(n, 0), peak)
                runs.setdefault(("plain", n), []).append(timed(plain(n), folder)[2])
        cpu = {key: statistics.median(times) for key, times in runs.items()}
        noops = [timed(pnp(N, "print"), decks[N]) for _ in range(RUNS)]
        noop, noop_cpu = min(r[0] for r in noops), min(r[2] for r in noops)
        pdf = decks[N] / "output/bench/en/cards-a4.pdf"
        size_mb = pdf.stat().st_size / 1e6
        checks = check_runs(Path(tmp) / "check-cache")

        print(f"deck: poker cards, duplex, 3x3 on A4, crop marks, one common back; {RUNS} rounds")
        print("CPU seconds (user + system), median of the rounds (fresh processes):")
        print(f"{'':34}{f'{N:,} cards':>12}{f'{BIG:,} cards':>14}{'per card':>12}{'fixed':>9}")
        marginal = {}
        for kind, label in (
            ("plain", "plain ReportLab"),
            ("force", "pnp print --force"),
            ("first", "pnp first build (check + draw)"),
        ):
            per_card, fixed = scale((N, cpu[kind, N]), (BIG, cpu[kind, BIG]))
            marginal[kind] = (per_card, fixed)
            print(
                f"{label:34}{cpu[kind, N]:>10.2f} s{cpu[kind, BIG]:>12.2f} s"
                f"{per_card:>9.3f} ms{fixed:>7.2f} s"
            )
        print()
        force_ratio = marginal["force"][0] / marginal["plain"][0]
        first_ratio = marginal["first"][0] / marginal["plain"][0]
        rounds = [
            scale((N, runs["force", N][r]), (BIG, runs["force", BIG][r]))[0]
            / scale((N, runs["plain", N][r]), (BIG, runs["plain", BIG][r]))[0]
            for r in range(RUNS)
        ]
        line(
            "marginal per card, --force / plain",
            f"{force_ratio:.2f}",
            "target <= 1.5",
            force_ratio <= 1.5,
        )
        line(
            "  the same, median of the rounds",
            f"{statistics.median(rounds):.2f} ({min(rounds):.2f}-{max(rounds):.2f})",
        )
        line("marginal per card, first / plain", f"{first_ratio:.2f}")
        big_first = cpu["first", BIG] / cpu["plain", BIG]
        line(
            f"first build {BIG:,} / plain {BIG:,}",
            f"{big_first:.2f}",
            "target <= 2.5",
            big_first <= 2.5,
        )
        fixed = marginal["force"][1]
        line("fixed cost, --force", f"{fixed:.2f} s CPU", "target <= 0.4 s", fixed <= 0.4)
        line("fixed cost, plain", f"{marginal['plain'][1]:.2f} s CPU")
        line(
            "no-op rebuild",
            f"{noop_cpu:.2f} s CPU ({noop:.2f} s wall)",
            "target <= 0.3 s CPU",
            noop_cpu <= 0.3,
        )
        for label, (wall, check_cpu) in checks.items():
            warm = label == "warm"
            line(
                f"pnp check of the games, {label}",
                f"{wall:.2f} s ({check_cpu:.2f} CPU)",
                "target < 1.2 s CPU" if warm else "",
                check_cpu < 1.2 if warm else None,
            )
        line(f"pnp PDF size, {N:,} cards", f"{size_mb:.2f} MB", "target <= 0.5 MB", size_mb <= 0.5)
        line(f"peak RSS, {N:,} cards", f"{rss[N]} MB")
        limit = 1.5 * rss[N]
        line(
            f"peak RSS, {BIG:,} cards",
            f"{rss[BIG]} MB",
            f"target <= {limit:.0f} MB",
            rss[BIG] <= limit,
        )
        ratio = cpu["force", N] / cpu["plain", N]
        line(f"whole-run ratio at {N:,}, --force", f"{ratio:.2f}", "(fixed costs included)")


if __name__ == "__main__":
    main()
