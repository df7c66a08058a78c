"""Storage: sqlmodel tables, the database engine and its transaction discipline."""
