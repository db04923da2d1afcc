"""Sourced, bitemporal claims (``%claims``): status, search, explanation, history and explicit writes,
over the adapter's claim tools (``api``).

May import: ``errors``, ``options``, ``display``, ``graph/``.
"""

from .api import (
    EXAMPLE,
    ClaimAPI,
    ClaimExplanation,
    ClaimStatus,
    ClaimTable,
    evidence_row,
    instant,
    now,
    object_value,
    rule_text,
)

__all__ = [
    "EXAMPLE", "ClaimAPI", "ClaimExplanation", "ClaimStatus", "ClaimTable",
    "evidence_row", "instant", "now", "object_value", "rule_text",
]
