"""mmlint: finds work that bypasses the worker pool or never yields to the event loop."""

__version__ = "0.1.0"
