"""The server's parts in process: faults, text, prefix cache and events, metrics, request parsing, settings."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import re

import msgpack
import pytest
from enginekit_sim.faults import Fault, parse_fault, parse_faults
from enginekit_sim.server import cli, openai, textgen
from enginekit_sim.server.core import EngineCore
from enginekit_sim.server.jobs import READY, Job
from enginekit_sim.server.kvcache import PrefixCache, block_hash
from enginekit_sim.server.metrics import ITL_BUCKETS, Histogram, Metrics, buckets_1_2_5
from enginekit_sim.server.publisher import binds, encode_event
from enginekit_sim.server.settings import KVEvents, StartupError, settings_from
from enginekit_sim.testing import parse_metrics, sample
from hypothesis import given
from hypothesis import strategies as st


def test_faults_parse_with_codes_amounts_and_ranks() -> None:
    assert parse_fault("exit-at-start") == Fault("exit-at-start", code=1)
    assert parse_fault("exit-at-start:3") == Fault("exit-at-start", code=3)
    assert parse_fault("crash-after-seconds:1.5:137@1") == Fault("crash-after-seconds", 1.5, 137, 1)
    assert parse_fault("crash-after-requests:4") == Fault("crash-after-requests", 4.0, 1)
    assert parse_fault("cpu-fallback@0").applies_to(0)
    assert not parse_fault("cpu-fallback@0").applies_to(1)
    assert parse_fault("hang-at-start").applies_to(7)
    with pytest.raises(ValueError, match="'hang-at-start:3': expected hang-at-start"):
        parse_fault("hang-at-start:3")
    with pytest.raises(ValueError, match="is not a whole number"):
        parse_fault("crash-after-requests:1.5")
    with pytest.raises(ValueError, match="must be 0 or more"):
        parse_fault("slow-health:-1")
    with pytest.raises(ValueError, match="; ") as both:
        parse_faults(["nope", "flap-health"])
    assert "unknown kind 'nope'" in str(both.value)
    assert "expected flap-health:SECONDS" in str(both.value)


@given(st.text(max_size=30))
def test_fault_parsing_fails_only_with_value_error(text: str) -> None:
    with contextlib.suppress(ValueError):
        parse_fault(text)


def test_text_is_deterministic_per_seed_and_prompt() -> None:
    def text(seed: int | None, prompt: str, sequence: int = 0, greedy: bool = False) -> str:
        return "".join(textgen.generate(textgen.source(seed, prompt, 0, sequence, greedy), 12))

    assert text(7, "hello") == text(7, "hello", sequence=99)
    assert text(7, "hello") != text(8, "hello")
    assert text(7, "hello") != text(7, "goodbye")
    assert text(None, "x", greedy=True) == text(None, "x", sequence=5, greedy=True)
    assert text(None, "x", sequence=1) != text(None, "x", sequence=2)
    assert len(textgen.generate("x", 40)) == 40
    assert len(textgen.generate("x", 70_000)) == 70_000, "longer than the passage: it wraps"
    assert textgen.generate("x", 3)[0][0].isupper() or textgen.generate("x", 3)[0] == "."
    pieces = textgen.generate("y", 50)
    assert textgen.piece_ids(pieces) == textgen.token_ids([p.strip() for p in pieces])
    assert textgen.tokenize("Hello, world!") == ["Hello", ",", "world", "!"]
    assert textgen.token_ids(["a", "a"]) == [textgen.token_id("a")] * 2


def cache_with_events(capacity: int = 8) -> tuple[PrefixCache, list[dict[str, object]]]:
    events: list[dict[str, object]] = []
    return PrefixCache(block_size=4, capacity=capacity, publish=events.extend), events


def test_prefix_cache_stores_hits_and_chains_blocks() -> None:
    cache, events = cache_with_events()
    prompt = list(range(10))  # two full blocks and a partial one
    first = cache.admit(prompt)
    assert first.hit_tokens == 0
    h1 = block_hash(None, [0, 1, 2, 3], None)
    h2 = block_hash(h1, [4, 5, 6, 7], None)
    assert events == [
        {
            "type": "BlockStored",
            "block_hashes": [h1, h2],
            "parent_block_hash": None,
            "token_ids": list(range(8)),
            "block_size": 4,
            "lora_id": None,
            "medium": "GPU",
            "lora_name": None,
            "extra_keys": [None, None],
            "group_idx": 0,
            "kv_cache_spec_kind": "full_attention",
        }
    ]
    assert cache.usage() == 2 / 8
    events.clear()
    cache.release(first, [*prompt, 10, 11, 12])  # the output completes a third block
    assert events[0]["block_hashes"] == [block_hash(h2, [8, 9, 10, 11], None)]
    assert events[0]["parent_block_hash"] == h2
    assert cache.usage() == 0
    events.clear()
    again = cache.admit([0, 1, 2, 3, 4, 5, 6, 7, 99, 99, 99, 99])
    assert again.hit_tokens == 8
    assert events[0]["parent_block_hash"] == h2
    lora = cache.admit([0, 1, 2, 3], lora="sql", lora_id=1)
    assert lora.hit_tokens == 0, "an adapter's blocks are not the base model's"
    assert events[-1]["lora_name"] == "sql"
    assert events[-1]["lora_id"] == 1
    assert events[-1]["extra_keys"] == [["sql"]], "vLLM hashes the adapter's name into each block"


def test_a_full_hit_is_capped_at_the_prompt_length_minus_one_as_vllm_caps_it() -> None:
    """vLLM's get_computed_blocks looks up at most prompt length - 1 tokens, in whole blocks:
    the last token is computed again, so a fully cached prompt of whole blocks hits one block
    fewer, and that block, computed again, is published as stored again."""
    cache, events = cache_with_events()
    prompt = list(range(8))  # two whole blocks
    cache.release(cache.admit(prompt), prompt)
    h1 = block_hash(None, [0, 1, 2, 3], None)
    h2 = block_hash(h1, [4, 5, 6, 7], None)
    events.clear()
    again = cache.admit(prompt)
    assert again.hit_tokens == 4
    assert again.hashes == [h1, h2]
    assert cache.usage() == 2 / 8, "the recomputed block is held as the cached one was"
    assert [(e["block_hashes"], e["parent_block_hash"], e["token_ids"]) for e in events] == [
        ([h2], h1, [4, 5, 6, 7])
    ]
    cache.release(again, prompt)
    events.clear()
    assert cache.admit([*prompt, 8]).hit_tokens == 8, "one token past the blocks: every block hits"
    assert events == []
    assert cache.admit([0, 1, 2, 3]).hit_tokens == 0, "a one-block prompt never hits"
    assert [e["block_hashes"] for e in events] == [[h1]]


def test_the_prefix_cache_hits_counter_counts_the_capped_hit() -> None:
    settings = settings_from(serve_args("--ttft-ms", "0", "--itl-ms", "0", "--block-size", "4"), {})
    engine = EngineCore(settings)
    engine.state = READY
    for _ in range(2):
        job = openai.parse(
            {"prompt": list(range(8)), "max_tokens": 1}, chat=False, names=("m",), adapters={}, max_len=64
        ).job
        engine.plan(job)
        assert engine.complete_now(job)
    assert engine.metrics.cache_queries.value == 16
    assert engine.metrics.cache_hits.value == 4


def test_prefix_cache_evicts_least_recently_used_free_blocks_only() -> None:
    cache, events = cache_with_events(capacity=2)
    held = cache.admit(list(range(8)))
    assert cache.usage() == 1.0
    events.clear()
    blocked = cache.admit([9] * 4)
    assert blocked.hashes == [], "blocks in use are never evicted"
    assert events == []
    cache.release(held, list(range(8)))
    cache.admit([9] * 4)
    # Freed tail first, as vLLM frees them: the chain's last block is the first evicted.
    root = block_hash(None, [0, 1, 2, 3], None)
    tail = block_hash(root, [4, 5, 6, 7], None)
    assert events[0] == {"type": "BlockRemoved", "block_hashes": [tail], "medium": "GPU", "group_idx": 0}
    assert cache.admit([0, 1, 2, 3, 4]).hit_tokens == 4, "the root, freed last, is still cached"


def test_a_prefix_cache_reset_is_refused_while_blocks_are_held_and_announced_with_the_next_batch() -> None:
    cache, events = cache_with_events(capacity=4)
    held = cache.admit(list(range(8)))
    events.clear()
    assert cache.clear() is False, "vLLM refuses a reset while running requests hold blocks"
    assert cache.usage() == 0.5
    assert events == []
    cache.release(held, list(range(8)))
    assert cache.clear() is True
    assert cache.usage() == 0
    assert events == [], "published with the next engine step, not at once"
    cache.admit([1, 2])  # stores no block: the reset goes out alone
    assert events == [{"type": "AllBlocksCleared"}]
    events.clear()
    assert cache.clear() is True
    again = cache.admit(list(range(4)))
    assert again.hit_tokens == 0, "nothing survives a reset"
    assert [event["type"] for event in events] == ["AllBlocksCleared", "BlockStored"]


def test_event_wire_formats_follow_vllm() -> None:
    stored = {
        "type": "BlockStored",
        "block_hashes": [1],
        "parent_block_hash": None,
        "token_ids": [1, 2],
        "block_size": 2,
        "lora_id": None,
        "medium": "GPU",
        "lora_name": None,
    }
    assert encode_event(stored, "map") is stored
    assert encode_event(stored, "array") == ["BlockStored", [1], None, [1, 2], 2, None, "GPU", None]
    removed = {"type": "BlockRemoved", "block_hashes": [1], "medium": "GPU"}
    assert encode_event(removed, "array") == ["BlockRemoved", [1], "GPU"]
    assert encode_event({"type": "AllBlocksCleared"}, "array") == ["AllBlocksCleared"]
    assert binds("tcp://*:5557")
    assert binds("ipc:///tmp/x")
    assert not binds("tcp://127.0.0.1:5557")
    big = block_hash(None, list(range(16)), None)
    assert msgpack.unpackb(msgpack.packb([big])) == [big], "64-bit unsigned hashes survive msgpack"


def test_metrics_render_vllm_names_and_parse() -> None:
    metrics = Metrics('m"x', 4096, lambda: 3)
    metrics.prompt_tokens.inc(5)
    metrics.ttft.observe(0.03)
    metrics.itl.observe(0.02, 4)
    metrics.success["length"] += 1
    parsed = parse_metrics(metrics.render())
    assert sample(parsed, "vllm:num_requests_running") == 3
    assert sample(parsed, "vllm:prompt_tokens_total") == 5
    assert sample(parsed, "vllm:time_to_first_token_seconds_bucket", le="0.04") == 1
    assert sample(parsed, "vllm:time_to_first_token_seconds_bucket", le="0.02") == 0
    assert sample(parsed, "vllm:inter_token_latency_seconds_count") == 4
    assert sample(parsed, "vllm:request_success_total", finished_reason="length") == 1
    assert 'model_name="m\\"x"' in metrics.render()
    assert buckets_1_2_5(100) == (1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0)


@given(
    st.lists(
        st.tuples(
            # Bounds themselves included: a value on a bound counts in that bound's bucket.
            st.one_of(st.sampled_from(ITL_BUCKETS), st.floats(0, 200, allow_nan=False)),
            st.integers(1, 5),
        ),
        max_size=1500,
    )
)
def test_a_histogram_counts_in_batches_what_it_would_count_one_by_one(
    observations: list[tuple[float, int]],
) -> None:
    histogram = Histogram("h", "h", ITL_BUCKETS)
    expected = [0] * (len(ITL_BUCKETS) + 1)
    for value, count in observations:
        histogram.observe(value, count)
        expected[sum(bound < value for bound in ITL_BUCKETS)] += count
    # Read twice, with more observed between: nothing counted twice, nothing lost.
    assert histogram.counts == expected
    histogram.observe(0.0)
    expected[0] += 1
    assert histogram.counts == expected
    assert histogram.sum == pytest.approx(sum(value * count for value, count in observations))
    rendered = parse_metrics(histogram.render('model_name="m"'))
    assert sample(rendered, "h_count") == sum(expected)
    assert sample(rendered, "h_bucket", le="+Inf") == sum(expected)


def parse(body: object, chat: bool = False) -> openai.Request:
    return openai.parse(body, chat=chat, names=("m",), adapters={"sql": "/a"}, max_len=64)


@pytest.mark.parametrize(
    ("body", "status", "param", "message"),
    [
        ([], 400, None, "must be a JSON object"),
        ({"model": "x", "prompt": "a"}, 404, "model", "The model `x` does not exist."),
        ({"prompt": 3}, 400, "prompt", "'prompt' must be a string"),
        ({"prompt": ["a", "b"]}, 400, "prompt", "one prompt per request"),
        ({"prompt": "a", "max_tokens": 0}, 400, "max_tokens", "at least 1"),
        ({"prompt": "a", "max_tokens": "3"}, 400, "max_tokens", "'max_tokens' must be int"),
        ({"prompt": "a", "max_tokens": True}, 400, "max_tokens", "'max_tokens' must be int"),
        ({"prompt": "a", "max_tokens": 64}, 400, "max_tokens", "maximum context length is 64 tokens"),
        ({"prompt": "a", "n": 0}, 400, "n", "n must be in 1..128"),
        ({"prompt": "a", "temperature": 3}, 400, "temperature", "temperature must be in 0..2"),
        ({"prompt": "a", "stream": "yes"}, 400, "stream", "'stream' must be bool"),
        ({"prompt": "a", "stop": [1]}, 400, "stop", "'stop' must be a string or a list of strings"),
        ({"prompt": "a", "stop": 1}, 400, "stop", "'stop' must be str or list"),
        ({"prompt": "a", "top_p": "1"}, 400, "top_p", "'top_p' must be int or float"),
    ],
)
def test_bad_requests_get_openai_errors(body: object, status: int, param: str | None, message: str) -> None:
    with pytest.raises(openai.ApiError) as error:
        parse(body)
    assert error.value.status == status
    shape = error.value.body()["error"]
    assert set(shape) == {"message", "type", "param", "code"}
    assert shape["param"] == param
    assert shape["code"] == status
    assert message in shape["message"]


def test_requests_become_jobs() -> None:
    # Sampling parameters the sim does not act on are taken when their types are right.
    assert parse({"prompt": "a", "stop": ["\n"], "top_p": 0.5, "presence_penalty": 0, "user": "u"}).job.n == 1
    request = parse({"model": "sql", "prompt": [5, 6, 7], "max_tokens": 3, "seed": 1, "temperature": 0})
    assert request.job.adapter == "sql"
    assert request.job.greedy
    assert request.job.finish_reason == "length"
    assert request.job.prompt_tokens == ["5", "6", "7"]
    assert request.job.token_ids() == [5, 6, 7], "token ids are cached and published as given"
    assert parse({"prompt": "5 6 7"}).job.token_ids() == textgen.token_ids(["5", "6", "7"])
    chat = parse({"messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]}, chat=True)
    assert chat.model == "m"
    assert chat.job.max_tokens == openai.DEFAULT_MAX_TOKENS
    assert chat.job.finish_reason == "stop"
    with pytest.raises(openai.ApiError, match="messages"):
        parse({"messages": []}, chat=True)


def serve_args(*extra: str) -> argparse.Namespace:
    return cli.build_parser().parse_args(["serve", "/m", *extra])


def test_settings_refuse_what_a_real_engine_refuses() -> None:
    with pytest.raises(StartupError) as error:
        settings_from(
            serve_args("-tp", "4", "--lora-modules", "a=/x", "--kv-events-config", "[]", "-n", "3"),
            {"CUDA_VISIBLE_DEVICES": "0"},
        )
    text = str(error.value)
    assert "--nnodes 3 must divide the world size TP x PP = 4" in text
    assert "LoRA is not enabled" in text
    assert "--kv-events-config: not a JSON object" in text
    with pytest.raises(
        StartupError, match=r"World size per node \(4\) is larger than the number of available GPUs"
    ):
        settings_from(serve_args("-tp", "4"), {"CUDA_VISIBLE_DEVICES": "0,1"})
    settings = settings_from(
        serve_args(
            "--fault", "cpu-fallback@1", "-n", "2", "-r", "1", "-tp", "2", "--served-model-name", "a", "b"
        ),
        {"CUDA_VISIBLE_DEVICES": "3", "ENGINEKIT_API_KEY": "Zq9-secret"},
    )
    assert settings.devices == ()
    assert settings.api_key == "Zq9-secret"
    assert settings.names == ("a", "b")
    assert "Zq9-secret" not in repr(settings)


@pytest.mark.parametrize(
    ("fields", "problem"),
    [
        ({"replay_endpoint": 5}, "replay_endpoint must be a ZMQ endpoint (a string) or null"),
        ({"replay_endpoint": ""}, "replay_endpoint must be a ZMQ endpoint (a string) or null"),
        ({"buffer_steps": -1}, "buffer_steps must be a whole number, 0 or more, got -1"),
        ({"buffer_steps": "10"}, "buffer_steps must be a whole number, 0 or more, got '10'"),
        ({"hwm": True}, "hwm must be a whole number, 0 or more, got True"),
        ({"max_queue_size": 1.5}, "max_queue_size must be a whole number, 0 or more, got 1.5"),
    ],
)
def test_kv_events_config_fields_are_checked_at_start(fields: dict[str, object], problem: str) -> None:
    config = {"enable_kv_cache_events": True, "endpoint": "tcp://*:5557", **fields}
    with pytest.raises(StartupError, match=re.escape(problem)):
        settings_from(serve_args("--kv-events-config", json.dumps(config)), {})


def test_kv_events_config_takes_vllm_s_replay_fields_and_defaults() -> None:
    config = {"enable_kv_cache_events": True, "replay_endpoint": "tcp://*:5558", "buffer_steps": 0, "hwm": 7}
    events = settings_from(serve_args("--kv-events-config", json.dumps(config)), {}).kv_events
    assert events == KVEvents(endpoint="tcp://*:5557", replay_endpoint="tcp://*:5558", buffer_steps=0, hwm=7)
    assert KVEvents(endpoint="") == KVEvents(
        endpoint="", replay_endpoint=None, buffer_steps=10_000, hwm=100_000, max_queue_size=100_000
    ), "vLLM 0.32's KVEventsConfig defaults"


@pytest.mark.parametrize(
    ("value", "served"), [(None, False), ("0", False), ("1", True), (" 2 ", True), ("-1", True)]
)
def test_vllm_server_dev_mode_is_read_as_vllm_reads_it(value: str | None, served: bool) -> None:
    environ = {} if value is None else {"VLLM_SERVER_DEV_MODE": value}
    assert settings_from(serve_args(), environ).dev_mode is served


@pytest.mark.parametrize("value", ["", "true", "1.0"])
def test_a_vllm_server_dev_mode_int_refuses_stops_the_start_as_it_stops_vllm(value: str) -> None:
    with pytest.raises(StartupError, match="VLLM_SERVER_DEV_MODE must be an integer"):
        settings_from(serve_args(), {"VLLM_SERVER_DEV_MODE": value})


GIB = 1024**3


@pytest.mark.parametrize(
    ("args", "blocks", "note"),
    [
        ((), 2048, ""),
        (("--num-gpu-blocks-override", "64"), 64, ""),
        # 4 GiB over 16 tokens x 128 KiB (the default bytes per token): 2048 blocks, exactly.
        (
            ("--kv-cache-memory-bytes", str(4 * GIB)),
            2048,
            "KV cache: 4294967296 bytes hold 2048 blocks of 16 tokens x 131072 bytes (2097152 bytes each)",
        ),
        (
            ("--kv-cache-memory-bytes", "100000", "--block-size", "32", "--kv-bytes-per-token", "1000"),
            3,
            "KV cache: 100000 bytes hold 3 blocks of 32 tokens x 1000 bytes (32000 bytes each); "
            "rounded down, 4000 bytes left over",
        ),
        (
            ("--kv-cache-memory-bytes", "1000"),
            1,
            "KV cache: 1000 bytes are less than one block of 16 tokens x 131072 bytes (2097152 bytes); "
            "rounded up to 1 block",
        ),
    ],
)
def test_the_kv_cache_capacity_is_in_blocks_given_or_worked_out_from_bytes(
    args: tuple[str, ...], blocks: int, note: str
) -> None:
    settings = settings_from(serve_args(*args), {})
    assert (settings.num_blocks, settings.kv_cache_note) == (blocks, note)
    assert EngineCore(settings).cache.capacity == blocks


BOTH = (
    "--kv-cache-memory-bytes and --num-gpu-blocks-override both size the KV cache; give one: the "
    "memory (its blocks worked out with --block-size and --kv-bytes-per-token) or the number of blocks"
)


def test_memory_and_blocks_together_are_refused_at_start(capsys: pytest.CaptureFixture[str]) -> None:
    both = ("--kv-cache-memory-bytes", str(GIB), "--num-gpu-blocks-override", "64")
    with pytest.raises(StartupError) as error:
        settings_from(serve_args(*both), {})
    assert str(error.value) == BOTH
    # Reported with every other problem at once, and the process exits 1 before listening.
    assert cli.main(["serve", "/m", *both, "--port", "0", "-n", "0"], {}) == 1
    assert capsys.readouterr().err == (f"enginekit-sim: error: --nnodes must be at least 1, got 0; {BOTH}\n")


def test_devices_lists_what_the_process_was_given(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["devices"], {"CUDA_VISIBLE_DEVICES": "0,MIG-abc"}) == 0
    assert capsys.readouterr().out == "GPU 0\nGPU MIG-abc\n"
    for environ in ({}, {"CUDA_VISIBLE_DEVICES": ""}, {"CUDA_VISIBLE_DEVICES": "-1"}):
        cli.main(["devices"], environ)
        assert "no GPU visible" in capsys.readouterr().out
    cli.main(["devices", "--fault", "cpu-fallback"], {"CUDA_VISIBLE_DEVICES": "0"})
    assert "no GPU visible" in capsys.readouterr().out
    cli.main(["devices"], {"CUDA_VISIBLE_DEVICES": "0", "ENGINEKIT_SIM_CPU_FALLBACK": "1"})
    assert "no GPU visible" in capsys.readouterr().out
    assert cli.main(["serve"]) == 2


def test_queue_and_schedule_in_process() -> None:
    async def scenario() -> tuple[list[float], float, float]:
        settings = settings_from(serve_args("--max-num-seqs", "1", "--ttft-ms", "20", "--itl-ms", "10"), {})
        engine = EngineCore(settings)
        engine.state = READY
        waits: list[float] = []

        async def one() -> None:
            job = Job(prompt="p", prompt_tokens=["p"], max_tokens=3)
            engine.plan(job)
            async for _ in engine.run(job):
                waits.append(engine.metrics.waiting_count)

        loop = asyncio.get_running_loop()
        began = loop.time()
        await asyncio.gather(one(), one())
        return waits, loop.time() - began, engine.metrics.queue.sum

    waits, elapsed, queued = asyncio.run(scenario())
    assert max(waits) == 1, "the second request waited while the first ran"
    assert 0.08 <= elapsed < 0.5, "two requests of 20 + 2 x 10 ms ran one after the other"
    assert queued >= 0.035


def test_chunks_are_valid_json() -> None:
    request = parse({"prompt": "a", "stream": True, "stream_options": {"include_usage": True}})
    chunks = openai.Chunks(request, "cmpl-1", 7)
    token = json.loads(chunks.token(0, 'say "hi"\n', "length")[6:])
    assert token["choices"][0] == {
        "index": 0,
        "text": 'say "hi"\n',
        "logprobs": None,
        "finish_reason": "length",
    }
    assert json.loads(chunks.usage(2)[6:])["usage"]["completion_tokens"] == 2
    chat = openai.Chunks(parse({"messages": [{"role": "user"}], "stream": True}, chat=True), "c", 1)
    assert json.loads(chat.role(0)[6:])["choices"][0]["delta"] == {"role": "assistant", "content": ""}
    assert json.loads(chat.token(0, "x")[6:])["choices"][0]["delta"] == {"content": "x"}


def test_a_waiter_that_gives_up_leaves_its_place_to_the_next() -> None:
    async def scenario() -> list[str]:
        settings = settings_from(serve_args("--max-num-seqs", "1", "--ttft-ms", "30", "--itl-ms", "0"), {})
        engine = EngineCore(settings)
        engine.state = READY
        done: list[str] = []

        async def one(name: str) -> None:
            job = Job(prompt=name, prompt_tokens=[name], max_tokens=1)
            engine.plan(job)
            await engine.complete(job)
            done.append(name)

        first = asyncio.create_task(one("first"))
        await asyncio.sleep(0.005)
        quitter = asyncio.create_task(one("quitter"))
        last = asyncio.create_task(one("last"))
        await asyncio.sleep(0.005)
        assert engine.metrics.waiting_count == 2
        quitter.cancel()
        await asyncio.wait_for(asyncio.gather(first, last), 5)
        assert engine.running == 0
        assert engine.metrics.waiting_count == 0
        return done

    assert asyncio.run(scenario()) == ["first", "last"]


def test_tokenizer_splits_text_without_spaces_per_character() -> None:
    assert textgen.tokenize("héllo 你好!") == ["h", "é", "llo", "你", "好", "!"]
    assert textgen.token_ids(["\ud800"]) == [textgen.token_id("\ud800")], "lone surrogates do not crash"


def test_a_peer_whose_connection_is_reset_has_gone_as_one_that_closed_it() -> None:
    from enginekit_sim.server.cluster import _listen

    async def gone(end: BaseException | None) -> str:
        reader = asyncio.StreamReader()
        if end is None:
            reader.feed_eof()
        else:
            reader.set_exception(end)
        return await _listen(reader, 1.0, lambda: None)

    assert asyncio.run(gone(None)) == "connection closed"
    assert (
        asyncio.run(gone(ConnectionResetError(104, "Connection reset by peer"))) == "connection closed: reset"
    )
