"""Running models on a benchmark and reporting on it (issue 7).

Modules, one concern each: :mod:`~benchsmith.evaluate.folder` (a folder's items, for evaluation),
:mod:`~benchsmith.evaluate.messages` (the prompt, as the Inspect task builds it),
:mod:`~benchsmith.evaluate.baselines`, :mod:`~benchsmith.evaluate.runner` (models on items),
:mod:`~benchsmith.evaluate.scoring`, :mod:`~benchsmith.statistics` (pure
functions), :mod:`~benchsmith.evaluate.analysis` (``eval.json``),
:mod:`~benchsmith.evaluate.quality` (the LLM judge of item quality),
:mod:`~benchsmith.evaluate.plots` and :mod:`~benchsmith.evaluate.html` (``report.html``),
and :mod:`~benchsmith.evaluate.api`, the entry points re-exported here. On a panel of models:
:mod:`~benchsmith.evaluate.irt` (2PL fits, subsets), :mod:`~benchsmith.evaluate.calibrate`
(``benchsmith calibrate``), :mod:`~benchsmith.evaluate.perturb` (the contamination check)
and :mod:`~benchsmith.evaluate.calibrated_build` (``build --panel``).
"""

from benchsmith.evaluate.api import (
    EvalResult,
    JudgeResult,
    evaluate_benchmark,
    judge_benchmark,
    write_report,
)

__all__ = ["EvalResult", "JudgeResult", "evaluate_benchmark", "judge_benchmark", "write_report"]
