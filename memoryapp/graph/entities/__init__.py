"""Entities without a model: the people, places, organisations, products and projects a memory names,
and which of a user's known entities a new name is (resolution).

    extract_entities(text) -> [Entity(name, type, span)]   extract.py (english.py, chinese.py)
    normalise_name(name) -> key                             names.py
    resolve(names, existing, embed=None) -> [Resolution]    resolution.py

Measured by `python -m bench.entities` on bench/entity_cases/ (see docs/graph.md).
"""

from __future__ import annotations

from .entity import Entity, EntityType
from .extract import extract_entities
from .names import normalise_name
from .resolution import Resolution, resolve

__all__ = ["Entity", "EntityType", "Resolution", "extract_entities", "normalise_name", "resolve"]
