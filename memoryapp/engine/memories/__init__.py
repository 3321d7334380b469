"""A memory's lifecycle: the write path, validation, listing, history snapshots, import and export, re-embedding, purge."""
