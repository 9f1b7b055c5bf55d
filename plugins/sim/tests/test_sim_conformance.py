"""The contract every engine plugin keeps, checked on the simulated engine for every shape it starts."""

from __future__ import annotations

from collections.abc import Iterable

from enginekit.spec.model import Profile
from enginekit.testing import EngineConformance
from enginekit_sim.plugin import SimEngine


class TestSimConformance(EngineConformance):
    """The simulator runs every launch shape a real engine does: it loads no model."""

    plugin = SimEngine
    engine = "sim"
    shapes = frozenset({"single", "multi_node", "mig", "cpu", "lora", "kv_events"})

    def invalid_profiles(self) -> Iterable[Profile]:
        """One profile per kind of refusal: the core's (from the policy) and the simulator's own."""
        base = {"engine": "sim", "model_path": "/models/tiny"}
        yield Profile(name="managed", args=("--port", "1"), **base)
        yield Profile(name="secret", args=("--api-key=k",), **base)
        yield Profile(name="stray", args=("stray",), **base)
        yield Profile(name="risky", args=("--trust-remote-code",), **base)
        yield Profile(name="unknown", args=("--bogus",), **base)
        yield Profile(name="out-of-range", args=("--ttft-ms", "1e9"), **base)
        yield Profile(name="exiting", args=("-h",), **base)
        yield Profile(name="key-variable", env={"ENGINEKIT_API_KEY": "k"}, **base)
