"""`make bench`: pnp against plain ReportLab on a synthetic 1,000-card duplex deck.

Both sides draw the same cards (poker, 3x3 on A4, crop marks, one common back as a Form
XObject, a title, three lines of body text and a number, in the same embedded TrueType font)
and both run as fresh processes, so start-up and imports count on each side. pnp's first
build checks every face; later --force builds of the same content reuse that check and the
cached content model, as a designer's repeated builds do. The plain side
is plain_deck.py. A 10,000-card run of the same deck shows how time and memory grow.
Targets: ratio <= 1.5, PDF <= 0.5 MB, peak RSS <= 150 MB, no-op rebuild <= 0.5 s, check < 2 s,
10,000-card peak RSS <= 1.5 x the 1,000-card figure. `pnp check` on the project's games is
also timed with no compiled templates and with an empty cache folder (check_runs).
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
RUNS = 3
# CPU seconds (user + system) per kind of run: on a busy machine wall time mostly measures the
# other processes, so the ratio is also given on CPU time.
CPU: dict[str, list[float]] = {}
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


def timed(cmd: list[str], cwd: Path) -> tuple[float, int]:
    """Wall time and peak RSS (MiB) of one fresh process (its CPU time goes to CPU[cmd[1]])."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    start = time.perf_counter()
    proc = subprocess.Popen(
        cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    _, status, usage = os.wait4(proc.pid, 0)
    took = time.perf_counter() - start
    CPU.setdefault(cmd[1] if cmd[1] != "-m" else cmd[-2], []).append(
        usage.ru_utime + usage.ru_stime
    )
    if status != 0:
        raise SystemExit(f"failed: {' '.join(cmd)}\n{proc.stderr.read().decode()}")
    return took, usage.ru_maxrss // 1024


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
    print(f"{label + ':':26}{value:22}{target:20}{verdict}".rstrip())


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder, big = Path(tmp) / "deck", Path(tmp) / "big"
        make_project(folder, N)
        make_project(big, BIG)
        pnp = [sys.executable, "-m", "generator", "--root", str(folder)]
        plain = [
            sys.executable,
            str(Path(__file__).with_name("plain_deck.py")),
            str(folder / "templates/fonts"),
            str(folder / "plain.pdf"),
            str(N),
        ]
        plain_times, pnp_times, rss = [], [], []
        for _ in range(RUNS):
            plain_times.append(timed(plain, folder)[0])
            took, peak = timed([*pnp, "print", "--force"], folder)
            pnp_times.append(took)
            rss.append(peak)
        noop = min(timed([*pnp, "print"], folder)[0] for _ in range(RUNS))
        pdf = folder / "output/bench/en/cards-a4.pdf"
        checks = check_runs(Path(tmp) / "check-cache")
        big_t, big_rss = timed(
            [sys.executable, "-m", "generator", "--root", str(big), "print", "--force"], big
        )
        plain_t, pnp_t = statistics.median(plain_times), statistics.median(pnp_times)
        size_mb = pdf.stat().st_size / 1e6
        plain_mb = (folder / "plain.pdf").stat().st_size / 1e6
        print(f"deck: {N} poker cards, duplex, 3x3 on A4, crop marks, one common back")
        line("plain ReportLab", f"{plain_t:.2f} s", f"median of {RUNS}, PDF {plain_mb:.2f} MB")
        line("pnp print, first build", f"{pnp_times[0]:.2f} s", "checks every face first")
        line("pnp print (full build)", f"{pnp_t:.2f} s", f"median of {RUNS}, --force")
        line("pnp PDF size", f"{size_mb:.2f} MB", "target <= 0.5 MB", size_mb <= 0.5)
        line("pnp peak RSS", f"{max(rss)} MB", "target <= 150 MB", max(rss) <= 150)
        line("no-op rebuild", f"{noop:.2f} s", "target <= 0.5 s", noop <= 0.5)
        for label, (wall, cpu) in checks.items():
            target = "target < 2 s" if label == "warm" else ""
            line(
                f"pnp check, {label}",
                f"{wall:.2f} s ({cpu:.2f} CPU)",
                target,
                wall < 2 if target else None,
            )
        line(f"pnp print, {BIG:,} cards", f"{big_t:.2f} s", f"{big_t / pnp_t:.1f} x 1,000 cards")
        limit = 1.5 * max(rss)
        line(
            f"peak RSS, {BIG:,} cards",
            f"{big_rss} MB",
            f"target <= {limit:.0f} MB",
            big_rss <= limit,
        )
        plain_cpu = statistics.median(CPU[plain[1]])
        pnp_cpu = statistics.median(CPU["print"][:RUNS])
        line("CPU plain / pnp", f"{plain_cpu:.2f} / {pnp_cpu:.2f} s", "user + system, median")
        line(
            "ratio pnp / plain, CPU",
            f"{pnp_cpu / plain_cpu:.2f}",
            "target <= 1.5",
            pnp_cpu / plain_cpu <= 1.5,
        )
        ratio = pnp_t / plain_t
        line("ratio pnp / plain", f"{ratio:.2f}", "target <= 1.5", ratio <= 1.5)


if __name__ == "__main__":
    main()
