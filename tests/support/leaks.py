"""Look for a text everywhere the database can hold it: every column of every public table, cast to text."""

from __future__ import annotations

from django.db import connection


def columns_holding(*needles: str) -> list[str]:
    """`table.column` for each column where some row contains one of `needles` (case-insensitive)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT c.table_name, c.column_name FROM information_schema.columns c "
            "JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name "
            "WHERE c.table_schema = 'public' AND t.table_type = 'BASE TABLE' AND c.data_type <> 'bytea' "
            "ORDER BY 1, 2"
        )
        columns = cursor.fetchall()
        found = []
        for table, column in columns:
            for needle in needles:
                cursor.execute(f'SELECT 1 FROM "{table}" WHERE "{column}"::text ILIKE %s LIMIT 1', [f"%{needle}%"])
                if cursor.fetchone():
                    found.append(f"{table}.{column}")
                    break
        return found


def rows_pointing_at_user(user_id: int) -> list[str]:
    """`table.column` for each foreign key to auth_user that still holds `user_id`."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT cl.relname, a.attname FROM pg_constraint k "
            "JOIN pg_class cl ON cl.oid = k.conrelid "
            "JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = ANY (k.conkey) "
            "WHERE k.contype = 'f' AND k.confrelid = 'auth_user'::regclass"
        )
        found = []
        for table, column in cursor.fetchall():
            cursor.execute(f'SELECT 1 FROM "{table}" WHERE "{column}" = %s LIMIT 1', [user_id])
            if cursor.fetchone():
                found.append(f"{table}.{column}")
        return found
