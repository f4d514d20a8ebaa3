"""One object per chain: which formulas a derivation may join through a shared quantity.

A chain passes a value from one formula to the next (``F`` solved from ``C = c F``, then
used in ``P_z = F / (1 + y)^n``). That is sound only when the text applies both formulas to
the same object: the coupon formula is about a coupon bond, the second about a zero-coupon
bond, which has no coupon, so a problem joining them is nonsense although every number
computes. The code can tell in one case: when the text itself writes one formula's result
into the other (``P = C ...`` uses the coupon ``C`` that ``C = c F`` computes), the text
joins them. Two formulas that only share an input cannot be told apart by code; the reader
is asked (:func:`benchsmith.solution.reading.same_object`), and a chain joins them only on
a yes the text bears out. Without a reader such pairs are kept, as before, and counted in
a note.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from typing import Any

from benchsmith.solution.formulas import Formula

MAX_PAIR_QUESTIONS = 24
"""Pairs asked of the reader in one build at most (the rest are kept, with a note)."""


def joined_by_text(a: Formula, b: Formula) -> bool:
    """Whether the text writes one formula's result into the other."""
    return a.output in b.inputs or b.output in a.inputs


def open_pairs(formulas: Sequence[Formula]) -> list[tuple[Formula, Formula, tuple[str, ...]]]:
    """Formula pairs a chain could join that the code cannot tell are about one object.

    Each is ``(a, b, shared quantities)``: formulas sharing a quantity, neither writing the
    other's result, not the same relation twice (the same quantities). In reading order.
    """
    out = []
    for a, b in itertools.combinations(formulas, 2):
        shared = a.names & b.names
        if not shared or a.names == b.names or joined_by_text(a, b):
            continue
        out.append((a, b, tuple(sorted(shared))))
    return out


def pair(a: str, b: str) -> frozenset[str]:
    """The key of a pair of formula ids."""
    return frozenset((a, b))


def joins_apart(derivation: Any, apart: Iterable[frozenset[str]]) -> Any | None:
    """The first step whose value a later step of another object uses (None: none).

    ``apart`` holds the pairs of formula ids the text does not apply to one object.
    """
    refused = set(apart)
    if not refused:
        return None
    steps = derivation.steps
    for i, early in enumerate(steps):
        for late in steps[i + 1 :]:
            if early.output in late.inputs and pair(early.formula.id, late.formula.id) in refused:
                return early
    return None
