"""The evaluation tests' shared folder: the report benchmark, evaluated once per session."""

from __future__ import annotations

import pytest
from eval_helpers import evaluate_report_bench, write_report_bench


@pytest.fixture(scope="session")
def evaluated_report(tmp_path_factory):
    """``(bench, result, models)``: text, image, audio and short-answer items answered by
    two baselines, a vision model and a text-only model (behind the fake endpoint)."""
    root = tmp_path_factory.mktemp("report")
    bench = write_report_bench(root)
    result, models = evaluate_report_bench(bench, root / "runs")
    return bench, result, models
