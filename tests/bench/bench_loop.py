"""`make bench`: the designer's loop on a copy of the project.

- `pnp render` cold: one card to PNG, a fresh process each time (median of RUNS).
  Target: under 1.5 s.
- `pnp watch`: from saving an edited card to the refreshed preview (its picture of that card
  rewritten and the page told to reload), and to the end of the rebuild. Target: the picture
  within about a second of the save on a quiet machine.
- The one-string rebuild: Dogfight built once, then one English string of the reward cards
  edited: how many files `pnp print` rebuilds and how long it takes (before fine-grained keys:
  17 files, about 18 s).
"""

from __future__ import annotations

import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RUNS = 5
PNP = [sys.executable, "-m", "generator"]


def _copy(dest: Path) -> Path:
    shutil.copytree(ROOT / "templates", dest / "templates")
    shutil.copytree(ROOT / "content" / "dogfight", dest / "content" / "dogfight")
    return dest


def _env() -> dict:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("PNP_ROOT", None)
    return env


def bench_render(root: Path) -> float:
    times = []
    for n in range(RUNS + 1):
        started = time.monotonic()
        subprocess.run(
            [
                *PNP,
                "--root",
                str(root),
                "render",
                "dogfight",
                "allied-planes",
                "red-7",
                "-o",
                str(root / f"face-{n}.png"),
            ],
            check=True,
            capture_output=True,
            env=_env(),
        )
        if n:  # the first run warms the disk cache only
            times.append(time.monotonic() - started)
    return statistics.median(times)


def bench_rebuild(root: Path) -> tuple[str, float]:
    subprocess.run(
        [*PNP, "--root", str(root), "print", "dogfight"],
        check=True,
        capture_output=True,
        env=_env(),
    )
    rewards = root / "content/dogfight/components/rewards.yaml"
    rewards.write_text(
        rewards.read_text().replace("en: German plane shot down", "en: German plane downed")
    )
    started = time.monotonic()
    done = subprocess.run(
        [*PNP, "--root", str(root), "print", "dogfight"],
        check=True,
        capture_output=True,
        text=True,
        env=_env(),
    )
    took = time.monotonic() - started
    built = re.search(r"(\d+ of \d+) files built", done.stdout)
    return (built.group(1) if built else "?"), took


def bench_watch(root: Path) -> tuple[float, float]:
    """Seconds from the save to the new picture, and to the end of the rebuild."""
    watcher = subprocess.Popen(
        [*PNP, "--root", str(root), "watch", "dogfight", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=_env(),
    )
    try:
        # the first cycle: everything built once (the URL is printed before it, with a
        # placeholder page, so its end is the "rebuilt in" line)
        for line in watcher.stdout:
            if "rebuilt in" in line:
                break
        faces = root / "output/dogfight/preview/faces"
        before = set(os.listdir(faces))
        plane = root / "content/dogfight/components/rewards.yaml"
        saved = time.monotonic()
        plane.write_text(plane.read_text().replace("en: German plane downed", "en: Shot down"))
        picture = None
        while picture is None and time.monotonic() - saved < 120:
            new = set(os.listdir(faces)) - before
            if new:
                picture = time.monotonic() - saved
            time.sleep(0.02)
        for line in watcher.stdout:
            if "rebuilt in" in line:
                break
        return picture or float("nan"), time.monotonic() - saved
    finally:
        watcher.terminate()
        watcher.wait(timeout=20)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = _copy(Path(tmp))
        render = bench_render(root)
        files, seconds = bench_rebuild(root)
        picture, rebuilt = bench_watch(root)
    print(
        f"pnp render, one card to PNG, cold process: {render:.2f} s (median of {RUNS}; "
        f"target < 1.5 s)"
    )
    print(
        f"one English string edited in Dogfight: {files} files rebuilt in {seconds:.1f} s "
        f"(before per-language keys: 17 files, about 18 s)"
    )
    print(
        f"pnp watch, save to refreshed picture: {picture:.2f} s; to the end of the rebuild: "
        f"{rebuilt:.1f} s"
    )


if __name__ == "__main__":
    main()
