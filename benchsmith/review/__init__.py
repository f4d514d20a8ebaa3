"""Human review of a built benchmark: a local web page, the decision journal, acceptance.

``benchsmith review DIR`` serves :mod:`benchsmith.review.server`; decisions go to
``DIR/review.jsonl`` (:mod:`benchsmith.review.journal`); human acceptance per subtask,
rejection reasons and reviewer agreement come from :mod:`benchsmith.review.summary`.
"""
