"""Run ``benchsmith`` commands inside the calling process, as the installed command would.

Tests whose subject is not the process (its exit on a signal, a resume after ``kill -9``,
the installed entry point) need not pay for one: a child process costs an interpreter
start, the package's imports and, on the embedded model, a llama.cpp server start, for
every build. :func:`run_cli` calls the same :func:`benchsmith.cli.main` the entry point
calls, with the environment, working directory and standard streams a child would have,
and gives back what :func:`subprocess.run` gives (exit code, stdout, stderr). Builds run
this way share the process's one embedded-model server (:func:`benchsmith.llm.local.local_server`).

Calls are serialized (one lock): the environment and the working directory belong to the
whole process.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
import threading
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

_LOCK = threading.Lock()


@dataclass(frozen=True)
class Ran:
    """What a finished command gave: the fields of ``subprocess.CompletedProcess`` tests read."""

    args: list[str]
    returncode: int
    stdout: str
    stderr: str


@contextlib.contextmanager
def environment(environ: Mapping[str, str]) -> Iterator[None]:
    """Make ``environ`` the process's whole environment for the block, then restore it."""
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(environ)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def run_cli(args: Sequence[str], cwd: Path, environ: Mapping[str, str], stdin: str = "") -> Ran:
    """Run ``benchsmith ARGS`` in this process, in ``cwd``, with exactly ``environ``.

    Args:
        args: The command line after ``benchsmith`` (``["build", "--size", "6", ...]``).
        cwd: The working directory (created if missing; ``.env`` is read from it).
        environ: The environment the command sees (``local_build.offline_env`` gives one).
        stdin: What a person types, a line per answer; empty: standard input is at its end.

    Returns:
        The exit code :func:`benchsmith.cli.main` returned and what it printed.
    """
    # Imported here: the CLI pulls in the whole package, which a test helper module
    # imported at collection time should not.
    from benchsmith.cli import main

    cwd.mkdir(parents=True, exist_ok=True)
    out, err = io.StringIO(), io.StringIO()
    saved_stdin = sys.stdin
    with (
        _LOCK,
        environment(environ),
        contextlib.chdir(cwd),
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
    ):
        sys.stdin = io.StringIO(stdin)
        try:
            code = main(list(args))
        except SystemExit as exc:  # a command that exits as a process would
            code = exc.code if isinstance(exc.code, int) else 1
        finally:
            sys.stdin = saved_stdin
    return Ran(list(args), code, out.getvalue(), err.getvalue())


def run_cli_checked(args: Sequence[str], cwd: Path, environ: Mapping[str, str]) -> Ran:
    """:func:`run_cli`, failing with what the command printed when it exits non-zero."""
    done = run_cli(args, cwd, environ)
    if done.returncode != 0:
        raise AssertionError(
            f"benchsmith {' '.join(list(args)[:2])} failed ({done.returncode}):\n"
            f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
        )
    return done
