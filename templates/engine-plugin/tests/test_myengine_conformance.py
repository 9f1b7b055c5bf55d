"""The contracts every engine keeps, checked on myengine-server by the core's conformance kit."""

from __future__ import annotations

from collections.abc import Iterable

from enginekit.plugin import Profile
from enginekit.testing import EngineConformance, make_profile

from enginekit_myengine import MyEngine


class TestMyEngineConformance(EngineConformance):
    plugin = MyEngine  # the class: instantiated with its default config
    engine = "myengine"
    # What myengine-server can run; "lora" and "kv_events" are refused by validate.
    shapes = frozenset({"single", "multi_node", "mig", "cpu"})

    def invalid_profiles(self) -> Iterable[Profile]:
        """Profiles validate refuses: each must be refused, every sentence naming the profile."""
        yield make_profile(engine="myengine", kv_events=True)
        yield make_profile(engine="myengine", args=("--dtype", "float64"))
