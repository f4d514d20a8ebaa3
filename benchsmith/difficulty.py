"""Predicted item difficulty from the parameters a generator chose.

Every generated item records, under ``metadata["difficulty_model"]``, what makes it hard
and the difficulty predicted from that::

    {"params": {"steps": 2, "givens": 3, "options": 4, "gap": 0.08, ...},
     "score": 0.61, "label": "medium", "source": "generator"}

- ``params``: the generator's own parameters (see :data:`WEIGHTS` for the ones scored;
  others, such as ``kind`` or ``matching``, are kept as a record and not scored).
- ``score``: :func:`predict`, a logistic of a weighted sum of features of the params, in
  [0, 1] (higher is harder). It is a prior from the item's construction, not a measurement:
  ``benchsmith eval`` measures how models actually fare.
- ``label``: ``easy`` below :data:`CUTS` [0], ``hard`` from :data:`CUTS` [1], else ``medium``.
- ``source``: ``generator`` when the params were scored; ``design label`` when the
  generator scored nothing: the score is then the middle of the band of the subtask's own
  label (the plan's, set by code) and the label is that one.

The function is pure and small on purpose, so the weights can be read, argued about and
refitted (e.g. on a calibration of ``benchsmith eval`` results) in one place.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, get_args

Label = Literal["easy", "medium", "hard"]
LABELS: tuple[Label, ...] = get_args(Label)
CUTS = (1 / 3, 2 / 3)
"""Fixed cut points of the score: easy below the first, hard from the second."""
GENERATOR = "generator"
DESIGN_LABEL = "design label"
KEY = "difficulty_model"
"""The item metadata key every generator writes."""


@dataclass(frozen=True)
class Weight:
    """One scored feature: its weight (logits per unit) and why it is weighted so."""

    feature: str
    weight: float
    reason: str


BIAS = -3.0
"""Logit of an item with every feature at zero (one step over one row, nothing to choose
from, recall not needed): such an item is easy (score about 0.05)."""

WEIGHTS: tuple[Weight, ...] = (
    Weight(
        "steps",
        0.9,
        "per operation beyond the first (a chained formula, a join, an aggregate's division): "
        "every step is one more place to go wrong, and errors compound along a chain",
    ),
    Weight(
        "rows",
        0.5,
        "per doubling of the records the question ranges over (rows shown, records compared "
        "or aggregated): finding and ranking among more rows takes more reading",
    ),
    Weight("filters", 0.5, "per condition: it must be checked on every row"),
    Weight("givens", 0.15, "per given beyond two: more values to place in the right formula"),
    Weight(
        "conversions",
        0.5,
        "per unit conversion (a percent given used as a fraction, a formula's conversion "
        "constant): a classic slip",
    ),
    Weight(
        "inverted",
        0.5,
        "per formula solved for one of its inputs rather than applied forward",
    ),
    Weight(
        "options",
        1.2,
        "of 1 - 1/options (1 for a free answer): fewer options, more lucky guesses",
    ),
    Weight(
        "closeness",
        1.6,
        "of 1 - min(1, gap), the gap being the relative distance from the answer to the "
        "nearest wrong choice (or runner-up): close values must be told apart",
    ),
    Weight(
        "precision",
        0.2,
        "per significant digit of the answer beyond two (up to six): more digits to get "
        "right, though a sum to the cent is not much harder than one to the dollar",
    ),
    Weight(
        "magnitude",
        0.1,
        "per order of magnitude the answer lies outside 1 to 1000: unusual sizes invite "
        "slips of scale",
    ),
    Weight(
        "closed_book",
        0.7,
        "the answer must be recalled, not read from rows shown in the prompt",
    ),
)


def features(params: Mapping[str, Any]) -> dict[str, float]:
    """The scored features of a generator's params (a missing param adds nothing).

    Params read: ``steps`` (operations, at least 1), ``rows`` (records the question ranges
    over), ``filters``, ``givens``, ``conversions``, ``inverted``, ``options`` (number of
    choices; 0 for a free answer), ``gap`` (relative gap to the nearest wrong choice),
    ``digits`` (significant digits of the answer, counted up to six), ``magnitude`` (log10
    of the answer's size) and ``book`` (``closed`` or ``open``).
    """

    def number(name: str) -> float | None:
        value = params.get(name)
        if isinstance(value, bool) or not isinstance(value, int | float):
            return None
        return float(value) if math.isfinite(value) else None

    out: dict[str, float] = {}
    steps = number("steps")
    if steps is not None:
        out["steps"] = max(0.0, steps - 1)
    rows = number("rows")
    if rows is not None:
        out["rows"] = math.log2(max(1.0, rows))
    for name in ("filters", "conversions", "inverted"):
        value = number(name)
        if value is not None:
            out[name] = max(0.0, value)
    givens = number("givens")
    if givens is not None:
        out["givens"] = max(0.0, givens - 2)
    options = number("options")
    if options is not None:
        out["options"] = 1.0 if options <= 0 else 1 - 1 / max(1.0, options)
    gap = number("gap")
    if gap is not None:
        out["closeness"] = 1 - min(1.0, abs(gap))
    digits = number("digits")
    if digits is not None:
        out["precision"] = max(0.0, min(digits, 6) - 2)
    magnitude = number("magnitude")
    if magnitude is not None:
        out["magnitude"] = max(0.0, magnitude - 3) + max(0.0, -magnitude)
    if params.get("book") == "closed":
        out["closed_book"] = 1.0
    return out


def predict(params: Mapping[str, Any]) -> float:
    """The predicted difficulty in [0, 1]: ``sigmoid(BIAS + sum(weight * feature))``."""
    found = features(params)
    logit = BIAS + sum(w.weight * found.get(w.feature, 0.0) for w in WEIGHTS)
    return 1 / (1 + math.exp(-logit))


def label_for(score: float) -> Label:
    """The label of a score at the fixed cut points :data:`CUTS`."""
    if score < CUTS[0]:
        return "easy"
    return "medium" if score < CUTS[1] else "hard"


def model(params: Mapping[str, Any]) -> dict[str, Any]:
    """The ``difficulty_model`` record of generated params: params, score, label, source."""
    score = predict(params)
    return {
        "params": dict(params),
        "score": round(score, 4),
        "label": label_for(score),
        "source": GENERATOR,
    }


def from_design_label(label: str, params: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The record of an item with nothing scored: its subtask's label kept.

    The score is the middle of the label's band, so scores stay comparable across items;
    ``params`` (e.g. the number of options) are kept as a record.
    """
    bands = {"easy": (0.0, CUTS[0]), "medium": CUTS, "hard": (CUTS[1], 1.0)}
    low, high = bands.get(label, CUTS)
    return {
        "params": dict(params or {}),
        "score": round((low + high) / 2, 4),
        "label": label if label in LABELS else "medium",
        "source": DESIGN_LABEL,
    }


def significant_digits(text: str) -> int:
    """Significant digits of a printed number (``$1,024.50`` has 6, ``0.0450`` has 3)."""
    digits = "".join(ch for ch in text.split("e")[0].split("E")[0] if ch.isdigit())
    stripped = digits.lstrip("0")
    return len(stripped) if stripped else 1


def magnitude(value: float) -> float | None:
    """``log10(|value|)`` rounded to two decimals (None for zero or not finite)."""
    if not math.isfinite(value) or value == 0:
        return None
    return round(math.log10(abs(value)), 2)


def number(text: str) -> float | None:
    """A plain number written as text (``1,024.5``, ``-3``), or None."""
    try:
        value = float(str(text).strip().replace(",", ""))
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def relative_gap(answer: float, others: list[float]) -> float | None:
    """The relative distance from ``answer`` to the nearest of ``others`` (None: none)."""
    if not others:
        return None
    scale = max(abs(answer), 1e-9)
    return round(min(abs(o - answer) for o in others) / scale, 4)
