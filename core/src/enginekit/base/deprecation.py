"""Deprecations: one warning, naming what to use instead and the release that removes the old name.

The plugin API's promise (``CHANGELOG.md``, ``docs/writing-an-engine-plugin.md``): within a
major version nothing of ``enginekit.plugin`` or ``enginekit.testing`` is removed or changes
its meaning; a name on its way out keeps working for at least one minor release and warns
with :class:`DeprecationWarning` every time it is used, so a plugin's own test run shows it.
"""

from __future__ import annotations

import warnings

#: The release that removes everything deprecated in 1.x: the next major version.
REMOVED_IN = "2.0"


def deprecated(old: str, new: str, *, stacklevel: int = 3) -> None:
    """Warn that ``old`` is deprecated, naming ``new`` and :data:`REMOVED_IN`.

    ``stacklevel`` 3 points at the caller of the function that calls this: the plugin's line.
    """
    warnings.warn(
        f"{old} is deprecated: {new}; it is removed in enginekit {REMOVED_IN}",
        DeprecationWarning,
        stacklevel=stacklevel,
    )
