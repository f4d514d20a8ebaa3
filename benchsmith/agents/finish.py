"""The end of a run that stops after planning: a plan-only run, or a build with no plan.

``preflight`` marks the build ``planning``; when the run does not go on to ``collect``
(``build`` false, or planning ended without a feasible plan), this node marks it
``planned``: the planner is done and nothing was built. ``plan_status`` says how planning
ended (``ok``, ``infeasible``, ``uncovered``, ``rejected``).
"""

from __future__ import annotations

from typing import Any

from benchsmith.state import BuildState


def finish_plan(state: BuildState) -> dict[str, Any]:
    """Graph node: the run ends after the planner, with ``build_status`` ``planned``."""
    return {"build_status": "planned"}
