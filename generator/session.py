"""Caches owned by one command: what is read from disk is remembered for one run, never longer.

A command (`pnp print`, `pnp check`, one rebuild of a watch loop) runs inside `new()`; every
cache of something read from the project (fonts, art, layouts, paper sizes, loaded games,
fitted text) lives in that session and is dropped with it, so a long-running process sees
edited files on its next command. Code outside any command (a library caller, a test calling
a module directly) shares one default session, as a one-shot script would.

Caches of pure functions of their arguments (compiled Jinja templates keyed by their source,
colour names, number-word tables from the code) may stay process-wide: they cannot go stale.

    @session.cached
    def open_raster(path: Path) -> Raster: ...

    with session.new():
        run_the_command()
"""

from __future__ import annotations

import functools
import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


class Session:
    """The caches of one command, by name."""

    def __init__(self) -> None:
        self.caches: dict[str, dict] = {}

    def cache(self, name: str) -> dict:
        """A named dict that lives as long as this session."""
        found = self.caches.get(name)
        if found is None:
            found = self.caches[name] = {}
        return found


_DEFAULT = Session()
_current: ContextVar[Session] = ContextVar("pnp_session", default=_DEFAULT)


def current() -> Session:
    return _current.get()


@contextmanager
def new() -> Iterator[Session]:
    """Run the block with a fresh session; its caches go when the block ends."""
    session = Session()
    token = _current.set(session)
    try:
        yield session
    finally:
        _current.reset(token)


def cached(fn: F) -> F:
    """Remember `fn`'s results (hashable arguments) for the current session. Errors are not
    remembered, so a fixed file is read again."""
    name = f"{fn.__module__}.{fn.__qualname__}"

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        cache = _current.get().cache(name)
        key = (args, tuple(sorted(kwargs.items()))) if kwargs else args
        try:
            return cache[key]
        except KeyError:
            pass
        value = cache[key] = fn(*args, **kwargs)
        return value

    return wrapper  # type: ignore[return-value]  # same signature as fn, by functools.wraps


# Whether this process froze what it keeps (gc.freeze through freeze() below): a one-shot
# command once it has loaded and checked, a forked check worker. Kept here because asking the
# collector (gc.get_freeze_count) walks every frozen object: 10-30 ms at the end of each paused
# stretch of a 10,000-card build, more as the build holds more.
_FROZEN = False


def freeze() -> None:
    """gc.freeze(): what exists now is never walked by a collection again; and from now on,
    what a paused stretch makes and keeps is frozen too (collector_paused)."""
    global _FROZEN
    gc.freeze()
    _FROZEN = True


def frozen() -> bool:
    """Whether this process froze what it keeps (freeze())."""
    return _FROZEN


def unfreeze() -> None:
    """gc.unfreeze(): everything frozen goes back to the oldest generation."""
    global _FROZEN
    gc.unfreeze()
    _FROZEN = False


@contextmanager
def collector_paused() -> Iterator[None]:
    """The cyclic garbage collector paused for a stretch that makes many objects which live on
    (a game's model unpickled, a sheet file's pages and manifest slots, the guide's
    paragraphs): it would walk each of them again and again for cycles there are almost none
    of (about 10 % of the CPU of a 10,000-card build). Reference counting still frees what is
    dropped. What the stretch made and still holds is not walked when it ends (by the next
    young collection, then again by the middle one): in a process that froze what it keeps
    (freeze()) it is frozen too; elsewhere (a watch loop) it goes straight to the oldest
    generation (frozen, then unfrozen), where the next full collection finds any cycle made
    meanwhile."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if not _FROZEN:
            gc.unfreeze()
        gc.enable()
