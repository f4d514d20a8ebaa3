"""Helpers shared by the benchmark scripts: interleaved repeats, medians with ranges, figures.

Every script times its arms interleaved (repeat 1 of every arm, then repeat 2, ...; the order
rotated each round), so that a change in the machine's load touches all arms alike, and
reports the median with the range (min-max) of the repeats. A ratio is computed per round
(arm A and arm B of the same round) and then summarized the same way.

A script's headline figures are printed as ``FIGURE {json}`` lines (key, name, goal, value,
text); ``benchmarks/run_all.py`` (``make benchmarks``) collects them into one table.
"""

from __future__ import annotations

import json
import os
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

FIGURE_PREFIX = "FIGURE "


@dataclass(frozen=True)
class Summary:
    """The median and range of a few repeats."""

    median: float
    low: float
    high: float
    n: int

    @classmethod
    def of(cls, samples: Sequence[float]) -> Summary:
        """Summarize ``samples`` (at least one)."""
        if not samples:
            raise ValueError("no samples to summarize")
        return cls(statistics.median(samples), min(samples), max(samples), len(samples))

    def text(self, fmt: str = ".3g", unit: str = "", scale: float = 1.0) -> str:
        """``median unit (low-high, n=k)``, each value times ``scale``."""
        median, low, high = self.median * scale, self.low * scale, self.high * scale
        if self.n == 1:
            return f"{median:{fmt}}{unit} (n=1)"
        return f"{median:{fmt}}{unit} ({low:{fmt}}-{high:{fmt}}, n={self.n})"

    def as_dict(self, digits: int = 4) -> dict[str, float | int]:
        """JSON-ready: median, low, high, n."""
        return {
            "median": round(self.median, digits),
            "low": round(self.low, digits),
            "high": round(self.high, digits),
            "n": self.n,
        }


def interleaved(
    arms: dict[str, Callable[[int], float | None]], repeats: int, warmup: bool = True
) -> dict[str, list[float]]:
    """Run every arm ``repeats`` times, interleaved, and return each arm's samples.

    An arm is called with the repeat number (so it can use fresh inputs) and returns the
    seconds it measured itself, or ``None`` to have its whole call timed here.
    With ``warmup`` each arm runs once first, untimed (repeat number -1).
    """
    names = list(arms)
    if warmup:
        for name in names:
            arms[name](-1)
    samples: dict[str, list[float]] = {name: [] for name in names}
    for r in range(repeats):
        shift = r % len(names)
        for name in names[shift:] + names[:shift]:
            started = time.perf_counter()
            measured = arms[name](r)
            elapsed = time.perf_counter() - started
            samples[name].append(elapsed if measured is None else measured)
    return samples


def ratios(numerator: Sequence[float], denominator: Sequence[float]) -> list[float]:
    """Per-round ratios of two interleaved arms."""
    return [a / b for a, b in zip(numerator, denominator, strict=True) if b > 0]


def figure(key: str, name: str, goal: str, value: str, **data: Any) -> None:
    """Print one headline figure as a ``FIGURE`` line for ``run_all.py``."""
    record = {"key": key, "name": name, "goal": goal, "value": value, **data}
    print(FIGURE_PREFIX + json.dumps(record), flush=True)


def load_average() -> str:
    """The 1, 5 and 15 minute load averages and the number of cores, as text."""
    one, five, fifteen = os.getloadavg()
    return f"load {one:.2f} {five:.2f} {fifteen:.2f} on {os.cpu_count()} cores"
