"""The graph's typed state: input, output and the full working state.

The state holds ids, counts and paths, never media bytes or whole datasets. Reducers are
used only where values accumulate (``warnings``).
"""

from __future__ import annotations

import operator
from typing import Annotated

from typing_extensions import TypedDict


class BuildInput(TypedDict):
    """What a build starts from (the form Studio shows)."""

    intent: str
    size: int


class BuildOutput(TypedDict):
    """What a build returns."""

    intent: str
    size: int
    models: dict[str, str]
    warnings: list[str]


class BuildState(BuildInput, BuildOutput):
    """The working state of a build."""

    warnings: Annotated[list[str], operator.add]
