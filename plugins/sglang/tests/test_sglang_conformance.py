"""The contract every engine keeps, checked on SGLang with the core's conformance kit."""

from __future__ import annotations

from collections.abc import Iterable

import attrs
from enginekit import Profile
from enginekit.testing import EngineConformance
from enginekit_sglang import SglangEngine


class TestConformance(EngineConformance):
    """SGLang runs every shape: one GPU or many, several nodes, a MIG instance, the CPU, adapters, events."""

    plugin = SglangEngine()
    engine = "sglang"
    shapes = frozenset({"single", "multi_node", "mig", "cpu", "lora", "kv_events"})

    def invalid_profiles(self) -> Iterable[Profile]:
        """Refusals from the core's flag policy and from each of SGLang's own value checks."""
        base = Profile(name="refused", engine="sglang", tp=1, model_path="/models/m")
        for args in (
            ("--trust-remote-code",),  # risky, not allowed: the core, from policy()
            ("--api-key", "k"),  # secret: the core, from policy()
            ("stray",),  # positional: the core, from policy().arity
            ("--chat-template", "/etc/shadow"),  # a path where a template name goes
            ("--quantization", "nvfp4"),  # not one of SGLang's choices
            ("--trust_remote_code",),  # an underscore spelling SGLang's parser refuses
            ("--watermark-config", '{"key": "w"}'),  # the watermark key inline
        ):
            yield attrs.evolve(base, args=args)
        yield attrs.evolve(base, served_model_name="--evil")
        yield attrs.evolve(base, env={"MOONCAKE_MASTER": "10.0.0.9:50051"})
