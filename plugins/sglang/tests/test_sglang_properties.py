"""Properties over generated valid specs: the key never reaches an argv, and building is pure."""

from __future__ import annotations

import string

from enginekit import Adapter, Profile, ShardSpec
from enginekit.testing import engine_for
from enginekit.testing.strategies import api_keys
from enginekit_sglang import SglangEngine
from hypothesis import given, settings
from hypothesis import strategies as st

ENGINE = engine_for(SglangEngine(), "sglang")

# Names and paths are drawn from an alphabet without '~'; every key contains one, so a
# key found in an argv was put there, not generated there by coincidence.
WORD = st.text(string.ascii_lowercase + string.digits, min_size=1, max_size=12)
PATH = st.lists(WORD, min_size=1, max_size=4).map(lambda parts: "/" + "/".join(parts))
#: Random-looking, as real keys are (a key of drawn text can share twelve characters with
#: the launcher's argv, ENGINEKIT_API_KEY among them, and read as a leak).
KEYS = api_keys()
SAFE_ARGS = st.lists(
    st.sampled_from(
        [
            ("--mem-fraction-static", "0.8"),
            ("--context-length", "8192"),
            ("--max-running-requests", "64"),
            ("--quantization", "unquant"),
            ("--chunked-prefill-size", "-1"),
            ("--disable-radix-cache",),
        ]
    ),
    max_size=3,
).map(lambda groups: tuple(token for group in groups for token in group))


@st.composite
def shards(draw: st.DrawFn) -> ShardSpec:
    nodes = draw(st.sampled_from([1, 2, 4]))
    per_node = draw(st.sampled_from([1, 2, 4, 8]))
    total = per_node * nodes
    pp = draw(st.sampled_from([d for d in (1, 2, 4) if total % d == 0]))
    tp = total // pp
    names = draw(st.lists(WORD, max_size=3, unique=True))
    profile = Profile(
        name=draw(WORD),
        engine="sglang",
        tp=tp,
        pp=pp,
        nodes=nodes,
        gpus_per_node=per_node,
        model_path=draw(PATH),
        served_model_name=draw(st.one_of(st.just(""), WORD)),
        adapters=tuple(Adapter(name=name, path=draw(PATH)) for name in names),
        kv_events=draw(st.booleans()),
        args=draw(SAFE_ARGS),
    )
    on_cpu = draw(st.booleans())
    rank = draw(st.integers(0, nodes - 1))
    # A binding publisher takes its port and the next (its replay endpoint): clear of the others.
    kv_port = draw(st.integers(1024, 65534)) if profile.kv_events else 0
    free = st.integers(1024, 65535).filter(lambda port: not kv_port <= port <= kv_port + 1)
    leader = draw(st.sampled_from(["10.0.0.1", "fd00::1", "head.cluster.local"])) if nodes > 1 else ""
    bind = draw(st.sampled_from(["", "10.0.0.7", "fd00::7"]))
    mode = draw(st.sampled_from(["bind", "connect"]))
    if mode == "bind" and kv_port and ":" in (bind or (leader if rank == 0 else "")):
        # A binding publisher listens on IPv4 only: its subscribers are never sent to IPv6.
        bind = "10.0.0.7"
    return ShardSpec(
        shard_id=draw(WORD),
        rank=rank,
        nnodes=nodes,
        leader_addr=leader,
        leader_port=draw(free) if nodes > 1 else 0,
        profile=profile,
        gpu_indices=() if on_cpu else tuple(range(per_node)),
        threads=draw(st.integers(per_node, 4 * per_node)) if on_cpu else 0,
        http_port=draw(free),
        bind_addr=bind,
        api_key=draw(st.one_of(st.just(""), KEYS)),
        kv_events_port=kv_port,
        kv_events_mode=mode,
    )


@settings(max_examples=300, deadline=None)
@given(shards())
def test_the_key_never_appears_in_any_argv(spec: ShardSpec) -> None:
    plan = ENGINE.plan(spec)  # every generated spec is valid: planning must succeed
    for command in plan.commands:
        if spec.api_key:
            assert all(spec.api_key not in arg for arg in command.argv())
            assert command.env["ENGINEKIT_API_KEY"] == spec.api_key
            assert command.secret_env == frozenset({"ENGINEKIT_API_KEY"})
            assert spec.api_key not in plan.render_text(explain=True)
            assert spec.api_key not in repr(plan.to_dict())
        else:
            assert "ENGINEKIT_API_KEY" not in command.env
            assert command.secret_env == frozenset()
        assert command.wait_for_leader_port is (not spec.is_leader())
    assert plan.serves_http is spec.is_leader()


@settings(max_examples=100, deadline=None)
@given(shards())
def test_building_is_deterministic(spec: ShardSpec) -> None:
    assert ENGINE.commands(spec) == ENGINE.commands(spec)
