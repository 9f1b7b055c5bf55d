"""The contract every engine keeps, checked on the vLLM plugin by the core's conformance kit."""

from __future__ import annotations

from enginekit.testing import EngineConformance
from enginekit_vllm import VllmConfig, VllmEngine

#: No vLLM release read runs on a MIG instance: such shards are refused, so "mig" is not listed.
SHAPES = frozenset({"single", "multi_node", "cpu", "lora", "kv_events"})


class TestConformance(EngineConformance):
    """vLLM as configured by default: native multi-node, the newest release read."""

    plugin = VllmEngine
    engine = "vllm"
    shapes = SHAPES


def _ray() -> VllmEngine:
    return VllmEngine(VllmConfig(multinode="ray"))


class TestConformanceRay(EngineConformance):
    """vLLM spanning nodes with Ray: a head and the server on the leader, a join elsewhere.

    Only multi-node shards differ from the default configuration's; the others are
    planned as by the default class, drawn fewer times.
    """

    plugin = _ray
    engine = "vllm"
    shapes = SHAPES
    max_examples = 10
