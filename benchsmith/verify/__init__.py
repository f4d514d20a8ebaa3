"""Verification of items: structural checks and duplicate detection."""

from benchsmith.verify.duplicates import DuplicateIndex, DuplicateVerdict
from benchsmith.verify.structural import (
    CHECKS,
    StructuralReport,
    Verdict,
    check_item,
    normalize_text,
)

__all__ = [
    "CHECKS",
    "DuplicateIndex",
    "DuplicateVerdict",
    "StructuralReport",
    "Verdict",
    "check_item",
    "normalize_text",
]
