"""What a module-level name (or an attribute of one) is, as
mmlint.analysis.resolve's ``resolve_dotted`` finds it; shared with the
provenance layer (mmlint.analysis.values) without an import circle."""

from __future__ import annotations

from dataclasses import dataclass

ClassKey = tuple[str, str]  # (display path of the module, class qualname)
DefKey = tuple[str, int]
SyncKey = tuple[str, int]

# Bases that define no attribute an instance could be asked for: a method
# lookup passes them without doubt (`class LLM(abc.ABC, ChatModelMixin)`).
INERT_BASES = frozenset(
    {
        "object",
        "builtins.object",
        "ABC",
        "abc.ABC",
        "Generic",
        "typing.Generic",
        "Protocol",
        "typing.Protocol",
        "typing_extensions.Protocol",
    }
)


@dataclass(frozen=True, slots=True)
class ModuleSymbol:
    path: str  # the module's display path


@dataclass(frozen=True, slots=True)
class ClassSymbol:
    key: ClassKey


@dataclass(frozen=True, slots=True)
class DefSymbol:
    """An async def."""

    key: DefKey


@dataclass(frozen=True, slots=True)
class SyncDefSymbol:
    key: SyncKey


Symbol = ModuleSymbol | ClassSymbol | DefSymbol | SyncDefSymbol
