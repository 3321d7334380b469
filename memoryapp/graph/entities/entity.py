"""What the extractor returns: a named thing in a memory, its type, and where it was said."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class EntityType(StrEnum):
    PERSON = "person"
    PLACE = "place"
    ORGANIZATION = "organization"  # companies, schools, hospitals, banks, clubs, bands
    PRODUCT = "product"  # apps, tools, devices, cars, languages, services, books, games
    PROJECT = "project"  # "the Atlas migration", "Project Falcon", “北极星”项目


@dataclass(frozen=True)
class Entity:
    name: str  # as written (a project without "Project"/项目; a person with a title kept)
    type: EntityType
    span: tuple[int, int]  # [start, end) in the text given to extract_entities
