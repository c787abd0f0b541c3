"""`pnp watch`: rebuild what a save affects, refresh the preview, reload the browser.

One cycle = load, check, build (only the targets whose inputs changed), preview. Each cycle runs
in a forked child of this process: the child starts warm (pnp's modules already imported) and
with no cache of the previous cycle, so a long-running watch never serves stale content, and a
crash in a cycle cannot stop the watcher. Errors go to the terminal and onto the page.

The preview is served on 127.0.0.1 only. The page listens on `/events` (server-sent events) and
reloads itself when a cycle has finished.
"""

from __future__ import annotations

import multiprocessing
import sys
import threading
import time
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from generator import session

# `pnp watch` is the only importer: a cycle needs all of these, and importing them here, once,
# before the first forked cycle, lets every cycle start warm.
from generator.build import run as build
from generator.check import check_game
from generator.commands.preview import write_error_page, write_preview
from generator.errors import ContentError
from generator.load.content import load_game
from generator.load.project import Project
from generator.render import engine  # noqa: F401

HOST = "127.0.0.1"  # never another interface: the preview is the designer's own


class Reloads:
    """A counter of finished cycles that server-sent-event clients wait on."""

    def __init__(self) -> None:
        self.generation = 0
        self._cond = threading.Condition()

    def bump(self) -> None:
        with self._cond:
            self.generation += 1
            self._cond.notify_all()

    def wait_past(self, seen: int, timeout: float) -> int:
        with self._cond:
            self._cond.wait_for(lambda: self.generation > seen, timeout)
            return self.generation


def _handler(root: Path, reloads: Reloads):
    class Handler(SimpleHTTPRequestHandler):
        def do_GET(self) -> None:
            if self.path.split("?")[0] != "/events":
                return super().do_GET()
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            seen = reloads.generation
            try:
                self.wfile.write(b": connected\n\n")
                self.wfile.flush()
                while True:
                    now = reloads.wait_past(seen, 15.0)
                    message = b"data: reload\n\n" if now > seen else b": keep-alive\n\n"
                    seen = now
                    self.wfile.write(message)
                    self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError, OSError):
                return

        def end_headers(self) -> None:
            self.send_header("Cache-Control", "no-store")  # the pictures change under one name
            super().end_headers()

        def log_message(self, format: str, *args) -> None:  # quiet: the terminal is for pnp
            pass

    return partial(Handler, directory=str(root))


def serve(root: Path, port: int, reloads: Reloads) -> ThreadingHTTPServer:
    """Serve `root` on 127.0.0.1:port (0: any free port) in a background thread."""
    server = ThreadingHTTPServer((HOST, port), _handler(root, reloads))
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def cycle(root: str, game: str, jobs: int, refreshed=lambda: None) -> int:
    """Load, check, preview, then build what changed and preview again (its PDF links).

    `refreshed()` is called after each preview is written: the faces show within a second or
    two of a save, before the slower PDFs are rebuilt. Returns 0, 1 (errors) or 2."""
    project = Project(Path(root))
    started = time.monotonic()
    try:
        content = load_game(project, game)
    except ContentError as exc:
        message = exc.format()
        print(f"pnp watch: error: {message}", file=sys.stderr, flush=True)
        write_error_page(project.output / game / "preview", game, message)
        refreshed()
        return 2
    findings = check_game(content, grouped=False)
    errors = [f for f in findings if f.severity == "error" and not f.accepted]
    shown: dict[str, int] = {}  # one terminal line per problem, however many faces have it
    for f in findings:
        if not f.accepted:
            shown[f.format()] = shown.get(f.format(), 0) + 1
    for line, n in shown.items():
        print(line + (f" (x{n})" if n > 1 else ""), file=sys.stderr)
    if errors:
        banner = f"{len(errors)} error(s): nothing rebuilt until they are fixed (see the faces)."
        write_preview(content, findings, error=banner)
        refreshed()
        print(f"pnp watch: {game}: {len(errors)} error(s), nothing rebuilt", flush=True)
        return 1
    write_preview(content, findings, error=None)
    refreshed()
    faces = time.monotonic() - started
    try:
        with build.build_lock(project):
            result = build.build(project, [content], build.Options(jobs=jobs))
    except ContentError as exc:
        banner = f"build failed: {exc.format()}"
        print(f"pnp watch: {banner}", file=sys.stderr)
        write_preview(content, findings, error=banner)
        refreshed()
        return 1
    if result["built"]:
        write_preview(content, findings, error=None)  # the PDF links of the new build
        refreshed()
    print(
        f"pnp watch: {game}: preview in {faces:.2f} s, {result['built']} of {result['total']} "
        f"file(s) rebuilt in {time.monotonic() - started:.2f} s",
        flush=True,
    )
    return 0


def _run_cycle(root: Path, game: str, jobs: int, reloads: Reloads | None = None) -> int:
    """One cycle in a forked child (fresh caches, warm imports); its crash is only reported.

    The child says "refreshed" on a pipe each time it has written the preview; each one
    reloads the browser."""
    context = multiprocessing.get_context("fork")
    receive, send = context.Pipe(duplex=False)
    child = context.Process(target=_child, args=(str(root), game, jobs, send))
    child.start()
    send.close()  # the child holds the only writer: end of file when it exits
    while True:
        try:
            receive.recv()
        except (EOFError, OSError):
            break
        if reloads is not None:
            reloads.bump()
    child.join()
    receive.close()
    return child.exitcode if child.exitcode is not None else 2


def _die_with_parent() -> None:
    """Linux: the kernel ends this child when the watcher dies, so no orphan holds the lock."""
    import ctypes
    import signal

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass  # elsewhere: the child still ends with its cycle


def _child(root: str, game: str, jobs: int, send) -> None:
    _die_with_parent()
    try:
        with session.new():  # a cycle is one command: nothing cached from the watcher's past
            code = cycle(root, game, jobs, lambda: send.send("refreshed"))
    except Exception as exc:  # a bug in pnp must not end the watch
        print(f"pnp watch: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
        code = 2
    sys.stdout.flush()
    sys.stderr.flush()
    sys.exit(code)


def watch(project: Project, game: str, port: int, jobs: int, once: bool = False) -> int:
    """Build and preview `game`, then again after every change under its folder or templates/."""
    from watchfiles import watch as watch_files

    folder = project.output / game
    (folder / "preview").mkdir(parents=True, exist_ok=True)
    reloads = Reloads()
    _run_cycle(project.root, game, jobs, reloads)
    if once:
        return 0
    server = serve(folder, port, reloads)
    url = f"http://{HOST}:{server.server_address[1]}/preview/index.html"
    print(f"pnp watch: {game}: open {url} (Ctrl-C stops)", flush=True)
    watched = [project.game_dir(game), *([project.templates] if project.templates.is_dir() else [])]
    try:
        for changes in watch_files(*watched, debounce=150, step=50):
            names = sorted({Path(p).name for _, p in changes})
            print(f"pnp watch: changed: {', '.join(names[:5])}", flush=True)
            _run_cycle(project.root, game, jobs, reloads)
    except KeyboardInterrupt:
        pass
    finally:
        server.shutdown()
    print("pnp watch: stopped", flush=True)
    return 0
