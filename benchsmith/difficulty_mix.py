"""A target mix of difficulties (``build --difficulty easy=0.3,medium=0.4,hard=0.3``).

The arithmetic of the mix, free of graphs and models:

- :func:`parse_mix` reads the option (``easy=0.3``, ``easy:0.3``, ``easy=30%``; shares must
  sum to 1 within 0.01, or to 100 when written as percentages);
- :func:`apportion` turns a count and a mix into whole items per label by largest
  remainders (ties in the order easy, medium, hard);
- :func:`choose` picks, from a subtask's candidates in their order, the ones that fill
  each label's shortfall, and the nearest label where a label has no candidate left;
- :func:`mix_report` compares what was wanted with what was accepted, per subtask.

Where the labels come from is :mod:`benchsmith.difficulty`.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from benchsmith.difficulty import LABELS
from benchsmith.errors import ConfigError

T = TypeVar("T")
SUM_TOLERANCE = 0.01


class DifficultyMixError(ConfigError):
    """A ``--difficulty`` value that is not a mix of known labels summing to one."""


def parse_mix(text: str, option: str = "--difficulty") -> dict[str, float]:
    """A mix as label to share, every label present (0 for those not named), in order.

    Accepts ``easy=0.3,medium=0.4,hard=0.3``, ``easy:0.3``, percentages (``easy=30%``, or
    plain shares that sum to 100), spaces around the parts.

    Args:
        text: The value given.
        option: What the messages call it (empty: the value alone).

    Raises:
        DifficultyMixError: Empty, an unknown or repeated label, a share that is not a
            number or is negative, or shares that do not sum to 1 (100 %) within 0.01.
    """
    where = f"{option} {text!r}".strip()
    parts = [p.strip() for p in str(text).split(",") if p.strip()]
    if not parts:
        raise DifficultyMixError(f"{where}: give shares, e.g. easy=0.3,medium=0.4,hard=0.3")
    raw: dict[str, float] = {}
    percent = False
    for part in parts:
        match = re.fullmatch(r"([A-Za-z_-]+)\s*[=:]\s*([0-9]*\.?[0-9]+)\s*(%?)", part)
        if not match:
            raise DifficultyMixError(
                f"{where}: {part!r} is not LABEL=SHARE (e.g. hard=0.3, hard:0.3 or hard=30%)"
            )
        label, value, sign = match.group(1).lower(), float(match.group(2)), match.group(3)
        if label not in LABELS:
            raise DifficultyMixError(
                f"{where}: unknown label {label!r}; labels are {', '.join(LABELS)}"
            )
        if label in raw:
            raise DifficultyMixError(f"{where}: {label} is given twice")
        percent = percent or bool(sign)
        raw[label] = value
    total = sum(raw.values())
    if percent or (total > 1 + SUM_TOLERANCE and abs(total - 100) <= 100 * SUM_TOLERANCE):
        raw = {k: v / 100 for k, v in raw.items()}
        total = sum(raw.values())
    if abs(total - 1) > SUM_TOLERANCE:
        raise DifficultyMixError(
            f"{where}: the shares sum to {total:g}, not 1 (or 100 %); "
            "e.g. easy=0.3,medium=0.4,hard=0.3"
        )
    return {label: raw.get(label, 0.0) for label in LABELS}


def mix_text(mix: Mapping[str, float]) -> str:
    """``easy=0.3,medium=0.4,hard=0.3`` (labels in order, zero shares left out)."""
    return ",".join(f"{k}={mix[k]:g}" for k in LABELS if mix.get(k))


def apportion(n: int, mix: Mapping[str, float]) -> dict[str, int]:
    """``n`` items split over the labels by largest remainders (ties: easy, medium, hard).

    The counts sum to ``n`` (for ``n >= 0`` and a mix with a positive share).
    """
    total = sum(max(0.0, mix.get(k, 0.0)) for k in LABELS)
    if n <= 0 or total <= 0:
        return {k: 0 for k in LABELS}
    exact = {k: n * max(0.0, mix.get(k, 0.0)) / total for k in LABELS}
    counts = {k: math.floor(v + 1e-9) for k, v in exact.items()}
    left = n - sum(counts.values())
    order = sorted(LABELS, key=lambda k: (-(exact[k] - counts[k]), LABELS.index(k)))
    for k in order[:left]:
        counts[k] += 1
    return counts


def shortfall(wanted: Mapping[str, int], have: Mapping[str, int]) -> dict[str, int]:
    """Items still wanted per label (never negative)."""
    return {k: max(0, wanted.get(k, 0) - have.get(k, 0)) for k in LABELS}


def nearest(label: str) -> list[str]:
    """The labels by distance from ``label`` (itself first; the easier one first on a tie)."""
    at = LABELS.index(label) if label in LABELS else 1
    return sorted(LABELS, key=lambda k: (abs(LABELS.index(k) - at), LABELS.index(k)))


def choose(
    candidates: Sequence[T],
    label_of: Callable[[T], str | None],
    short: Mapping[str, int],
    need: int,
) -> tuple[list[T], list[T]]:
    """Pick ``need`` candidates that fill each label's shortfall, in candidate order.

    First, per label, the first ``short[label]`` candidates of that label. When a label has
    too few, its places go to the nearest labels' next candidates (a build keeps its size;
    the report says which cell fell short). Candidates with no label come last.

    Returns:
        The chosen candidates (in candidate order) and the others (in candidate order).
    """
    by_label: dict[str | None, list[int]] = {}
    for index, candidate in enumerate(candidates):
        by_label.setdefault(label_of(candidate), []).append(index)
    taken: list[int] = []
    budget = max(0, need)
    # The largest shortfall first, so a tight budget goes where most is missing.
    order = sorted(LABELS, key=lambda k: (-short.get(k, 0), LABELS.index(k)))
    pending: dict[str, int] = {}
    for label in order:
        mine = by_label.get(label, [])[: min(short.get(label, 0), budget)]
        taken += mine
        budget -= len(mine)
        pending[label] = min(short.get(label, 0), budget + len(mine)) - len(mine)
    for label in order:
        for other in nearest(label)[1:]:
            want = min(pending[label], budget)
            if want <= 0:
                break
            spare = [i for i in by_label.get(other, []) if i not in taken][:want]
            taken += spare
            pending[label] -= len(spare)
            budget -= len(spare)
    if budget > 0:
        rest = [i for i in range(len(candidates)) if i not in taken]
        rest.sort(key=lambda i: label_of(candidates[i]) is None)  # unlabelled last
        taken += rest[:budget]
    keep = set(taken)
    return [candidates[i] for i in sorted(keep)], [
        c for i, c in enumerate(candidates) if i not in keep
    ]


def mix_report(
    requested: Mapping[str, float],
    targets: Mapping[str, int],
    accepted: Mapping[str, Mapping[str, int]],
    pool: Mapping[str, Mapping[str, int]],
    steerable: Mapping[str, bool],
) -> dict[str, Any]:
    """The ``difficulty_mix`` section of report.json: requested and achieved, per subtask.

    Args:
        requested: The mix asked for.
        targets: Subtask id to its target number of items.
        accepted: Subtask id to accepted items per label.
        pool: Subtask id to candidates generated per label.
        steerable: Subtask id to whether its generator predicts difficulties (a subtask
            with no computed grounding would carry its own label).

    Returns:
        ``{"requested", "achieved", "subtasks": {id: {"wanted", "got", "short"}},
        "notes"}``, the notes in words ("hard 3 of 6 wanted (the generator produced no
        more)").
    """
    subtasks: dict[str, Any] = {}
    notes: list[str] = []
    total: Counter[str] = Counter()
    for subtask_id, target in targets.items():
        wanted = apportion(target, requested)
        got = {k: int(accepted.get(subtask_id, {}).get(k, 0)) for k in LABELS}
        total.update(got)
        short = {k: wanted[k] - got[k] for k in LABELS if got[k] < wanted[k]}
        subtasks[subtask_id] = {"wanted": wanted, "got": got, "short": short}
        for label in short:
            if not steerable.get(subtask_id, False):
                why = "its items carry the subtask's design label, not a generated difficulty"
            elif pool.get(subtask_id, {}).get(label, 0) < wanted[label]:
                why = "the generator produced no more"
            else:
                why = "its candidates were rejected or the attempts ran out"
            notes.append(
                f"difficulty mix: {subtask_id}: {label} {got[label]} of {wanted[label]} "
                f"wanted ({why})"
            )
    n = sum(total.values())
    achieved = {k: round(total[k] / n, 4) if n else 0.0 for k in LABELS}
    return {
        "requested": {k: requested.get(k, 0.0) for k in LABELS},
        "achieved": achieved,
        "achieved_counts": {k: total[k] for k in LABELS},
        "subtasks": subtasks,
        "notes": notes,
    }
