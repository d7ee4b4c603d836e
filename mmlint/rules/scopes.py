"""Words for scopes, shared by the call-site rules' messages."""

from __future__ import annotations

from mmlint.facts import model
from mmlint.facts.model import CallSite


def describe_scope(site: CallSite) -> str:
    """'the sync def `helper`', 'a lambda', 'the class body of `P`', 'module level',
    with 'a comprehension in ' in front when one lies between."""
    deciding = site.deciding_scope
    enclosing = [o for o in site.owner]
    if deciding == model.DEF:
        where = f"the sync def `{enclosing[-1].name}`" if enclosing else "a sync def"
    elif deciding == model.CLASS:
        where = f"the class body of `{enclosing[-1].name}`" if enclosing else "a class body"
    elif deciding == model.LAMBDA:
        where = "a lambda"
    elif deciding == model.MODULE:
        where = "code at module level"
    else:
        where = f"the async def `{enclosing[-1].name}`" if enclosing else "an async def"
    if model.COMPREHENSION in site.scope_chain or model.GENEXP in site.scope_chain:
        return f"{short_scope(site)} in {where}"
    return where


def short_scope(site: CallSite) -> str:
    """The innermost scope alone, for a one-line message: 'a sync comprehension'
    where one lies between, else as :func:`describe_scope` says."""
    if model.GENEXP in site.scope_chain:
        return "a sync generator expression"
    if model.COMPREHENSION in site.scope_chain:
        return "a sync comprehension"
    return describe_scope(site)
