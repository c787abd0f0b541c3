"""Compiled Jinja templates kept between commands, keyed by their source text.

Compiling a template (parse, generate Python, compile it) costs far more than loading the
compiled code back, and a game's templates (card texts, templated SVG art, rulebook sections,
the rulebook page) rarely change between two commands. The compiled code is a pure function of
the template's source, of the environment that compiled it (pnp's code, Jinja's version,
limits.yaml: the sandbox folds constants through its guarded filters) and of the Python
version, so it is kept, one file per template, with Jinja's own bytecode cache
(`FileSystemBytecodeCache`, one Jinja `Bucket` per template): the key names the template's
source digest and everything else above; the bucket's checksum and magic header are Jinja's.
Nothing about a game's findings is kept: every command still renders and checks everything.

The files live in the user's cache folder (cache/store.py: its `templates` kind, its key scheme
and its eviction rule), never in the project: marshalled code is code, so a project must not be
able to hand pnp some. `PNP_CACHE_DIR=off` turns it off. A file that cannot be read back
(truncated, corrupt, from another Python) is ignored and the template compiled afresh.
"""

from __future__ import annotations

import hashlib
import os
import sys
from functools import lru_cache
from pathlib import Path
from typing import Any

from jinja2 import Environment, TemplateSyntaxError, nodes
from jinja2.bccache import Bucket, FileSystemBytecodeCache
from jinja2.environment import TemplateExpression
from jinja2.parser import Parser

from generator.cache import store as user_cache
from generator.limits import _FILE as limits_file


def folder() -> Path | None:
    return user_cache.folder("templates")


@lru_cache(maxsize=1)
def _stamp() -> str:
    """What compiled code depends on besides the source: pnp's code (the sandbox, its filters
    and options), Jinja's version and the limits its filters enforce while folding constants."""
    import jinja2

    h = hashlib.sha256(
        f"{user_cache.code_digest()}\0{jinja2.__version__}\0{sys.version}\0".encode()
    )
    h.update(limits_file.read_bytes())
    return h.hexdigest()


class CompiledTemplates(FileSystemBytecodeCache):
    """Jinja's file-per-template bytecode cache, keyed by pnp's stamp and the environment's
    `kind`; a file it cannot read is a miss, a folder it cannot write is no cache."""

    def __init__(self, directory: Path, kind: str) -> None:
        super().__init__(str(directory), "%s.jinja")
        self.kind = kind

    def get_cache_key(self, name: str, filename: str | None = None) -> str:
        return user_cache.key(_stamp(), self.kind, name, filename or "", length=40)

    def load_bytecode(self, bucket: Bucket) -> None:
        try:
            super().load_bytecode(bucket)
        except Exception:  # truncated or corrupt (pickle and marshal raise many kinds): compile
            bucket.reset()
            return
        if bucket.code is not None:  # a hit: a use, for the store's eviction rule
            user_cache.used(Path(self._get_cache_filename(bucket)))

    def dump_bytecode(self, bucket: Bucket) -> None:
        try:
            os.makedirs(self.directory, exist_ok=True)
            super().dump_bytecode(bucket)
        except OSError:
            return  # a read-only or full disk: no cache, same results
        user_cache.wrote("templates")  # the store's one eviction rule (cache/store.py)


_STORES: dict[tuple, CompiledTemplates | None] = {}


def store(kind: str) -> CompiledTemplates | None:
    """The cache for one kind of environment, or None when caching is off. It follows the
    folder the environment chooses (tests point PNP_CACHE_DIR elsewhere)."""
    key = (kind, user_cache.root())
    try:
        return _STORES[key]
    except KeyError:
        where = folder()
        found = _STORES[key] = None if where is None else CompiledTemplates(where, kind)
        return found


def _digest(source: object) -> str | None:
    """The key of a template's text; None for a node tree or text UTF-8 cannot hold (a lone
    surrogate from a YAML escape): those are compiled every time, as Jinja would."""
    if not isinstance(source, str):
        return None
    try:
        return hashlib.sha256(source.encode("utf-8")).hexdigest()
    except UnicodeEncodeError:
        return None


class CachedCompile(Environment):
    """An Environment whose compile() of template text goes through the cache. `cache_kind`
    names the environment (its options are part of pnp's code, hence of the stamp)."""

    cache_kind = "content"

    def compile(
        self,
        source: str | nodes.Template,
        name: str | None = None,
        filename: str | None = None,
        raw: bool = False,
        defer_init: bool = False,
    ) -> Any:
        cache = None if raw else store(self.cache_kind)
        digest = _digest(source) if cache is not None else None
        if cache is None or digest is None or not isinstance(source, str):
            return super().compile(source, name, filename, raw, defer_init)  # type: ignore[call-overload]
        bucket = cache.get_bucket(self, f"{digest}\0{name}\0{int(defer_init)}", filename, source)
        if bucket.code is None:  # a syntax error raises here and nothing is kept
            bucket.code = super().compile(source, name, filename, False, defer_init)
            cache.set_bucket(bucket)
        return bucket.code

    def compile_expression(self, source: str, undefined_to_none: bool = True) -> Any:
        """Jinja's compile_expression (an `if:` condition, a count), its code kept likewise."""
        cache = store(self.cache_kind)
        digest = _digest(source) if cache is not None else None
        if cache is None or digest is None:
            return super().compile_expression(source, undefined_to_none)
        bucket = cache.get_bucket(self, f"{digest}\0expression", None, source)
        if bucket.code is None:  # Jinja's own steps (compile_expression), then kept
            parser = Parser(self, source, state="variable")
            try:
                expr = parser.parse_expression()
                if not parser.stream.eos:
                    raise TemplateSyntaxError(
                        "chunk after expression", parser.stream.current.lineno, None, None
                    )
                expr.set_environment(self)
            except TemplateSyntaxError:
                self.handle_exception(source=source)
            body = [nodes.Assign(nodes.Name("result", "store"), expr, lineno=1)]
            bucket.code = super().compile(nodes.Template(body, lineno=1))
            cache.set_bucket(bucket)
        template = self.template_class.from_code(self, bucket.code, self.make_globals(None))
        return TemplateExpression(template, undefined_to_none)
