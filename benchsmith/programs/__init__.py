"""Question programs: typed programs over records whose answers are computed by execution.

A program (:class:`~benchsmith.spec.ProgramSpec`) is a kind from the library -
lookup, filtered lookup, comparison of two records, superlative among k, count and
aggregate over a filtered set, classification from stated features, multi-hop - with typed
parameters. :mod:`~benchsmith.programs.intent` builds candidate programs from an intent by
code, :mod:`~benchsmith.programs.run` executes them over a
:class:`~benchsmith.programs.table.Table` (and re-executes them for the verifier), and
:mod:`~benchsmith.programs.items` turns instances into benchmark items.
"""

from benchsmith.programs.intent import Candidate, Refusal, plan
from benchsmith.programs.run import Instance, ProgramError, execute, generate, probe
from benchsmith.programs.table import Column, Table, build_table
from benchsmith.programs.wording import WordsMissing

__all__ = [
    "Candidate",
    "Column",
    "Instance",
    "ProgramError",
    "Refusal",
    "Table",
    "WordsMissing",
    "build_table",
    "execute",
    "generate",
    "plan",
    "probe",
]
