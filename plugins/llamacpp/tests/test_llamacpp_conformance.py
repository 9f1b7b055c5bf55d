"""The core's conformance kit on llama-server: every contract an engine keeps, on drawn shards."""

from __future__ import annotations

from collections.abc import Iterable

from enginekit.plugin import Profile
from enginekit.testing import EngineConformance
from enginekit_llamacpp import LlamaCppEngine

#: What ``llama-server --list-devices`` prints for a CUDA build on one GPU.
LISTING = "Available devices:\n  CUDA0: NVIDIA H100 80GB HBM3 (81079 MiB, 80520 MiB free)\n"


class TestConformance(EngineConformance):
    plugin = LlamaCppEngine
    engine = "llamacpp"
    # One process on one node: no replica spans nodes, and llama-server publishes no KV events.
    shapes = frozenset({"single", "mig", "cpu", "lora"})
    # An empty listing is a crash, not "no GPU": the purity check parses what a build prints.
    device_output = LISTING

    def invalid_profiles(self) -> Iterable[Profile]:
        model = "/models/m.gguf"
        yield Profile(name="two-nodes", engine="llamacpp", model_path=model, nodes=2, gpus_per_node=1, tp=2)
        yield Profile(name="events", engine="llamacpp", model_path=model, kv_events=True)
        yield Profile(name="rpc", engine="llamacpp", model_path=model, args=("--rpc", "h:1"))
        yield Profile(name="twin", engine="llamacpp", model_path=model, env={"LLAMA_ARG_RPC": "h:1"})
        yield Profile(name="prio", engine="llamacpp", model_path=model, args=("--prio", "3"))
        yield Profile(name="quant", engine="llamacpp", model_path=model, args=("-q", "awq"))
