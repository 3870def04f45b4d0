"""Registers leogym's environment ids with Gymnasium (entry points only; nothing is imported)."""

from __future__ import annotations


def register_all() -> None:
    """Register every leogym env id. Safe to call more than once."""
