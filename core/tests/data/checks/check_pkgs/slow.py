"""An engine whose import the tests report as slow (they replace the registry's clock)."""

from __future__ import annotations

from check_pkgs.engines import Good


class Slow(Good):
    pass
