"""A plugin whose import fails, as a half-installed engine plugin does."""

import enginekit_missing_dependency  # noqa: F401


class Engine:
    pass
