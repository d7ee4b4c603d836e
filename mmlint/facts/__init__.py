"""Per-file facts: plain, frozen, picklable data collected from one parse."""
