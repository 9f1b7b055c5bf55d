"""The core's conformance kit on trtllm-serve: every contract an engine keeps, on drawn shards."""

from __future__ import annotations

from collections.abc import Iterable

from enginekit.plugin import Profile
from enginekit.testing import EngineConformance
from enginekit_trtllm import TrtllmConfig, TrtllmEngine


def configured() -> TrtllmEngine:
    """An engine the node offers; keys allowed, since trtllm-serve cannot enforce one anyway."""
    return TrtllmEngine(TrtllmConfig(python="/opt/tensorrt-llm/bin/python", allow_unauthenticated=True))


class TestConformance(EngineConformance):
    plugin = configured
    engine = "trtllm"
    # One MPI world per replica cannot be formed shard by shard; no CPU; no KV events.
    shapes = frozenset({"single", "mig", "lora"})
    # trtllm-serve has no authentication: the key is not carried, and notes() says so.
    takes_api_key = False

    def invalid_profiles(self) -> Iterable[Profile]:
        yield Profile(name="two-nodes", engine="trtllm", model_path="/m", nodes=2, gpus_per_node=1, tp=2)
        yield Profile(name="events", engine="trtllm", model_path="/m", kv_events=True)
        yield Profile(name="code", engine="trtllm", model_path="/m", args=("--trust_remote_code",))
        yield Profile(name="proxy", engine="trtllm", model_path="/m", env={"TLLM_SPAWN_PROXY_PROCESS": "1"})
        yield Profile(name="unknown", engine="trtllm", model_path="/m", args=("--no_such_option",))
