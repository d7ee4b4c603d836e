"""Small syntactic judgements the collector records on libcst's tree: the
attribute chain of a computed receiver, functions handed to something that
runs them as coroutines, and twins defined by assignment."""

from __future__ import annotations

import libcst as cst

from mmlint.facts.shape_words import (
    HANDOFF_CONSUMERS,
    OFFLOAD_HINTS,
    is_constant_name,
)
from mmlint.facts.syntax import dotted_tail

__all__ = ["HANDOFF_CONSUMERS", "is_constant_name"]


def receiver_chain(func: cst.Attribute) -> str:
    """The attribute chain of a method on a computed receiver, with the call
    it starts from: ``self.get_tokenizer().encode`` → ``get_tokenizer().encode``,
    ``"x".encode`` → ``encode``."""
    parts = [func.attr.value]
    node = func.value
    while isinstance(node, cst.Attribute):
        parts.append(node.attr.value)
        node = node.value
    if isinstance(node, cst.Call):
        name = dotted_tail(node.func)
        if name:
            parts.append(f"{name}()")
    return ".".join(reversed(parts))


def lifespans_handed(call: cst.Call) -> list[tuple[str, str]]:
    """(function, "lifespan") for a ``lifespan=f`` argument (FastAPI, Starlette):
    the function runs once, at start-up and shutdown."""
    return [
        (tail, "lifespan")
        for arg in call.args
        if arg.keyword is not None and arg.keyword.value == "lifespan" and (tail := dotted_tail(arg.value))
    ]


def handed_functions(call: cst.Call) -> list[tuple[str, str]]:
    """(function, consumer) for each function an argument of a hand-off
    call refers to or calls: ``run_coroutine_threadsafe(self.beat(), loop)``
    gives ("beat", "run_coroutine_threadsafe")."""
    consumer = dotted_tail(call.func.func if isinstance(call.func, cst.Call) else call.func)
    if consumer not in HANDOFF_CONSUMERS:
        return []
    found = []
    for arg in call.args:
        value = arg.value
        if isinstance(value, cst.Call):
            value = value.func
        name = dotted_tail(value)
        if name:
            found.append((name, consumer))
    return found


def assigned_twin(target: cst.BaseExpression, value: cst.BaseExpression) -> tuple[str, str, str] | None:
    """(sync name, async name, wrapper) for ``X_async = make_async(X, ...)``,
    ``self.x_async = wrapper(self.x)`` or ``functools.partial(asyncio.to_thread, X)``."""
    if not isinstance(value, cst.Call) or not value.args:
        return None
    async_name = dotted_tail(target)
    wrapper = dotted_tail(value.func)
    wrapped = value.args[0].value
    if wrapper == "partial" and len(value.args) >= 2 and dotted_tail(wrapped) in ("to_thread", "run_in_executor"):
        wrapper, wrapped = dotted_tail(wrapped), value.args[1].value
    sync_name = dotted_tail(wrapped)
    if not async_name or not sync_name or async_name == sync_name or not wrapper:
        return None
    if sync_name not in async_name and not any(hint in wrapper.lower() for hint in OFFLOAD_HINTS):
        return None
    return sync_name, async_name, wrapper


def literal_all(value: cst.BaseExpression) -> tuple[str, ...] | None:
    """The names of a literal ``__all__`` (a list or tuple of plain string
    literals), or None when it is anything else (a concatenation, a call...)."""
    if not isinstance(value, (cst.List, cst.Tuple)):
        return None
    names: list[str] = []
    for element in value.elements:
        item = element.value
        if isinstance(element, cst.StarredElement) or not isinstance(item, cst.SimpleString):
            return None
        text = item.evaluated_value
        if not isinstance(text, str):
            return None  # a bytes literal
        names.append(text)
    return tuple(names)
