"""Properties of the TensorRT-LLM plugin over generated profiles and shard specs (Hypothesis)."""

from __future__ import annotations

import json

from enginekit.base.errors import EnginekitError
from enginekit.plugin import parse_version
from enginekit.spec.model import Adapter, Profile, ShardSpec
from enginekit.testing import engine_for
from enginekit_trtllm import TrtllmConfig, TrtllmEngine
from enginekit_trtllm.config import has_served_name
from hypothesis import event, given, settings
from hypothesis import strategies as st

TOKENS = [
    "--max_batch_size",
    "64",
    "--kv_cache_dtype=fp8",
    "--trust_remote_code",
    "--tp_size",
    "--config",
    "/tmp/x.yaml",
    "--middleware",
    "--no-telemetry",
    "--bogus",
    "--api_key=k",
    "--",
    "-1",
]
KEYS = st.one_of(st.just(""), st.text("0123456789abcdef", min_size=32, max_size=32))
PATHS = st.text(st.characters(blacklist_categories=("Cc", "Cs")), min_size=1, max_size=30)


@st.composite
def shards(draw: st.DrawFn) -> ShardSpec:
    tp = draw(st.integers(1, 8))
    names = draw(st.lists(st.from_regex(r"[a-z][a-z0-9-]{0,8}", fullmatch=True), max_size=3, unique=True))
    adapters = tuple(Adapter(name=n, path="/adapters/" + draw(PATHS)) for n in names)
    profile = Profile(
        name="p",
        engine="trtllm",
        tp=tp,
        nodes=draw(st.sampled_from([1, 1, 1, 2])),
        gpus_per_node=tp,
        model_path=draw(
            st.sampled_from(["/models/llama", "/models/llama", "nvidia/DeepSeek-R1-FP4", "/m/x.gguf"])
        ),
        served_model_name=draw(st.sampled_from(["", "llama"])),
        args=tuple(draw(st.one_of(st.just([]), st.lists(st.sampled_from(TOKENS), max_size=3)))),
        adapters=adapters,
        env=draw(st.sampled_from([{}, {}, {"NCCL_DEBUG": "INFO"}, {"TLLM_SPAWN_PROXY_PROCESS": "1"}])),
    )
    nnodes = profile.node_count
    return ShardSpec(
        profile=profile,
        nnodes=nnodes,
        leader_addr="10.0.0.1" if nnodes > 1 else "",
        leader_port=29500 if nnodes > 1 else 0,
        gpu_indices=tuple(range(tp)),
        http_port=draw(st.integers(1, 65535)),
        bind_addr=draw(st.sampled_from(["", "10.0.0.5", "fd00::5"])),
        api_key=draw(KEYS),
    )


@settings(max_examples=300, deadline=None)
@given(
    spec=shards(),
    allow=st.booleans(),
    version=st.sampled_from(["1.2.1", "1.3.0rc7", "1.4.0rc4"]),
    metrics=st.booleans(),
)
def test_a_typed_error_or_a_sound_command(spec: ShardSpec, allow: bool, version: str, metrics: bool) -> None:
    config = TrtllmConfig(
        python="/opt/trt/bin/python", allow_unauthenticated=allow, version=version, prometheus_metrics=metrics
    )
    engine = engine_for(TrtllmEngine(config), "trtllm")
    try:
        plan = engine.plan(spec)
    except EnginekitError as exc:
        message = str(exc)
    else:
        message = ""
    event("refused" if message else "built")
    if message:
        assert not spec.api_key or spec.api_key not in message
        return
    assert engine.plan(spec) == plan, "building is deterministic"
    [command] = plan.commands
    argv = command.argv()
    if spec.api_key:
        assert all(spec.api_key not in arg for arg in argv)
        assert all(spec.api_key not in value for value in command.env.values())
        assert allow
    assert argv[argv.index("--host") + 1] == spec.host()
    assert argv[argv.index("--port") + 1] == str(spec.http_port)
    assert spec.profile.node_count == 1
    body = command.env.get("ENGINEKIT_TRTLLM_OPTIONS")
    assert (body is not None) == (metrics or bool(spec.profile.adapters))
    if body is not None and "\\U" not in body:
        lora = json.loads(body).get("lora_config", {})
        assert lora.get("lora_dir", []) == [a.path for a in spec.profile.adapters]


@given(st.sampled_from(["1.2.1", "1.3.0rc6", "1.3.0rc7", "1.3.0", "1.3.0.post1", "1.4.0rc4", "1.4", "2"]))
def test_version_order(version: str) -> None:
    # The core's one release parser orders TensorRT-LLM's pre-releases as PEP 440 does.
    order = ["1.2.1", "1.3.0rc6", "1.3.0rc7", "1.3.0", "1.3.0.post1", "1.4.0rc4", "1.4", "2"]
    for other in order:
        assert (parse_version(version) < parse_version(other)) == (order.index(version) < order.index(other))
    assert has_served_name(TrtllmConfig(version=version)) == (order.index(version) >= 2)
    assert parse_version("1.3.0.dev5") < parse_version("1.3.0") == parse_version("1.3")
