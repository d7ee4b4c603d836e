"""Configuration: the declarative schema, loading and validation (with the
line of every key), and the frozen Settings a run reads."""
