"""Names a package serves on first use, each from the module that defines it (PEP 562).

Layer: bottom (standard library only). The root, the providers and the lab each export names
whose modules are heavy (the agent, an SDK, plotly); :func:`lazy_names` gives such a package
the ``__getattr__`` and ``__dir__`` that import a name's module only when the name is first
asked for, and keep the value so later look-ups never come back here.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_names"]


def lazy_names(
    package: str, table: Mapping[str, str], namespace: dict[str, Any]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """A package's ``__getattr__`` and ``__dir__`` for the names of ``table``.

    Args:
        package: The package's name (``__name__``), for the error of an unknown name.
        table: Each lazily served name and the module it comes from. A name mapped to the
            package's own submodule of that name (``"plots": "footprint_lab.lab.plots"``) is
            that submodule.
        namespace: The package's ``globals()``: a value is kept there once loaded.

    Returns:
        ``(__getattr__, __dir__)``, to bind at the package's top level.
    """

    def __getattr__(name: str) -> Any:
        module = table.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        loaded = importlib.import_module(module)
        # A name whose module is its own submodule gives the module (``lab.plots``), unless
        # the module defines that very name (``footprint_lab.replay``, the function).
        own = module == f"{package}.{name}" and name not in vars(loaded)
        value = loaded if own else getattr(loaded, name)
        namespace[name] = value  # later look-ups skip this function
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(table))

    return __getattr__, __dir__
