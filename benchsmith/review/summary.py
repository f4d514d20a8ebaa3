"""Human acceptance from the review journal: per subtask and overall, reasons, agreement.

An item's human verdict is the latest decision on it by any reviewer; accepted and edited
items count as accepted. Acceptance is the share of reviewed items accepted, with a 95 %
Wilson interval. Where two reviewers decided the same items, their agreement is Cohen's
kappa over accepted / rejected on those items.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any, Literal

from benchsmith.item import Item
from benchsmith.review.journal import REJECT_REASONS, ReviewDecision, ReviewJournal
from benchsmith.statistics import cohen_kappa, wilson_interval

ItemStatus = Literal["unreviewed", "accepted", "rejected", "edited"]

_STATUS = {"accept": "accepted", "reject": "rejected", "edit": "edited"}


def status_of(decision: ReviewDecision | None) -> ItemStatus:
    """The status an item shows for a decision (``unreviewed`` without one)."""
    return "unreviewed" if decision is None else _STATUS[decision.decision]


def _share(decisions: Sequence[ReviewDecision]) -> dict[str, Any]:
    accepted = sum(d.accepted for d in decisions)
    n = len(decisions)
    low, high = wilson_interval(accepted, n)
    return {
        "reviewed": n,
        "accepted": accepted,
        "edited": sum(d.decision == "edit" for d in decisions),
        "rejected": n - accepted,
        "acceptance": accepted / n if n else None,
        "ci95": [round(low, 4), round(high, 4)] if n else None,
    }


def agreement(journal: ReviewJournal) -> list[dict[str, Any]]:
    """Cohen's kappa of each pair of reviewers over the items both decided."""
    latest = {r: journal.latest(r) for r in journal.reviewers()}
    out = []
    for first, second in itertools.combinations(latest, 2):
        shared = sorted(set(latest[first]) & set(latest[second]))
        a = ["accepted" if latest[first][i].accepted else "rejected" for i in shared]
        b = ["accepted" if latest[second][i].accepted else "rejected" for i in shared]
        kappa = cohen_kappa(a, b)
        out.append(
            {
                "reviewers": [first, second],
                "items": len(shared),
                "agreement": (sum(x == y for x, y in zip(a, b, strict=True)) / len(shared))
                if shared
                else None,
                "kappa": None if kappa is None else round(kappa, 4),
            }
        )
    return out


def human_summary(items: Iterable[Item], journal: ReviewJournal) -> dict[str, Any]:
    """Human acceptance of the items in the folder, from the journal's latest decisions.

    Decisions on ids that are no longer in the folder (replaced by a refill) are left out.

    Returns:
        ``items``, ``overall`` (reviewed, accepted, edited, rejected, acceptance, ci95),
        ``by_subtask`` (the same per subtask), ``reasons`` (rejection reason to count, by the
        reason's name), ``reviewers`` and ``agreement``.
    """
    by_id = {item.id: item for item in items}
    latest = {i: d for i, d in journal.latest().items() if i in by_id}
    by_subtask: dict[str, list[ReviewDecision]] = {}
    for item_id, decision in latest.items():
        subtask = str(by_id[item_id].metadata.get("subtask") or "-")
        by_subtask.setdefault(subtask, []).append(decision)
    reasons = Counter(REJECT_REASONS[d.reason] for d in latest.values() if d.reason is not None)
    return {
        "items": len(by_id),
        "overall": _share(list(latest.values())),
        "by_subtask": {s: _share(ds) for s, ds in sorted(by_subtask.items())},
        "reasons": dict(reasons.most_common()),
        "reviewers": journal.reviewers(),
        "agreement": agreement(journal),
    }
