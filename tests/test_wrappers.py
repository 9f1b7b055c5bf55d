"""A scheduler's wrapper plugin wraps whichever real engine is selected, and only that one."""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from enginekit import Command, Profile, Registry, ShardSpec, hookimpl


class NumaPinning:
    """Run every engine process under numactl: what an embedding scheduler registers."""

    @hookimpl(wrapper=True)
    def commands(self) -> Generator[None, Any, list[Command]]:
        commands = yield
        return [
            Command(
                path="numactl",
                args=("--cpunodebind=0", c.path, *c.args),
                env=c.env,
                name=c.name,
                wait_for_leader_port=c.wait_for_leader_port,
                secret_env=c.secret_env,
                why=c.why,
            )
            for c in commands
        ]


def shard(engine: str) -> ShardSpec:
    return ShardSpec(
        replica_id="r",
        shard_id="s",
        http_port=8000,
        gpu_indices=(0,),
        profile=Profile(name="p", engine=engine, model_path="/models/m"),
    )


def test_wrapper_applies_to_each_selected_engine() -> None:
    registry = Registry.from_entry_points()
    registry.add_wrapper(NumaPinning(), name="numa")
    for engine in ("vllm", "sim", "llamacpp"):
        commands = registry.engine(engine).commands(shard(engine))
        assert all(c.path == "numactl" for c in commands)
    vllm = registry.engine("vllm").commands(shard("vllm"))[-1]
    sim = registry.engine("sim").commands(shard("sim"))[-1]
    assert vllm.args[1:] != sim.args[1:]  # each answered for itself
