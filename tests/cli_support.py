"""click's CliRunner with the streams of click 8.2 on click 8.1 too (the
lowest click mmlint allows): ``stdout`` and ``stderr`` apart, ``output`` both.
click 8.1 mixes stderr into stdout unless told not to, and then leaves it out
of ``output``."""

from __future__ import annotations

import inspect

from click import testing

_MIXES_BY_DEFAULT = "mix_stderr" in inspect.signature(testing.CliRunner.__init__).parameters


class _BothStreams(testing.Result):
    @property
    def output(self) -> str:
        return self.stdout + self.stderr


class CliRunner(testing.CliRunner):
    if _MIXES_BY_DEFAULT:  # click 8.1

        def __init__(self, *args, **kwargs) -> None:
            kwargs.setdefault("mix_stderr", False)
            super().__init__(*args, **kwargs)

        def invoke(self, *args, **kwargs) -> testing.Result:
            result = super().invoke(*args, **kwargs)
            result.__class__ = _BothStreams
            return result
