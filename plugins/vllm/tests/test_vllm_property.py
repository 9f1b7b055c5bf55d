"""Properties of the vLLM plugin over random valid shard specs (Hypothesis)."""

from __future__ import annotations

import json

from enginekit import Adapter, Profile, ShardSpec
from enginekit.testing import check_engine, engine_for
from enginekit_vllm import VllmConfig, VllmEngine
from hypothesis import given, settings
from hypothesis import strategies as st

#: Any port but the KV-event publisher's (41007) and its replay endpoint's (41008).
FREE = st.integers(1024, 65535).filter(lambda port: port not in (41007, 41008))
HEX = "0123456789abcdef"
MODELS = ["/models/meta-llama/Llama-3.1-8B-Instruct", "/models/Qwen/Qwen3-32B", "/srv/m/deepseek-v3"]
ARGS = [(), ("--max-model-len", "8192"), ("--dtype=bfloat16", "--enable-prefix-caching"), ("-q", "fp8")]
ADAPTERS = [
    Adapter(name="sql", path="/var/lib/enginekit/adapters/sql"),
    Adapter(name="chat.v2", path="/var/lib/enginekit/adapters/chat-v2"),
    Adapter(name="legal", path="/var/lib/enginekit/adapters/legal,eu"),
]


@st.composite
def cases(draw: st.DrawFn) -> tuple[VllmEngine, ShardSpec]:
    multinode = draw(st.sampled_from(["native", "ray"]))
    versions = ["0.11.1", "0.23.0", "0.24.0", "0.34.0"] + (["0.10.2"] if multinode == "ray" else [])
    config = VllmConfig(version=draw(st.sampled_from(versions)), multinode=multinode)
    nodes = draw(st.integers(1, 3))
    cpu = draw(st.booleans())
    per_node = draw(st.sampled_from([1, 2, 4, 8]))
    pp = draw(st.sampled_from([d for d in range(1, 9) if (per_node * nodes) % d == 0]))
    profile = Profile(
        name="p",
        engine="vllm",
        tp=per_node * nodes // pp,
        pp=pp,
        gpus_per_node=per_node if nodes > 1 or pp > 1 or draw(st.booleans()) else 0,
        nodes=nodes,
        model_path=draw(st.sampled_from(MODELS)),
        served_model_name=draw(st.sampled_from(["", "served-name"])),
        args=draw(st.sampled_from(ARGS)),
        adapters=tuple(draw(st.lists(st.sampled_from(ADAPTERS), max_size=3, unique=True))),
        kv_events=draw(st.booleans()),
    )
    rank = draw(st.integers(0, nodes - 1))
    shard = ShardSpec(
        replica_id="r",
        shard_id=f"r-{rank}",
        rank=rank,
        nnodes=nodes,
        leader_addr="10.0.0.1" if nodes > 1 else "",
        leader_port=draw(FREE) if nodes > 1 else 0,
        gpu_indices=() if cpu else tuple(range(per_node)),
        hcas=("mlx5_0:1",) if nodes > 1 and draw(st.booleans()) else (),
        mgmt_interface=draw(st.sampled_from(["", "eth0"])),
        http_port=draw(FREE),
        bind_addr=f"10.0.0.{rank + 1}" if multinode == "ray" or draw(st.booleans()) else "",
        api_key=draw(st.text(HEX, min_size=32, max_size=64)),
        kv_events_port=draw(st.sampled_from([0, 41007])),
        kv_events_mode=draw(st.sampled_from(["bind", "connect"])),
        threads=draw(st.integers(0, 64)) if cpu else 0,
        kv_cache_mib=draw(st.integers(1024, 1 << 20)) if cpu else 0,
        profile=profile,
    )
    return VllmEngine(config), shard


@settings(max_examples=300, deadline=None)
@given(cases())
def test_key_off_argv_leader_alone_serves_and_workers_wait(case: tuple[VllmEngine, ShardSpec]) -> None:
    plugin, shard = case
    commands = check_engine(plugin, shard)
    engine = engine_for(plugin, "vllm")
    key = shard.api_key
    for command in commands:
        assert all(key not in arg for arg in command.argv()), "the API key is on a command line"
        assert all(key not in value or name == "VLLM_API_KEY" for name, value in command.env.items())
        if command.env.get("VLLM_API_KEY"):
            assert command.secret_env == frozenset({"VLLM_API_KEY"})
        assert set(command.why) == set(command.env), "every generated variable says why"
    serving = [c for c in commands if "--port" in c.args]
    assert engine.serves_http(shard) is shard.is_leader()
    if shard.is_leader():
        assert len(serving) == 1
        assert serving[0] is commands[-1]
        assert serving[0].env["VLLM_API_KEY"] == key
        # Only the Ray leader's server waits, for the head its own sidecar starts.
        assert [c.wait_for_leader_port for c in commands] == [False] * (len(commands) - 1) + [
            len(commands) > 1
        ]
    else:
        assert serving == [], "only the leader serves HTTP"
        assert all(c.wait_for_leader_port for c in commands), "a worker needs the leader"
        assert all("VLLM_API_KEY" not in c.env for c in commands)
        assert all("--headless" in c.args for c in commands if c.name.startswith("vllm"))
    assert engine.commands(shard) == commands, "building is deterministic"
    plan = engine.plan(shard)
    assert key not in plan.render_text(explain=True)
    assert key not in json.dumps(plan.to_dict())
    assert all(key not in note for note in plan.notes)
