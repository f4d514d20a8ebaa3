"""Baseline "models" that need no endpoint: a floor every real model should beat.

- ``baseline:random`` picks one choice uniformly at random, seeded by the run seed and the
  item id (so an answer does not depend on item order or concurrency);
- ``baseline:first`` always picks the first choice (``A``).

Both answer ``ANSWER: X``, which every scorer reads as the letter ``X``. Items without
choices (short answer, numeric, open) get the empty answer ``""``, which is scored wrong:
a baseline has no way to produce a free-form answer, so on those items it scores 0.
"""

from __future__ import annotations

import random

from benchsmith.item import LETTERS, Item

BASELINES = ("baseline:random", "baseline:first")
"""The baseline model specs."""


def is_baseline(spec: str) -> bool:
    """Whether a model spec names a baseline (``baseline:...``)."""
    return spec.strip().startswith("baseline:")


def baseline_answer(spec: str, item: Item, *, seed: int = 0) -> str:
    """The answer a baseline gives to one item.

    Args:
        spec: ``baseline:random`` or ``baseline:first``.
        item: The item.
        seed: The run seed (``baseline:random`` only).

    Returns:
        ``"ANSWER: X"`` for items with choices, else ``""``.

    Raises:
        ValueError: ``spec`` is not a known baseline.
    """
    spec = spec.strip()
    if spec not in BASELINES:
        raise ValueError(f"unknown baseline {spec!r}; use {' or '.join(BASELINES)}")
    n = len(item.choices or [])
    if n == 0:
        return ""
    if spec == "baseline:first":
        return "ANSWER: A"
    index = random.Random(f"{seed}:{item.id}").randrange(n)
    return f"ANSWER: {LETTERS[index]}"
