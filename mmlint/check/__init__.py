"""Running a check: discovery, the prefilter, the per-file pass (in workers,
through the cache), progress, and the engine that puts the stages together."""
