"""A stop asked for by the person running benchsmith (Ctrl-C, SIGTERM).

The first Ctrl-C (or SIGTERM) does not raise in whatever line the main thread happens to
run: it sets one process-wide flag. Work checks the flag at its safe points (before a model
request, at the start of each slot step) and raises :class:`StopRequested` there, so no new
work starts, requests already in flight finish, the build packages what is finished and
the CLI prints how to resume. A second Ctrl-C does not wait: the embedded model's server is
stopped and the process exits 130 at once.

A leaf module: the standard library and :mod:`benchsmith.errors` only.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from benchsmith.errors import BenchsmithError

INTERRUPTED_EXIT = 130
"""The exit code of a run stopped by Ctrl-C or SIGTERM (128 + SIGINT, as shells use)."""

_STOP = threading.Event()
_REASON: list[str] = []


class StopRequested(BenchsmithError):
    """The run was asked to stop (Ctrl-C or SIGTERM); what was finished is kept."""

    exit_code = INTERRUPTED_EXIT


def request_stop(reason: str = "interrupted") -> None:
    """Ask every worker of this process to stop at its next safe point."""
    if not _STOP.is_set():
        _REASON.append(reason)
    _STOP.set()


def stop_requested() -> bool:
    """Whether a stop was asked for."""
    return _STOP.is_set()


def reason_of() -> str:
    """What asked for the stop ("Ctrl-C received", "SIGTERM received")."""
    return _REASON[0] if _REASON else "interrupted"


def check_stop() -> None:
    """Raise :class:`StopRequested` if a stop was asked for (call at safe points)."""
    if _STOP.is_set():
        raise StopRequested(f"{reason_of()}: stopped")


def reset() -> None:
    """Forget a stop (a new run in the same process; tests)."""
    _STOP.clear()
    _REASON.clear()


def _name(signum: int) -> str:
    return "Ctrl-C" if signum == signal.SIGINT else signal.Signals(signum).name


@contextmanager
def graceful_signals(
    on_first: Callable[[str], None] | None = None,
    on_second: Callable[[], None] | None = None,
) -> Iterator[None]:
    """Turn SIGINT and SIGTERM into :func:`request_stop` while the block runs.

    Only the main thread can install signal handlers; elsewhere this does nothing.

    Args:
        on_first: Called with the signal's name on the first signal (to say what happens).
        on_second: Called on the second signal before the process exits 130 at once (to
            stop child processes such as the embedded model's server).
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    signals = (signal.SIGINT, signal.SIGTERM)
    previous = {s: signal.getsignal(s) for s in signals}

    def handler(signum: int, frame: object) -> None:
        if not _STOP.is_set():
            request_stop(f"{_name(signum)} received")
            if on_first is not None:
                on_first(_name(signum))
            return
        if on_second is not None:
            try:
                on_second()
            except Exception:  # noqa: BLE001 - exiting anyway
                pass
        sys.stderr.flush()
        os._exit(INTERRUPTED_EXIT)

    for s in signals:
        signal.signal(s, handler)
    try:
        yield
    finally:
        for s, old in previous.items():
            signal.signal(s, old if old is not None else signal.SIG_DFL)
