"""`pnp watch`: rebuild what a save affects, refresh the preview, reload the browser.

One cycle = load, check, build (only the targets whose inputs changed), preview. Each cycle runs
in a forked child of this process: the child starts warm (pnp's modules already imported) and
with no cache of the previous cycle, so a long-running watch never serves stale content, and a
crash in a cycle cannot stop the watcher. Errors go to the terminal and onto the page.

The preview is served on 127.0.0.1 only. The page listens on `/events` (server-sent events) and
reloads itself when a cycle has finished.
"""

from __future__ import annotations

import mimetypes
import multiprocessing
import os
import stat
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

from generator import session

# `pnp watch` is the only importer: a cycle needs all of these, and importing them here, once,
# before the first forked cycle, lets every cycle start warm.
from generator.build import run as build
from generator.check import check_game
from generator.commands.preview import write_error_page, write_preview
from generator.errors import ContentError
from generator.limits import LIMITS
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


MAX_CONNECTIONS = 32  # at once; more are closed at once (a thread each)
IDLE_SECONDS = 10.0  # a connection that sends no request in this time is closed


def _handler(root: Path, reloads: Reloads):
    class Handler(BaseHTTPRequestHandler):
        """Regular files under `root` only: no symlink followed, no folder listed, no other
        Host than 127.0.0.1 or localhost with this server's port (DNS rebinding)."""

        timeout = IDLE_SECONDS  # socket timeout: an idle connection is dropped
        protocol_version = "HTTP/1.0"

        def do_HEAD(self) -> None:
            self._answer(body=False)

        def do_GET(self) -> None:
            self._answer(body=True)

        def _answer(self, body: bool) -> None:
            port = self.server.server_address[1]  # type: ignore[index]
            if self.headers.get("Host", "") not in (f"{HOST}:{port}", f"localhost:{port}"):
                return self._refuse(403, "wrong Host")
            parts = _url_parts(self.path)
            if parts is None:
                return self._refuse(400, "bad URL")
            if parts == ["events"] and body:
                return self._events()
            if not parts:
                self.send_response(302)
                self.send_header("Location", "/preview/index.html")
                self.end_headers()
                return None
            data = _read_regular(root, parts)
            if data is None:
                return self._refuse(404, "not found")
            self.send_response(200)
            kind = mimetypes.guess_type(parts[-1])[0] or "application/octet-stream"
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            if body:
                self.wfile.write(data)
            return None

        def _refuse(self, code: int, text: str) -> None:
            data = text.encode() + b"\n"
            self.send_response(code)
            self.send_header("Content-Type", "text/plain; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _events(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
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
            except OSError:
                return

        def end_headers(self) -> None:
            self.send_header("Cache-Control", "no-store")  # the pictures change under one name
            super().end_headers()

        def log_message(self, format: str, *args) -> None:  # quiet: the terminal is for pnp
            pass

    return Handler


def _url_parts(path: str) -> list[str] | None:
    """The URL's path as plain names, or None for a URL no file has: a NUL, a bad escape, a
    '..', a backslash, a dot file."""
    raw = urlsplit(path).path
    if not raw.startswith("/"):
        return None
    try:
        text = unquote(raw, errors="strict")
    except UnicodeDecodeError:
        return None
    parts = [p for p in text.split("/") if p]
    for part in parts:
        if part.startswith(".") or "\\" in part or any(ord(c) < 32 for c in part):
            return None
    return parts


def _read_regular(root: Path, parts: list[str]) -> bytes | None:
    """The bytes of root/parts when every step is a real folder and the last a regular file:
    each component is opened without following a symlink, and without blocking on a FIFO."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        fd = os.open(root, flags | os.O_DIRECTORY)
    except OSError:
        return None
    try:
        for part in parts[:-1]:
            next_fd = os.open(part, flags | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = next_fd
        leaf = os.open(parts[-1], flags | os.O_NONBLOCK, dir_fd=fd)
        try:
            info = os.fstat(leaf)
            if not stat.S_ISREG(info.st_mode) or info.st_size > LIMITS.files.art_bytes * 4:
                return None
            with os.fdopen(leaf, "rb", closefd=False) as fh:
                return fh.read()
        finally:
            os.close(leaf)
    except OSError:
        return None
    finally:
        os.close(fd)


class _Server(ThreadingHTTPServer):
    """At most MAX_CONNECTIONS at once (each holds a thread): more are closed at once."""

    daemon_threads = True
    # The kernel's queue of connections not yet accepted (socketserver's default is 5): a burst
    # past it is dropped and retried by the client after 1, 3, 7... seconds, so 200 connections
    # at once took half a minute to be accepted (and, past the cap, closed).
    request_queue_size = 128

    def __init__(self, *args, **kwargs) -> None:
        self.slots = threading.BoundedSemaphore(MAX_CONNECTIONS)
        super().__init__(*args, **kwargs)

    def process_request(self, request, client_address) -> None:
        if not self.slots.acquire(blocking=False):
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self.slots.release()
            raise

    def process_request_thread(self, request, client_address) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.slots.release()

    def handle_error(self, request, client_address) -> None:
        pass  # a client gone mid-answer is not the designer's problem


def bind(port: int) -> _Server:
    """The server bound to 127.0.0.1:port (0: any free port), not yet serving: a busy port is
    an error at once, before anything is built."""

    try:
        return _Server((HOST, port), _handler(Path("."), Reloads()))
    except OSError as exc:
        raise ContentError(
            f"--port {port}: cannot listen on {HOST} ({exc.strerror})",
            code="usage",
            hint="another program uses it: pick another --port, or 0 for any free one",
        ) from None


def serve(root: Path, port: int, reloads: Reloads, server: _Server | None = None) -> _Server:
    """Serve `root` on 127.0.0.1:port (0: any free port) in a background thread."""
    server = server or bind(port)
    server.RequestHandlerClass = _handler(root, reloads)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def _snapshot(folders: list[Path]) -> dict[str, tuple[int, int]]:
    """Size and modification time of every file directly in `folders` (no symlink followed)."""
    out = {}
    for folder in folders:
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            try:
                if entry.is_file(follow_symlinks=False):
                    info = entry.stat(follow_symlinks=False)
                    out[entry.path] = (info.st_mtime_ns, info.st_size)
            except OSError:
                continue
    return out


def watched_folders(*tops: Path) -> list[Path]:
    """Every real folder under `tops`: a symlinked folder is never entered (it may point at
    /usr, or out of the project), nor are hidden ones (.git)."""
    out = []
    for top in tops:
        if os.path.islink(top) or not top.is_dir():
            continue
        for here, dirs, _files in os.walk(top):  # followlinks=False
            dirs[:] = sorted(
                d for d in dirs if not d.startswith(".") and not os.path.islink(Path(here) / d)
            )
            out.append(Path(here))
    return out


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
    except KeyboardInterrupt:  # Ctrl-C reaches the whole process group: the watcher says it
        code = 130
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
    server = None if once else bind(port)  # a busy port fails now, not after a build
    serving = False
    try:
        if server is not None:
            if not (folder / "preview" / "index.html").exists():
                # served at once; its script reloads it when the first cycle is done
                write_error_page(folder / "preview", game, "building the first preview...")
            serve(folder, port, reloads, server)
            serving = True
            url = f"http://{HOST}:{server.server_address[1]}/preview/index.html"
            print(f"pnp watch: {game}: open {url} (Ctrl-C stops)", flush=True)
        tops = (project.game_dir(game), project.templates)
        before = _snapshot(watched_folders(*tops))
        _run_cycle(project.root, game, jobs, reloads)
        if once:
            return 0
        # Real folders only, each watched on its own (a symlinked one is never entered); listed
        # again after each cycle, and the watch restarted when a folder came or went. A save
        # made while no watch was running (the first cycle, a restart) is caught up first.
        watched = watched_folders(*tops)
        while True:
            now = _snapshot(watched)
            if now != before:
                print("pnp watch: changed while building", flush=True)
                before = now
                _run_cycle(project.root, game, jobs, reloads)
                watched = watched_folders(*tops)
                continue
            for changes in watch_files(*watched, debounce=150, step=50, recursive=False):
                names = sorted({Path(p).name for _, p in changes})
                print(f"pnp watch: changed: {', '.join(names[:5])}", flush=True)
                before = _snapshot(watched)  # what this cycle reads
                _run_cycle(project.root, game, jobs, reloads)
                folders = watched_folders(*tops)
                if folders != watched:  # restart; a save during the cycle is caught up above
                    watched = folders
                    break
    except KeyboardInterrupt:
        pass
    finally:
        if server is not None:
            if serving:
                server.shutdown()
            server.server_close()
    print("pnp watch: stopped", flush=True)
    return 0
