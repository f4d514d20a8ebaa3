"""A content-addressed cache of the slow, deterministic parts of computed problems.

Solving a formula for one of its inputs and planning the cells of a graph (every derivation
of every concept and difficulty, probed with drawn worlds) take most of a first build and give
the same result every time for the same input. Their results are kept as small JSON files
under ``$BENCHSMITH_HOME/cache/solution`` (``~/.benchsmith/cache/solution``), one per entry,
named by the SHA-256 of the entry's key. A key holds everything the result depends on: the
input's content (the expression, the graph's formulas and quantities, the seed, the
difficulties) and :func:`code_version` (this package's solution code and sympy's version),
so a change of either misses the cache instead of reusing a stale result.

Entries are written atomically (readers see a whole file or none) and stored with their full
key, checked on reading; an entry that cannot be read, parsed or checked is ignored (and
rebuilt by the caller), so a corrupt file never crashes a build nor gives other items. For the
same reason entries are not fsynced (a cold build writes dozens, at milliseconds each): a
power loss may leave an empty or partial entry, which is ignored and rebuilt like any other.
Processes may share the folder: two writers of one entry write the same bytes.

Expressions are stored as ``sympy.srepr`` text and read back without ``eval``: only the
node types of :data:`_NODES` are rebuilt, and the result must print to the same text.
Set ``BENCHSMITH_SOLUTION_CACHE=0`` to turn the cache off.
"""

from __future__ import annotations

import ast
import hashlib
import json
import logging
import os
from functools import lru_cache
from pathlib import Path
from typing import Any

import sympy as sp

from benchsmith.files import atomic_write, home_dir

CACHE_VERSION = 1
"""Raise when a cached result's meaning changes without a change of the solution code."""

_OFF = {"0", "off", "false", "no"}
_NODES: dict[str, Any] = {
    name: getattr(sp, name)
    for name in ("Add", "Mul", "Pow", "Symbol", "Integer", "Rational", "Float", "exp", "log")
}
_ATOMS: dict[str, Any] = {"pi": sp.pi, "E": sp.E}
_log = logging.getLogger(__name__)


def enabled() -> bool:
    """Whether the cache is on (``BENCHSMITH_SOLUTION_CACHE`` unset or not ``0``/``off``)."""
    if os.environ.get("BENCHSMITH_SOLUTION_CACHE", "").strip().lower() in _OFF:
        return False
    return code_version() is not None


def cache_dir() -> Path:
    """``$BENCHSMITH_SOLUTION_CACHE_DIR``, else ``$BENCHSMITH_HOME/cache/solution``."""
    override = os.environ.get("BENCHSMITH_SOLUTION_CACHE_DIR")
    return Path(override).expanduser() if override else home_dir() / "cache" / "solution"


@lru_cache(maxsize=1)
def code_version() -> str | None:
    """A digest of the solution code, sympy's version and :data:`CACHE_VERSION`.

    None when the sources cannot be read (the cache is then off: a result could be stale).
    """
    digest = hashlib.sha256(f"{CACHE_VERSION}:{sp.__version__}".encode())
    try:
        for path in sorted(Path(__file__).parent.glob("*.py")):
            digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    except OSError:
        return None
    return digest.hexdigest()


def _path(kind: str, key: str) -> Path:
    name = hashlib.sha256(key.encode()).hexdigest()
    return cache_dir() / kind / name[:2] / f"{name}.json"


def entry_key(kind: str, *parts: Any) -> str:
    """The full key of an entry: its kind, :func:`code_version` and ``parts`` (JSON-able)."""
    return json.dumps([kind, code_version(), *parts], sort_keys=True, separators=(",", ":"))


def load(kind: str, key: str) -> Any | None:
    """The value stored under ``key`` (from :func:`entry_key`); None if absent or unreadable."""
    if not enabled():
        return None
    path = _path(kind, key)
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError, RecursionError) as exc:
        _log.debug("ignoring unreadable cache entry %s: %s", path, exc)
        return None
    if not isinstance(record, dict) or record.get("key") != key or "value" not in record:
        _log.debug("ignoring cache entry %s: not the entry of this key", path)
        return None
    return record["value"]


def store(kind: str, key: str, value: Any) -> None:
    """Store ``value`` (JSON-able) under ``key``, atomically; a failure to write is ignored."""
    if not enabled():
        return
    path = _path(kind, key)
    text = json.dumps({"key": key, "value": value}, separators=(",", ":")) + "\n"
    try:
        atomic_write(path, text, fsync=False)  # checked on reading: durability not needed
    except OSError as exc:
        _log.debug("could not write cache entry %s: %s", path, exc)


def to_text(expr: sp.Expr) -> str:
    """An expression as stored: ``sympy.srepr`` (exact: node types, symbols and numbers)."""
    return sp.srepr(expr)


def from_text(text: str) -> sp.Expr:
    """The expression :func:`to_text` stored, rebuilt node by node (no ``eval``).

    Raises:
        ValueError: A node type other than :data:`_NODES`, or a text that does not read back
            to itself.
    """
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as exc:
        raise ValueError(f"not an expression: {exc}") from exc
    expr = _build(tree.body)
    if not isinstance(expr, sp.Expr) or sp.srepr(expr) != text:
        raise ValueError("the expression does not read back to the stored text")
    return expr


def _build(node: ast.AST) -> Any:
    if isinstance(node, ast.Constant) and type(node.value) in (int, str):
        return node.value
    if (
        isinstance(node, ast.UnaryOp)
        and isinstance(node.op, ast.USub)
        and isinstance(node.operand, ast.Constant)
        and type(node.operand.value) is int
    ):
        return -node.operand.value
    if isinstance(node, ast.Name) and node.id in _ATOMS:
        return _ATOMS[node.id]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _NODES:
        if any(k.arg != "precision" for k in node.keywords):
            raise ValueError("unexpected keyword argument")
        args = [_build(a) for a in node.args]
        keywords = {k.arg: _build(k.value) for k in node.keywords if k.arg}
        if node.func.id == "Symbol" and not (len(args) == 1 and str(args[0]).isidentifier()):
            raise ValueError("a symbol is a plain name")
        return _NODES[node.func.id](*args, **keywords)
    raise ValueError(f"unexpected node {ast.dump(node)[:80]}")
