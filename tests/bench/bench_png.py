"""`make bench`: the png export of the 1,000-card deck at 300 dpi against a plain script.

The plain script (plain_png.py) draws the same faces (the bench deck of bench_print.py, one face
per page with 3 mm bleed) with ReportLab, rasterises each page with pypdfium2 at 300 dpi and
saves it with Pillow at the same PNG compression level and sRGB profile. Both run as fresh
processes in the same run, so imports count on each side. Target: ratio <= 1.3.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_print import N, make_project, timed

HERE = Path(__file__).resolve().parent

RUNS = 1  # about a minute per side on a 2-core machine
TARGET = 1.3


def cpu_timed(cmd: list[str], cwd: Path) -> tuple[float, float]:
    """Wall time and CPU time (user + system) of one fresh process: on a shared machine the
    CPU time is the steadier of the two."""
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2]))
    start = time.perf_counter()
    proc = subprocess.Popen(
        cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    _, status, usage = os.wait4(proc.pid, 0)
    took = time.perf_counter() - start
    if status != 0:
        raise SystemExit(f"failed: {' '.join(cmd)}\n{proc.stderr.read().decode()}")
    return took, usage.ru_utime + usage.ru_stime


def main() -> None:
    from generator.exports.png import COMPRESS_LEVEL

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        make_project(folder, N)
        (folder / "plain-out").mkdir()
        pnp = [sys.executable, "-m", "generator", "--root", str(folder)]
        # check once outside the timing, as a designer's `pnp print` after `pnp check` would
        timed([*pnp, "print", "--export", "sheets"], folder)
        plain_times, pnp_times = [], []
        for _ in range(RUNS):
            plain_times.append(
                cpu_timed(
                    [
                        sys.executable,
                        str(HERE / "plain_png.py"),
                        str(folder / "templates/fonts"),
                        str(folder / "plain-out"),
                        str(N),
                        "300",
                        str(COMPRESS_LEVEL),
                    ],
                    folder,
                )
            )
            pnp_times.append(
                cpu_timed([*pnp, "print", "--export", "png", "--force", "-j", "1"], folder)
            )
        written = list((folder / "output/bench/en/png/cards").glob("*.png"))
        assert len(written) == N + 1, len(written)
        plain_wall = statistics.median(t[0] for t in plain_times)
        plain_cpu = statistics.median(t[1] for t in plain_times)
        pnp_wall = statistics.median(t[0] for t in pnp_times)
        pnp_cpu = statistics.median(t[1] for t in pnp_times)
        ratio, cpu_ratio = pnp_wall / plain_wall, pnp_cpu / plain_cpu
        ok = "ok" if max(ratio, cpu_ratio) <= TARGET else "MISSED"
        print(f"png export: {N} poker faces + 1 back at 300 dpi, compress_level {COMPRESS_LEVEL}")
        print(f"plain pypdfium2 + Pillow: {plain_wall:.2f} s wall, {plain_cpu:.2f} s CPU")
        print(f"pnp print --export png:   {pnp_wall:.2f} s wall, {pnp_cpu:.2f} s CPU")
        print(
            f"ratio pnp / plain:        {ratio:.2f} wall, {cpu_ratio:.2f} CPU   "
            f"target <= {TARGET}   {ok}   (median of {RUNS})"
        )


if __name__ == "__main__":
    main()
