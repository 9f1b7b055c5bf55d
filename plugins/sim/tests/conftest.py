"""Fixtures for the simulated engine's tests: shard specs, rendered commands, processes always cleaned up."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import pytest
from enginekit.spec.model import Command, Profile, ShardSpec
from enginekit.testing import engine_for
from enginekit_sim.plugin import SimEngine
from enginekit_sim.plugin.config import SimConfig
from enginekit_sim.testing import Proc, free_port

#: Fast enough for a test, slow enough that "starting" is observable.
FAST: dict[str, Any] = {"python": sys.executable, "startup_seconds": 0.5, "ttft_ms": 5.0, "itl_ms": 2.0}


@pytest.fixture
def make_shard() -> Callable[..., ShardSpec]:
    """A single-node loopback shard with a fresh port, overridable field by field."""

    def make(profile: Profile | None = None, **fields: Any) -> ShardSpec:
        values: dict[str, Any] = {
            "replica_id": "r1",
            "shard_id": "r1-0",
            "bind_addr": "127.0.0.1",
            "http_port": free_port(),
            "gpu_indices": (0,),
            "profile": profile
            or Profile(name="p", engine="sim", model_path="/models/tiny", served_model_name="tiny"),
        }
        values.update(fields)
        return ShardSpec(**values)

    return make


@pytest.fixture
def render() -> Callable[..., Command]:
    """The one command the plugin renders for a spec, with a fast latency model unless told otherwise."""

    def rendered(spec: ShardSpec, **config: Any) -> Command:
        engine = engine_for(SimEngine(SimConfig(**{**FAST, **config})), "sim")
        (command,) = engine.plan(spec).commands
        return command

    return rendered


@pytest.fixture
def start() -> Iterator[Callable[..., Proc]]:
    """Start commands as real processes; every one is killed and reaped at teardown."""
    started: list[Proc] = []

    def run(command: Command, extra_env: Mapping[str, str] | None = None) -> Proc:
        proc = Proc(command, extra_env)
        started.append(proc)
        return proc

    yield run
    for proc in started:
        proc.close()
