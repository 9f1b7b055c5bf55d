"""Package attributes loaded on first use (PEP 562): a module's public names, each from where it lives."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(
    module: str, exports: Mapping[str, str], namespace: dict[str, Any], public: list[str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of ``module``, whose ``exports`` map each name to its module.

    A name is imported the first time it is asked for and then kept in ``namespace`` (the
    module's globals), so it is found directly from then on; ``__dir__`` lists ``public``.
    """

    def __getattr__(name: str) -> Any:
        home = exports.get(name)
        if home is None:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(home), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(public)

    return __getattr__, __dir__
