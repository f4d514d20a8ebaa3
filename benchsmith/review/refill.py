"""The loop back from review to build: items a reviewer rejected leave the ledger.

``benchsmith build --out DIR --resume`` calls :func:`revoke_rejected` before it runs: every
accepted item whose latest human decision is a rejection is revoked in the ledger, so its
grounding is short by one and the build realizes a fresh slot (a record not used before)
under the same quota, then repackages. Accepted and edited items stay; edits are applied
when the folder is packaged. A revoked item stays out even if a reviewer accepts it later.
"""

from __future__ import annotations

from pathlib import Path

from benchsmith.layout import REVIEW_FILE
from benchsmith.ledger import Ledger
from benchsmith.review.journal import ReviewJournal


def revoke_rejected(bench_dir: str | Path, run_dir: str | Path) -> list[str]:
    """Revoke in the ledger every accepted item a reviewer rejected; return their ids."""
    if not (Path(bench_dir) / REVIEW_FILE).is_file():
        return []
    journal = ReviewJournal(bench_dir)
    ledger = Ledger(run_dir)
    revoked = []
    for item_id, decision in sorted(journal.latest().items()):
        if decision.decision == "reject" and ledger.is_accepted(item_id):
            ledger.revoke(
                item_id,
                str(decision.reason),
                note=decision.note,
                reviewer=decision.reviewer,
                decided=decision.time,
            )
            revoked.append(item_id)
    return revoked
