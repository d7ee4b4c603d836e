"""What the terminal is: whether to colour, and how wide to lay tables out."""

from __future__ import annotations

import io
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console


def _stdout_console() -> Console:
    """What rich makes of stdout and the environment (NO_COLOR, FORCE_COLOR,
    TERM=dumb, COLUMNS). rich loads here, when a run asks: a machine format never does."""
    from rich.console import Console

    return Console(file=sys.stdout if sys.stdout is not None else io.StringIO())


def use_color(no_color: bool, output: Path | None) -> bool:
    """Colour when rich would colour stdout; --no-color and --output always win."""
    if no_color or output is not None:
        return False
    console = _stdout_console()
    return console.color_system is not None and not console.no_color


def terminal_width(output: Path | None) -> int | None:
    """The width to lay tables out in: the terminal's (or $COLUMNS), or None
    when stdout is not a terminal and COLUMNS is not set, meaning "do not wrap"."""
    if output is not None:
        return None
    console = _stdout_console()
    columns = os.environ.get("COLUMNS", "")
    stream = sys.stdout
    is_tty = stream is not None and hasattr(stream, "isatty") and stream.isatty()
    if not is_tty and not columns.isdigit():
        return None
    return console.width
