"""The sim against samples recorded from a real vLLM 0.32.0 (tests/data/vllm-0.32.0/README.md).

The recordings are the reference: each check compares the sim's answer or event with what
the real server sent, field by field, so a drift on either side fails here.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from enginekit.spec.model import Command, Profile, ShardSpec
from enginekit_sim.server import cli
from enginekit_sim.server.core import EngineCore
from enginekit_sim.server.kvcache import PrefixCache
from enginekit_sim.server.metrics import Metrics
from enginekit_sim.server.publisher import Publisher
from enginekit_sim.server.settings import KVEvents, settings_from
from enginekit_sim.testing import KVSubscriber, Proc, poll, request

DATA = Path(__file__).parent / "data" / "vllm-0.32.0"
KEY = "recorded-key-0123456789abcdef"
Start = Callable[..., Proc]
Render = Callable[..., Command]
MakeShard = Callable[..., ShardSpec]

#: The metric families the sim imitates, as a scraper reads them (sample names).
IMITATED = (
    "vllm:num_requests_running",
    "vllm:num_requests_waiting",
    "vllm:kv_cache_usage_perc",
    "vllm:prompt_tokens_total",
    "vllm:generation_tokens_total",
    "vllm:prefix_cache_queries_total",
    "vllm:prefix_cache_hits_total",
    "vllm:request_success_total",
    "vllm:time_to_first_token_seconds",
    "vllm:inter_token_latency_seconds",
    "vllm:e2e_request_latency_seconds",
    "vllm:request_queue_time_seconds",
    "vllm:request_prompt_tokens",
    "vllm:request_generation_tokens",
)


def unpackb(data: bytes) -> Any:
    # msgpack ships no type information; its one function used here is typed by hand.
    unpack: Callable[..., Any] = importlib.import_module("msgpack").unpackb
    return unpack(data, raw=False)


def recorded_batch() -> list[Any]:
    """The real ``KVEventBatch``, decoded from the bytes as received."""
    batch = unpackb((DATA / "kv_batch_0.bin").read_bytes())
    assert isinstance(batch, list)
    return batch


def shape(value: Any) -> Any:
    """A value's structure: field names in order and types, down through lists and maps."""
    if isinstance(value, dict):
        return [(k, shape(v)) for k, v in value.items()]
    if isinstance(value, list):
        return ["list", *sorted({repr(shape(v)) for v in value})]
    return type(value).__name__


def test_recorded_batch_decodes_as_the_json_beside_it() -> None:
    decoded = json.loads((DATA / "kv_batches.json").read_text())
    assert recorded_batch() == decoded[0]["batch"]


def test_sim_block_stored_has_the_recorded_structure() -> None:
    real_ts, real_events, real_rank = recorded_batch()
    real = real_events[0]
    block = real["block_size"]
    tokens = real["token_ids"]
    events: list[dict[str, Any]] = []
    cache = PrefixCache(block_size=block, capacity=64, publish=events.extend)
    # The real prompt had 81 tokens: two full blocks stored, the partial third not.
    cache.admit([*tokens, *range(17)])
    assert len(events) == 1
    # Through the wire as the publisher packs it, so msgpack's types are compared.
    pack: Callable[..., bytes] = importlib.import_module("msgpack").packb
    ts, sim_events, rank = unpackb(pack([1.0, events, 0], use_bin_type=True))
    assert (type(ts), type(rank)) == (type(real_ts), type(real_rank))
    sim = sim_events[0]
    assert list(sim) == list(real), "the same fields in the same order"
    assert shape(sim) == shape(real)
    assert sim["token_ids"] == tokens
    assert sim["extra_keys"] == real["extra_keys"] == [None, None]
    assert (sim["group_idx"], sim["kv_cache_spec_kind"]) == (real["group_idx"], real["kv_cache_spec_kind"])


def test_a_prompt_shorter_than_a_block_publishes_nothing() -> None:
    events: list[dict[str, Any]] = []
    cache = PrefixCache(block_size=32, capacity=64, publish=events.extend)
    cache.admit(list(range(31)))
    assert events == []
    cache.admit(list(range(32)))
    assert len(events) == 1


def test_sim_metric_names_match_the_recorded_ones() -> None:
    def names(text: str) -> set[str]:
        return {line.split("{")[0].split()[0] for line in text.splitlines() if line and line[0] != "#"}

    def typed(text: str) -> set[str]:
        return {line.split()[2] for line in text.splitlines() if line.startswith("# TYPE ")}

    real_text = (DATA / "metrics.txt").read_text()
    sim_text = Metrics("tiny", 256, lambda: 0).render()
    for family in IMITATED:
        # A family's samples: itself, or a histogram's three series.
        series = {family, *(family + suffix for suffix in ("_bucket", "_sum", "_count"))}
        in_sim, in_real = names(sim_text) & series, names(real_text) & series
        assert in_sim, family
        assert in_sim == in_real, family
        assert family in typed(real_text), family
        assert family in typed(sim_text), family


def test_endpoints_answer_as_recorded_without_the_key(
    start: Start, render: Render, make_shard: MakeShard
) -> None:
    recorded = json.loads((DATA / "endpoints.json").read_text())
    subscriber = KVSubscriber()
    try:
        profile = Profile(name="p", engine="sim", model_path="/m", served_model_name="tiny", kv_events=True)
        spec = make_shard(profile, api_key=KEY, kv_events_port=subscriber.port, kv_events_mode="connect")
        start(render(spec, block_size=4))
        url = f"http://{spec.bind_addr}:{spec.http_port}"
        poll(url + "/health", lambda s: s == 200, timeout=60)
        for name in ("ping_get", "ping_post", "load", "kv_event_sources"):
            real = recorded[name]
            body = b"" if real["method"] == "POST" else None
            status, raw = request(url + real["path"], body)
            assert status == real["status"] == 200, name
            if not real["body"]:
                assert raw == b"", name
                continue
            sim_value, real_value = json.loads(raw), json.loads(real["body"])
            assert shape(sim_value) == shape(real_value), name
        sources = json.loads(request(url + "/kv_event_sources")[1])
        assert sources["0"]["endpoint"] == f"tcp://127.0.0.1:{subscriber.port}"
        # Still guarded where vLLM guards: the key is needed under /v1.
        assert request(url + "/v1/models")[0] == 401
    finally:
        subscriber.close()


def test_publisher_sends_the_recorded_batch_shape() -> None:
    subscriber = KVSubscriber()
    publisher = Publisher(KVEvents(endpoint=f"tcp://127.0.0.1:{subscriber.port}"))
    try:
        real = recorded_batch()
        events: list[dict[str, Any]] = []
        PrefixCache(block_size=32, capacity=8, publish=events.extend).admit(real[1][0]["token_ids"])
        got = None
        # The PUB socket drops what it sends before the subscription arrives: resend, bounded.
        for _ in range(50):
            publisher._pending = list(events)
            publisher.flush()
            got = subscriber.receive(timeout=0.1)
            if got is not None:
                break
        assert got is not None
        assert shape(got[2]) == shape(real)
    finally:
        publisher.close()
        subscriber.close()


def test_adapter_events_match_the_recorded_ones() -> None:
    real = [e for batch in json.loads((DATA / "kv_lora_batches.json").read_text()) for e in batch["batch"][1]]
    # The adapters as the recording listed them: --lora-modules sql=... chat=...
    args = cli.build_parser().parse_args(
        ["serve", "/m", "--enable-lora", "--lora-modules", "sql=/a/sql", "chat=/a/chat", "--block-size", "32"]
    )
    engine = EngineCore(settings_from(args, {}))
    assert engine._lora_ids == {e["lora_name"]: e["lora_id"] for e in real} == {"sql": 1, "chat": 2}
    for recorded in real:
        events: list[dict[str, Any]] = []
        cache = PrefixCache(block_size=32, capacity=64, publish=events.extend)
        name = recorded["lora_name"]
        cache.admit(recorded["token_ids"], name, engine._lora_ids[name])
        pack: Callable[..., bytes] = importlib.import_module("msgpack").packb
        (sim,) = unpackb(pack(events, use_bin_type=True))
        assert list(sim) == list(recorded)
        assert shape(sim) == shape(recorded)
        assert sim["extra_keys"] == recorded["extra_keys"] == [[name], [name]]
        assert (sim["lora_id"], sim["lora_name"]) == (recorded["lora_id"], name)


def test_reset_prefix_cache_answers_as_recorded_in_vllm_s_development_mode_only(
    start: Start, render: Render, make_shard: MakeShard
) -> None:
    """The recording ran vLLM with VLLM_SERVER_DEV_MODE=1 (README.md here): vLLM 0.32 registers
    /reset_prefix_cache only then (vllm/entrypoints/launchers/api_server/routers.py)."""
    real = json.loads((DATA / "lora_run.json").read_text())["reset_prefix_cache"]
    for env, status in (
        ({"VLLM_SERVER_DEV_MODE": "1"}, real["status"]),
        ({}, 404),
        ({"VLLM_SERVER_DEV_MODE": "0"}, 404),
    ):
        spec = make_shard(Profile(name="p", engine="sim", model_path="/m", served_model_name="tiny"))
        start(render(spec), env)
        url = f"http://{spec.bind_addr}:{spec.http_port}"
        poll(url + "/health", lambda s: s == 200, timeout=60)
        answer, raw = request(url + real["path"], b"")
        assert answer == status, env
        if status == 200:
            assert json.loads(raw) == json.loads(real["body"])


def recorded_eviction_batches() -> list[list[Any]]:
    """The real ``KVEventBatch``es of the eviction run, decoded from the bytes as received, in order."""
    paths = sorted(DATA.glob("kv_evict_batch_*.bin"), key=lambda p: int(p.stem.rsplit("_", 1)[1]))
    return [unpackb(p.read_bytes()) for p in paths]


def kinds(events: list[dict[str, Any]]) -> list[str]:
    return [e["type"] for e in events]


def eviction_prompt(index: int, length: int) -> list[int]:
    """The token ids record_evictions.py.txt sent as its ``index``-th distinct prompt."""
    return [10 + (index * 101 + j * 7) % 990 for j in range(length)]


def test_recorded_eviction_batches_decode_as_the_json_beside_them() -> None:
    decoded = json.loads((DATA / "kv_evict_batches.json").read_text())
    assert recorded_eviction_batches() == [d["batch"] for d in decoded]
    assert [d["seq"] for d in decoded] == list(range(len(decoded)))


def test_sim_block_removed_has_the_recorded_structure() -> None:
    real = recorded_eviction_batches()
    run = json.loads((DATA / "evict_run.json").read_text())
    longs = [s for s in run["steps"] if s["step"].startswith("long_") and "after" not in s["step"]]
    # vLLM's 10 blocks, less its null block and the partial fourth block a running 100-token
    # prompt holds: 8 for full blocks, so the sim evicts where vLLM did.
    assert run["num_gpu_blocks_override"] == 10
    batches: list[list[dict[str, Any]]] = []
    cache = PrefixCache(block_size=32, capacity=8, publish=batches.append)
    pack: Callable[..., bytes] = importlib.import_module("msgpack").packb
    for index, step in enumerate(longs):
        (batch_index,) = step["batches"]
        real_events = real[batch_index][1]
        stored = real_events[-1]
        assert step["prompt_tokens"] == 100
        tokens = eviction_prompt(index, step["prompt_tokens"])
        assert tokens[:96] == stored["token_ids"], "three full blocks stored, the partial fourth not"
        before = len(batches)
        cache.release(cache.admit(tokens), tokens)
        (events,) = batches[before:]
        # Through the wire as the publisher packs it, so msgpack's types are compared.
        sim_events = unpackb(pack(events, use_bin_type=True))
        assert kinds(sim_events) == kinds(real_events), step["step"]
        assert shape(sim_events) == shape(real_events), step["step"]
        for sim, recorded in zip(sim_events, real_events, strict=True):
            assert list(sim) == list(recorded), "the same fields in the same order"
            if recorded["type"] == "BlockRemoved":
                assert len(sim["block_hashes"]) == len(recorded["block_hashes"]) == 1, "one event per block"
                assert (sim["medium"], sim["group_idx"]) == (recorded["medium"], recorded["group_idx"])
    assert sum(kinds(b[1]).count("BlockRemoved") for b in real) == 7


def test_sim_all_blocks_cleared_has_the_recorded_structure() -> None:
    real = recorded_eviction_batches()
    run = {s["step"]: s for s in json.loads((DATA / "evict_run.json").read_text())["steps"]}
    # vLLM answered the reset at once but published nothing while idle: the event went out
    # with the next request's step, first in its batch.
    assert run["reset_1"]["batches"] == run["reset_2"]["batches"] == []
    assert json.loads(run["reset_1"]["body"]) == {"success": True}
    alone = real[run["short_after_reset_1"]["batches"][0]][1]
    with_stored = real[run["long_0_after_reset_2"]["batches"][0]][1]
    assert kinds(alone) == ["AllBlocksCleared"]
    assert kinds(with_stored) == ["AllBlocksCleared", "BlockStored"]
    # The same prompt is stored again under the hashes it had before the reset.
    assert with_stored[1]["block_hashes"] == real[run["long_0"]["batches"][0]][1][-1]["block_hashes"]

    # The sim, through the same steps: a reset, a short request, a reset, the long prompt.
    batches: list[list[dict[str, Any]]] = []
    cache = PrefixCache(block_size=32, capacity=8, publish=batches.append)
    tokens, short = with_stored[1]["token_ids"], list(range(10))
    cache.release(cache.admit(tokens), tokens)
    assert cache.clear() is True
    assert len(batches) == 1, "nothing published while idle"
    cache.release(cache.admit(short), short)
    assert cache.clear() is True
    cache.release(cache.admit(tokens), tokens)
    first, cleared, again = batches
    pack: Callable[..., bytes] = importlib.import_module("msgpack").packb
    sim = unpackb(pack(cleared, use_bin_type=True))
    assert sim == alone == [{"type": "AllBlocksCleared"}]
    assert shape(sim) == shape(alone)
    assert kinds(again) == kinds(with_stored)
    assert again[1]["block_hashes"] == first[0]["block_hashes"]
