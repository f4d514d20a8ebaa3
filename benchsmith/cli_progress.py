"""Progress bars whose clock keeps running while nothing finishes.

tqdm redraws a bar (and so its elapsed time) only when it is updated. A build step or a
model reply can take minutes, and then the clock would stand still; a :class:`Ticker`
redraws the bar from a daemon thread every few seconds until it is stopped.
"""

from __future__ import annotations

import threading
from typing import IO, Any

TTY_REFRESH_SECONDS = 1.0
"""How often a bar on a terminal is redrawn while it waits."""
LOG_REFRESH_SECONDS = 30.0
"""How often a bar written to a file or pipe is redrawn (each redraw is another line there)."""


def refresh_seconds(file: IO[str]) -> float:
    """The redraw interval for a bar written to ``file``: short on a terminal, long in a log."""
    isatty = getattr(file, "isatty", None)
    try:
        tty = bool(isatty()) if callable(isatty) else False
    except (OSError, ValueError):  # a closed or detached stream
        tty = False
    return TTY_REFRESH_SECONDS if tty else LOG_REFRESH_SECONDS


class Ticker:
    """Redraws a tqdm bar every ``seconds`` from a daemon thread, until :meth:`stop`.

    tqdm's ``refresh`` takes the bar's own lock, so a redraw never interleaves with an
    update from the thread that drives the bar.
    """

    def __init__(self, bar: Any, seconds: float) -> None:
        """Prepare the ticker of ``bar`` (nothing runs before :meth:`start`)."""
        if seconds <= 0:
            raise ValueError(f"refresh interval must be positive, not {seconds!r}")
        self.bar = bar
        self.seconds = seconds
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="progress-ticker", daemon=True)

    def start(self) -> Ticker:
        """Start redrawing; returns the ticker."""
        self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.wait(self.seconds):
            self.bar.refresh()

    @property
    def running(self) -> bool:
        """Whether the thread still redraws the bar."""
        return self._thread.is_alive()

    def stop(self) -> None:
        """Stop redrawing and wait for the thread (before the bar is closed)."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()
