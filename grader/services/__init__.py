"""Use cases over the database: each function owns its transaction."""
