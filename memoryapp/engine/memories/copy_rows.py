"""Many new rows of one model in one COPY, in Postgres' binary format: `bulk_create` without its cost.

`bulk_create` writes a multi-row INSERT whose every value Django prepares and psycopg quotes into the SQL
text (a 512-d vector as 512 decimal numbers, parsed again by Postgres): for a batch of memories that took
more time than the INSERT's own work. Here each vector goes as its 1 KB of half floats, the other values as
Django prepares them, and the ids are taken from the table's sequence first (one round trip), so the rows
come back with their primary keys as `bulk_create`'s do.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

import numpy as np
from django.db import connection, models
from pgvector import HalfVector
from pgvector.django import HalfVectorField
from pgvector.psycopg.halfvec import HalfVectorBinaryDumper

Row = TypeVar("Row", bound=models.Model)


def copy_insert(objs: Sequence[Row]) -> list[Row]:
    """Insert unsaved `objs` (all of one model, primary keys unset) and give them their ids. Call inside a
    transaction: like `bulk_create`, it runs no `save()` and sends no signal."""
    if not objs:
        return []
    model = type(objs[0])
    table = model._meta.db_table
    fields = [field for field in model._meta.concrete_fields if not field.generated]
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT nextval(pg_get_serial_sequence(%s, %s)) FROM generate_series(1, %s)",
            [table, model._meta.pk.column, len(objs)],
        )
        for obj, (pk,) in zip(objs, cursor.fetchall()):
            obj.pk = pk
        raw = cursor.cursor  # psycopg's own cursor: its adapters are its own, the connection's stay as they were
        types = _column_types(raw, table, [str(field.column) for field in fields])
        if any(isinstance(field, HalfVectorField) for field in fields):
            vector_oid = next(oid for field, oid in zip(fields, types) if isinstance(field, HalfVectorField))
            raw.adapters.register_dumper(HalfVector, type("", (HalfVectorBinaryDumper,), {"oid": vector_oid}))
        columns = ", ".join(connection.ops.quote_name(str(field.column)) for field in fields)
        with raw.copy(f"COPY {connection.ops.quote_name(table)} ({columns}) FROM STDIN (FORMAT BINARY)") as copy:
            copy.set_types(types)
            for obj in objs:
                copy.write_row([_value(field, obj) for field in fields])
    for obj in objs:
        obj._state.adding = False
        obj._state.db = connection.alias
    return list(objs)


def _value(field: models.Field, obj: models.Model):
    value = field.pre_save(obj, add=True)  # auto_now(_add) dates are set here, as save() would
    if isinstance(field, HalfVectorField):
        return None if value is None else HalfVector(np.asarray(value, dtype=np.float32))
    return field.get_db_prep_save(value, connection)


def _column_types(cursor, table: str, columns: list[str]) -> list[int]:
    """The columns' type oids, in `columns`' order (COPY's binary format needs each value's exact type)."""
    cursor.execute("SELECT attname, atttypid FROM pg_attribute WHERE attrelid = %s::regclass AND attnum > 0", [table])
    oids = dict(cursor.fetchall())
    return [oids[column] for column in columns]
