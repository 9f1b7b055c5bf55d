"""The conformance kit for engine plugins: factories, strategies, the contract checks and a pytest plugin.

A plugin's tests run every check the core expects of an engine in one class::

    from enginekit.testing import EngineConformance

    class TestConformance(EngineConformance):
        plugin = MyEngine()          # or the class (default config), or a factory
        engine = "myengine"
        shapes = frozenset({"single", "multi_node", "mig", "cpu", "lora", "kv_events"})

The inherited tests draw valid shards of each listed shape with hypothesis and check
that the hooks are pure (no ``os.environ``, files, processes or network), planning is
deterministic, the API key is in no argv, the placement variables reach every command
unchanged, secret variables are declared, profiles cannot set protected variables
whatever the site allows, ``validate`` names the profile in every sentence, only a
multi-node leader serves HTTP and never waits for its own port, wrong types are
refused with the field named, and the health and metrics paths are paths. Optional
class attributes: ``installed`` (an installed build's root), ``policy`` (the site's
:class:`~enginekit.policy.env.EnvPolicy`), ``takes_api_key``, ``max_examples``,
``device_output``; optional
methods: ``adapt(shard)`` (fit drawn shards to the engine) and ``invalid_profiles()``.
See ``docs/conformance-kit.md``.

The pieces, each usable alone:

- :mod:`~enginekit.testing.factories`: :func:`make_profile`, :func:`make_shard` and one
  factory per shape (:func:`make_multi_node`, :func:`make_replica`, :func:`make_mig`,
  :func:`make_cpu`, :func:`make_lora`, :func:`make_kv_events`);
- :mod:`~enginekit.testing.strategies` (needs hypothesis): ``shards(engine, shapes)``,
  ``api_keys()``;
- :mod:`~enginekit.testing.purity`: :func:`forbid_side_effects`;
- :mod:`~enginekit.testing.engines`: :func:`engine_for`, :func:`check_engine`, and for an
  engine's env rules :func:`sites_opening`, :func:`env_verdict` and :func:`assert_env_denied`;
- :mod:`~enginekit.testing.pytest_plugin`: the ``make_shard`` and ``make_profile``
  fixtures, installed as the pytest plugin ``enginekit``.

Nothing here is imported by ``enginekit`` itself, and pytest and hypothesis are not
dependencies of the core: install ``enginekit[testing]`` for them. Importing this
package needs neither; :class:`EngineConformance` needs pytest, the strategies hypothesis.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from enginekit.policy.env import DEFAULT_POLICY, EnvPolicy
from enginekit.testing.engines import (
    assert_env_denied,
    check_engine,
    engine_for,
    env_verdict,
    instantiate,
    sites_opening,
)
from enginekit.testing.factories import (
    SHAPES,
    TEST_API_KEY,
    TEST_MIG_UUID,
    example_shard,
    lora_adapters,
    make_cpu,
    make_kv_events,
    make_lora,
    make_mig,
    make_multi_node,
    make_profile,
    make_replica,
    make_shard,
    multi_node_profile,
)
from enginekit.testing.purity import forbid_side_effects

if TYPE_CHECKING:
    from enginekit.testing.conformance import EngineConformance


def __getattr__(name: str) -> Any:
    # The conformance class imports pytest: loaded only by a test that asks for it.
    if name == "EngineConformance":
        from enginekit.testing.conformance import EngineConformance

        return EngineConformance
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "DEFAULT_POLICY",
    "SHAPES",
    "TEST_API_KEY",
    "TEST_MIG_UUID",
    "EngineConformance",
    "EnvPolicy",
    "assert_env_denied",
    "check_engine",
    "engine_for",
    "env_verdict",
    "example_shard",
    "forbid_side_effects",
    "instantiate",
    "lora_adapters",
    "make_cpu",
    "make_kv_events",
    "make_lora",
    "make_mig",
    "make_multi_node",
    "make_profile",
    "make_replica",
    "make_shard",
    "multi_node_profile",
    "sites_opening",
]
