"""End to end: the rendered commands run as real processes on loopback, seen as a supervisor sees them."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from enginekit.spec.model import Adapter, Command, Profile, ShardSpec
from enginekit.testing import engine_for
from enginekit_sim.plugin import SimEngine
from enginekit_sim.plugin.config import SimConfig
from enginekit_sim.testing import (
    KVSubscriber,
    Proc,
    free_port,
    parse_metrics,
    poll,
    request,
    sample,
    stream,
    wait_port,
)

KEY = "e2e-key-6f1d0c2b9a8e7d6c"
Start = Callable[..., Proc]
Render = Callable[..., Command]
MakeShard = Callable[..., ShardSpec]


def base(spec: ShardSpec) -> str:
    return f"http://{spec.bind_addr}:{spec.http_port}"


def completion(url: str, key: str | None = KEY, **body: Any) -> tuple[int, Any]:
    status, raw = request(
        url + "/v1/completions", {"model": "tiny", "prompt": "Hello there", **body}, key=key
    )
    return status, json.loads(raw) if raw else None


def test_single_node_health_auth_completions_streaming_metrics(
    start: Start, render: Render, make_shard: MakeShard
) -> None:
    profile = Profile(
        name="p",
        engine="sim",
        model_path="/models/tiny",
        served_model_name="tiny",
        tp=2,
        adapters=(Adapter(name="sql", path="/adapters/sql"),),
    )
    spec = make_shard(profile, api_key=KEY, gpu_indices=(0, 1), threads=2)
    proc = start(render(spec))
    url = base(spec)
    seen: list[int] = []
    poll(url + "/health", lambda s: s == 200, timeout=15, seen=seen)
    assert 503 in seen, seen
    assert seen.index(503) < seen.index(200), seen

    status, body = request(url + "/v1/models")
    assert status == 401
    assert json.loads(body)["error"]["code"] == 401
    assert request(url + "/v1/models", key="wrong")[0] == 401
    status, body = request(url + "/v1/models", key=KEY)
    models = {m["id"]: m for m in json.loads(body)["data"]}
    assert models["tiny"]["parent"] is None
    assert models["tiny"]["root"] == "/models/tiny"
    assert models["sql"]["parent"] == "tiny"
    assert models["sql"]["root"] == "/adapters/sql"

    assert completion(url, key=None)[0] == 401
    status, body = completion(url, max_tokens=7, seed=42)
    assert status == 200, body
    assert body["object"] == "text_completion"
    assert body["model"] == "tiny"
    assert body["usage"] == {"prompt_tokens": 2, "completion_tokens": 7, "total_tokens": 9}
    assert body["choices"][0]["finish_reason"] == "length"
    assert completion(url, max_tokens=7, seed=42)[1]["choices"][0]["text"] == body["choices"][0]["text"]
    assert completion(url, max_tokens=7, seed=43)[1]["choices"][0]["text"] != body["choices"][0]["text"]
    status, error = completion(url, model="nope")
    assert status == 404
    assert error["error"]["type"] == "NotFoundError"
    status, error = completion(url, max_tokens=-1)
    assert status == 400
    assert error["error"]["param"] == "max_tokens"
    assert request(url + "/v1/completions", b"{not json", key=KEY)[0] == 400
    status, body = request(url + "/v1/nothing-here", key=KEY)
    assert status == 404
    assert json.loads(body)["error"]["type"] == "NotFoundError"
    assert request(url + "/health", b"{}")[0] == 405

    chunks, done = stream(
        url + "/v1/completions",
        {
            "model": "sql",
            "prompt": "Hi",
            "max_tokens": 5,
            "stream": True,
            "stream_options": {"include_usage": True},
        },
        key=KEY,
    )
    assert done
    assert [c["choices"][0]["finish_reason"] for c in chunks[:5]] == [None] * 4 + ["length"]
    assert chunks[-1]["usage"]["completion_tokens"] == 5
    assert chunks[-1]["choices"] == []
    chat, done = stream(
        url + "/v1/chat/completions",
        {"messages": [{"role": "user", "content": "Hi"}], "max_tokens": 3, "stream": True, "n": 2},
        key=KEY,
    )
    assert done
    deltas = [c["choices"][0] for c in chat]
    assert deltas[0]["delta"] == {"role": "assistant", "content": ""}
    assert sum("content" in d["delta"] and d["delta"]["content"] != "" for d in deltas) == 6

    status, text = request(url + "/metrics")
    assert status == 200
    parsed = parse_metrics(text.decode())
    assert sample(parsed, "vllm:generation_tokens_total") == 7 * 3 + 5 + 6
    assert sample(parsed, "vllm:time_to_first_token_seconds_count") == 5
    assert sample(parsed, "vllm:num_requests_running") == 0
    assert sample(parsed, "enginekit_sim_info", devices="0,1", threads="2", adapters="sql") == 1

    proc.kill(signal.SIGTERM)
    assert proc.wait(10) == 0, proc.output()
    assert KEY not in proc.output()


def test_requests_beyond_the_concurrency_limit_queue_and_metrics_show_it(
    start: Start, render: Render, make_shard: MakeShard
) -> None:
    profile = Profile(
        name="p", engine="sim", model_path="/m", served_model_name="tiny", args=("--max-num-seqs", "2")
    )
    spec = make_shard(profile)
    start(render(spec, itl_ms=60.0))
    url = base(spec)
    poll(url + "/health", lambda s: s == 200, timeout=60)

    def scrape() -> dict[str, float]:
        return parse_metrics(request(url + "/metrics")[1].decode())

    with ThreadPoolExecutor(5) as pool:
        runs = [pool.submit(completion, url, None, max_tokens=12) for _ in range(5)]
        deadline = time.monotonic() + 5
        while sample(parsed := scrape(), "vllm:num_requests_waiting") < 3 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert [f.result(timeout=20)[0] for f in runs] == [200] * 5
    assert sample(parsed, "vllm:num_requests_running") == 2
    assert sample(parsed, "vllm:num_requests_waiting") == 3
    after = scrape()
    assert sample(after, "vllm:num_requests_waiting") == 0
    assert sample(after, "vllm:request_success_total", finished_reason="length") == 5
    # Each request takes 12 tokens x 60 ms; three of them waited for a slot.
    assert sample(after, "vllm:request_queue_time_seconds_sum") > 0.5


def _running(url: str) -> float:
    return sample(parse_metrics(request(url + "/metrics")[1].decode()), "vllm:num_requests_running")


def two_node_specs(heartbeat: str = "1") -> tuple[ShardSpec, ShardSpec]:
    profile = Profile(
        name="pair",
        engine="sim",
        model_path="/models/big",
        served_model_name="big",
        tp=4,
        gpus_per_node=2,
        nodes=2,
        args=("--heartbeat-seconds", heartbeat),
    )
    common: dict[str, Any] = {"nnodes": 2, "leader_addr": "127.0.0.1", "leader_port": free_port()}
    leader = ShardSpec(
        profile=profile, rank=0, bind_addr="127.0.0.1", http_port=free_port(), gpu_indices=(0, 1), **common
    )
    worker = ShardSpec(
        profile=profile, rank=1, bind_addr="127.0.0.1", http_port=free_port(), gpu_indices=(2, 3), **common
    )
    return leader, worker


def test_two_nodes_leader_ready_only_with_its_worker_and_unhealthy_without(
    start: Start, render: Render
) -> None:
    leader_spec, worker_spec = two_node_specs()
    leader_cmd, worker_cmd = render(leader_spec), render(worker_spec)
    assert worker_cmd.wait_for_leader_port
    assert not leader_cmd.wait_for_leader_port
    assert engine_for(SimEngine(), "sim").serves_http(worker_spec) is False
    # The worker starts first: it keeps trying the leader port, as a real one does.
    worker = start(worker_cmd)
    time.sleep(0.5)
    assert worker.alive()
    leader = start(leader_cmd)
    wait_port("127.0.0.1", leader_spec.leader_port, timeout=60)
    url = base(leader_spec)
    poll(url + "/health", lambda s: s == 200, timeout=60)
    parsed = parse_metrics(request(url + "/metrics")[1].decode())
    assert sample(parsed, "enginekit_sim_workers_ready") == 1
    assert completion(url, None, model="big", max_tokens=2)[0] == 200
    assert request(f"http://127.0.0.1:{worker_spec.http_port}/health", timeout=1)[0] == 0, (
        "workers serve no HTTP"
    )

    with ThreadPoolExecutor(1) as pool:
        body = {"model": "big", "prompt": "Hi", "max_tokens": 2000, "stream": True}
        in_flight = pool.submit(stream, url + "/v1/completions", body)
        poll(url + "/metrics", lambda s: _running(url) == 1, timeout=5)
        worker.kill()
        worker.wait(5)
        chunks, done = in_flight.result(timeout=10)
    assert done
    assert chunks[-1]["error"]["code"] == 503, "a request running when the group broke fails"
    assert len(chunks) < 2000
    poll(url + "/health", lambda s: s == 503, timeout=5)
    _status, body = request(url + "/health")
    # Killed, the worker's connection may be reset rather than closed ("connection closed: reset").
    broken = json.loads(body)
    assert broken["status"] == "broken"
    assert broken["reason"].startswith("worker rank 1 left: connection closed")
    assert completion(url, None, model="big")[0] == 503
    time.sleep(0.5)
    assert request(url + "/health")[0] == 503, "a group that lost a member stays unhealthy"
    assert leader.alive()


#: Seconds between heartbeats in the leader-exit test: three missed ones (1.5 s) are the
#: window in which a worker notices a leader that went silent.
HEARTBEAT = 0.5
#: What the window does not cover: the worker's own exit, on a loaded test machine.
EXIT_SLACK = 3.0


@pytest.mark.parametrize(
    ("sig", "why"),
    [
        (signal.SIGTERM, "connection closed"),
        (signal.SIGKILL, "connection closed"),
        # Stopped, the leader keeps its connections open and says nothing: only the
        # missing heartbeats tell, as with a hung leader or a node cut off.
        (signal.SIGSTOP, f"no heartbeat for {3 * HEARTBEAT:g} s"),
    ],
    ids=["terminated", "killed", "hung"],
)
def test_two_nodes_waits_for_all_workers_and_workers_die_with_the_leader(
    start: Start, render: Render, sig: signal.Signals, why: str
) -> None:
    leader_spec, worker_spec = two_node_specs(heartbeat=f"{HEARTBEAT:g}")
    # The plan tells a supervisor it need not stop the worker: this test holds it to that.
    assert engine_for(SimEngine(), "sim").plan(worker_spec).on_leader_exit == "stops"
    leader = start(render(leader_spec))
    url = base(leader_spec)
    # What a supervisor does for wait_for_leader_port: hold the worker until it accepts.
    wait_port("127.0.0.1", leader_spec.leader_port, timeout=60)
    poll(url + "/health", lambda s: s == 503, timeout=5)
    time.sleep(1.0)  # well past the start-up time: still waiting for its worker
    assert request(url + "/health")[0] == 503
    worker = start(render(worker_spec))
    poll(url + "/health", lambda s: s == 200, timeout=60)
    gone = time.monotonic()
    leader.kill(sig)
    assert worker.wait(3 * HEARTBEAT + EXIT_SLACK) == 1, "the worker exits by itself, with status 1"
    assert time.monotonic() - gone < 3 * HEARTBEAT + EXIT_SLACK
    # A killed leader's connection may be reset rather than closed: "connection closed: reset".
    assert f"went away ({why}" in worker.output()
    if sig == signal.SIGSTOP:
        assert leader.alive(), "a hung leader is still there: the worker did not wait for it to exit"


#: What a stop may print: any of these on stderr is a shutdown that was not clean.
UNCLEAN = ("Traceback", "Exception in callback", "Task was destroyed", "Task exception was never retrieved")


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_leader_with_its_worker_joined_stops_quietly_with_status_0(
    start: Start, render: Render, sig: signal.Signals
) -> None:
    """Stopped, the leader lets each worker's connection handler end, so asyncio logs no traceback.

    Python 3.10 and 3.11 log one for a stream handler still running (then cancelled) when
    the loop ends; the README documents SIGTERM and SIGINT as a clean exit 0.
    """
    leader_spec, worker_spec = two_node_specs(heartbeat=f"{HEARTBEAT:g}")
    leader = start(render(leader_spec))
    wait_port("127.0.0.1", leader_spec.leader_port, timeout=60)
    worker = start(render(worker_spec))
    poll(base(leader_spec) + "/health", lambda s: s == 200, timeout=60)
    leader.kill(sig)
    assert leader.wait(10) == 0, leader.output()
    assert "enginekit-sim: shutting down" in leader.output()
    assert not [marker for marker in UNCLEAN if marker in leader.output()], leader.output()
    # The worker's part is unchanged: it sees the connection close and exits 1, quietly too.
    assert worker.wait(3 * HEARTBEAT + EXIT_SLACK) == 1
    assert "went away (connection closed)" in worker.output()
    assert not [marker for marker in UNCLEAN if marker in worker.output()], worker.output()


def test_a_cpu_shard_runs_with_the_kv_cache_placement_reserved(
    start: Start, render: Render, make_shard: MakeShard
) -> None:
    spec = make_shard(gpu_indices=(), threads=2, kv_cache_mib=3)
    command = render(spec, block_size=4, kv_bytes_per_token=65_536)
    assert "--num-gpu-blocks-override" not in command.args
    proc = start(command)
    poll(base(spec) + "/health", lambda s: s == 200, timeout=60)
    # 3 MiB over 4 tokens x 64 KiB: 12 blocks, exactly.
    assert "KV cache: 3145728 bytes hold 12 blocks of 4 tokens x 65536 bytes" in proc.output()
    assert "devices none (CPU)" in proc.output()


def test_kv_events_reach_a_subscriber_in_vllm_format(
    start: Start, render: Render, make_shard: MakeShard
) -> None:
    results: dict[str, list[Any]] = {}
    for fmt, topic in (("map", "kv-events"), ("array", "")):
        subscriber = KVSubscriber(topic)
        try:
            profile = Profile(
                name="p", engine="sim", model_path="/m", served_model_name="tiny", kv_events=True
            )
            spec = make_shard(profile, kv_events_port=subscriber.port, kv_events_mode="connect")
            command = render(spec, block_size=4, num_gpu_blocks=6, kv_event_format=fmt, kv_events_topic=topic)
            # vLLM serves /reset_prefix_cache only in its development mode.
            start(command, {"VLLM_SERVER_DEV_MODE": "1"})
            url = base(spec)
            poll(url + "/health", lambda s: s == 200, timeout=60)
            prompt = "one two three four five six seven eight nine"
            assert completion(url, None, prompt=prompt, max_tokens=1)[0] == 200
            first = subscriber.receive(timeout=5)
            assert first is not None
            received_topic, seq, batch = first
            assert received_topic == topic.encode()
            assert seq == 0
            assert isinstance(batch[0], float)
            assert batch[2] == 0
            results[fmt] = batch[1]
            assert completion(url, None, prompt=prompt, max_tokens=1)[0] == 200
            parsed = parse_metrics(request(url + "/metrics")[1].decode())
            assert sample(parsed, "vllm:prefix_cache_hits_total") == 8
            for i in range(3):
                assert completion(url, None, prompt=f"other {i} " + prompt, max_tokens=1)[0] == 200
            kinds = subscriber.events(lambda found: any(_kind(e) == "BlockRemoved" for e in found), timeout=5)
            assert any(_kind(e) == "BlockStored" for e in kinds)
            status, body = request(url + "/reset_prefix_cache", b"")
            assert (status, json.loads(body)) == (200, {"success": True})
            # As vLLM: the event goes out with the next engine step's batch.
            assert completion(url, None, prompt="x", max_tokens=1)[0] == 200
            cleared = subscriber.events(
                lambda found: any(_kind(e) == "AllBlocksCleared" for e in found), timeout=5
            )
            assert cleared
        finally:
            subscriber.close()
    stored = results["map"][0]
    assert stored["type"] == "BlockStored"
    assert stored["block_size"] == 4
    assert stored["medium"] == "GPU"
    assert len(stored["block_hashes"]) == 2
    assert stored["parent_block_hash"] is None
    assert len(stored["token_ids"]) == 8
    assert results["array"][0] == [
        "BlockStored",
        stored["block_hashes"],
        None,
        stored["token_ids"],
        4,
        None,
        "GPU",
        None,
    ], "the same prefix hashes the same in every replica, in either format"


def test_a_prompt_of_token_ids_is_cached_and_published_as_those_ids(
    start: Start, render: Render, make_shard: MakeShard
) -> None:
    """vLLM publishes a token-id prompt's ids as given: a router indexing the events by ids
    (from /v1/completions/render, or its own tokenizer) must find them unchanged."""
    from enginekit_sim.server.kvcache import block_hash

    subscriber = KVSubscriber()
    try:
        profile = Profile(name="p", engine="sim", model_path="/m", served_model_name="tiny", kv_events=True)
        spec = make_shard(profile, kv_events_port=subscriber.port, kv_events_mode="connect")
        start(render(spec, block_size=4))
        url = base(spec)
        poll(url + "/health", lambda s: s == 200, timeout=60)
        ids = [7, 31999, 0, 12345, 42, 42, 42, 9, 5]  # two full blocks and one more token
        assert completion(url, None, prompt=ids, max_tokens=1)[0] == 200
        (stored,) = subscriber.events(lambda found: bool(found), timeout=5)
        first = block_hash(None, ids[:4], None)
        assert stored["token_ids"] == ids[:8]
        assert stored["block_hashes"] == [first, block_hash(first, ids[4:8], None)]
        # A text prompt's blocks, sent again as the ids the sim published for it, are hits:
        # one hash for one run of ids, whichever way the prompt came.
        assert (
            completion(url, None, prompt="one two three four five six seven eight nine", max_tokens=1)[0]
            == 200
        )
        (text_stored,) = subscriber.events(lambda found: bool(found), timeout=5)
        text_ids = text_stored["token_ids"]
        assert completion(url, None, prompt=[*text_ids, 5], max_tokens=1)[0] == 200
        parsed = parse_metrics(request(url + "/metrics")[1].decode())
        assert sample(parsed, "vllm:prefix_cache_hits_total") == 8
        assert subscriber.receive(timeout=0.5) is None, "nothing new was stored"
        # Any id a real vocabulary may have (Llama 3's run past 128000); not one below 0 or past 64 bits.
        assert completion(url, None, prompt=[128_000, 3], max_tokens=1)[0] == 200
        for bad in ([-1], [2**63]):
            status, body = completion(url, None, prompt=bad, max_tokens=1)
            assert status == 400
            assert body["error"]["message"] == f"Token id {bad[0]} is out of vocabulary"
            assert body["error"]["param"] is None
    finally:
        subscriber.close()


def _serve(port: int, *args: str) -> Command:
    """``serve`` on loopback with an instant model and blocks of 4 tokens, given ``args``."""
    head = ("-I", "-m", "enginekit_sim", "serve", "/m", "--served-model-name", "tiny", "--host", "127.0.0.1")
    latency = ("--startup-seconds", "0", "--ttft-ms", "0", "--itl-ms", "0", "--block-size", "4")
    return Command(path=sys.executable, args=(*head, "--port", str(port), *latency, *args), name="sim")


def _replayed(socket: Any, timeout: float = 5.0) -> list[list[bytes]]:
    """What a replay request brought back, up to and with the end marker, as a DEALER receives it."""
    import zmq

    answers: list[list[bytes]] = []
    while not answers or answers[-1][2] != (-1).to_bytes(8, "big", signed=True):
        assert socket.poll(int(timeout * 1000), zmq.POLLIN), f"no end marker; got {answers}"
        answers.append(socket.recv_multipart())
    return answers


def test_a_replay_endpoint_answers_as_vllm_s_publisher_from_a_buffer_of_buffer_steps_batches(
    start: Start,
) -> None:
    """vLLM 0.32's ZmqEventPublisher binds a ROUTER socket on replay_endpoint; a consumer that
    missed batches sends the first sequence number it wants, and gets every buffered batch from
    there as (topic, seq, payload), then (b"", -1, b"")."""
    import msgpack
    import zmq

    subscriber = KVSubscriber("kv")
    replay_port, port = free_port(), free_port()
    context = zmq.Context()
    try:
        config = {
            "enable_kv_cache_events": True,
            "publisher": "zmq",
            "endpoint": f"tcp://127.0.0.1:{subscriber.port}",
            "replay_endpoint": f"tcp://*:{replay_port}",
            "buffer_steps": 3,
            "topic": "kv",
        }
        start(_serve(port, "--kv-events-config", json.dumps(config)))
        url = f"http://127.0.0.1:{port}"
        poll(url + "/health", lambda s: s == 200, timeout=60)
        (source,) = json.loads(request(url + "/kv_event_sources")[1]).values()
        assert source["replay_endpoint"] == f"tcp://*:{replay_port}"
        assert source["buffer_steps"] == 3
        live: dict[int, Any] = {}
        for i in range(5):  # a block each: five batches, seq 0-4
            assert completion(url, None, prompt=f"w{i} x y z", max_tokens=1)[0] == 200
            got = subscriber.receive(timeout=5)
            assert got is not None
            live[got[1]] = got[2]
        assert sorted(live) == [0, 1, 2, 3, 4]
        # vLLM's own consumer (tests/distributed/conftest.py): a DEALER sends the empty
        # delimiter a REQ socket would, then the first sequence number wanted.
        dealer = context.socket(zmq.DEALER)
        dealer.setsockopt(zmq.LINGER, 0)
        dealer.connect(f"tcp://127.0.0.1:{replay_port}")
        dealer.send_multipart([b"", (1).to_bytes(8, "big")])
        answers = _replayed(dealer)
        assert [frames[:3] for frames in answers] == [
            *([b"", b"kv", seq.to_bytes(8, "big")] for seq in (2, 3, 4)),  # the last 3 batches only
            [b"", b"", (-1).to_bytes(8, "big", signed=True)],
        ]
        assert [msgpack.unpackb(frames[3]) for frames in answers[:3]] == [live[2], live[3], live[4]]
        assert answers[-1][3] == b""
        dealer.send_multipart([b"", (9).to_bytes(8, "big")])
        assert len(_replayed(dealer)) == 1, "past the last batch: only the end marker"
        dealer.send_multipart([(0).to_bytes(8, "big")])  # no delimiter: vLLM answers nothing
        assert not dealer.poll(300)
        # The example consumer's REQ socket gets the first answer (REQ takes one reply).
        req = context.socket(zmq.REQ)
        req.setsockopt(zmq.LINGER, 0)
        req.connect(f"tcp://127.0.0.1:{replay_port}")
        req.send((3).to_bytes(8, "big"))
        assert req.poll(5000)
        topic, seq, payload = req.recv_multipart()
        assert (topic, int.from_bytes(seq, "big"), msgpack.unpackb(payload)) == (b"kv", 3, live[3])
    finally:
        context.destroy(linger=0)
        subscriber.close()


def test_tokenize_detokenize_and_render_answer_the_ids_the_kv_events_carry(
    start: Start, render: Render, make_shard: MakeShard
) -> None:
    """vLLM's /tokenize and /detokenize (open, as in vLLM), and its render endpoints with
    --enable-scale-out: a router renders a prompt, then routes by the ids the events carry."""
    subscriber = KVSubscriber()
    try:
        profile = Profile(
            name="p",
            engine="sim",
            model_path="/m",
            served_model_name="tiny",
            kv_events=True,
            args=("--enable-scale-out",),
        )
        spec = make_shard(profile, api_key=KEY, kv_events_port=subscriber.port, kv_events_mode="connect")
        start(render(spec, block_size=4))
        url = base(spec)
        poll(url + "/health", lambda s: s == 200, timeout=60)
        text = "one two three four five six seven eight nine"
        status, raw = request(url + "/tokenize", {"model": "tiny", "prompt": text})
        assert status == 200, raw
        tokenized = json.loads(raw)
        assert list(tokenized) == ["count", "max_model_len", "tokens", "token_strs"]
        ids = tokenized["tokens"]
        assert (tokenized["count"], tokenized["max_model_len"], tokenized["token_strs"]) == (9, 4096, None)
        strs = json.loads(request(url + "/tokenize", {"prompt": text, "return_token_strs": True})[1])
        assert strs["token_strs"] == text.split()
        assert json.loads(request(url + "/detokenize", {"tokens": ids})[1]) == {"prompt": text}
        # An id the sim never read is spelt with a word that has that id.
        (word,) = json.loads(request(url + "/detokenize", {"tokens": [5]})[1])["prompt"].split()
        assert json.loads(request(url + "/tokenize", {"prompt": word})[1])["tokens"] == [5]
        assert request(url + "/tokenize", {"model": "nope", "prompt": "x"})[0] == 404
        assert request(url + "/tokenize", {"prompt": [1, 2]})[0] == 400
        assert request(url + "/detokenize", {"tokens": [32000]})[0] == 400

        body = {"model": "tiny", "prompt": text, "max_tokens": 1}
        assert request(url + "/v1/completions/render", body)[0] == 401, "under /v1: the key guards it"
        status, raw = request(url + "/v1/completions/render", body, key=KEY)
        assert status == 200, raw
        (generate,) = json.loads(raw)
        assert generate["token_ids"] == ids
        assert generate["request_id"].startswith("cmpl-")
        assert generate["sampling_params"]["max_tokens"] == 1
        assert generate["model"] == "tiny"
        assert completion(url, prompt=text, max_tokens=1)[0] == 200
        (stored,) = subscriber.events(lambda found: bool(found), timeout=5)
        assert stored["token_ids"] == ids[:8], "render answered the ids the events carry"
        status, raw = request(url + "/v1/completions/render", {"prompt": [3, 1, 4]}, key=KEY)
        assert [g["token_ids"] for g in json.loads(raw)] == [[3, 1, 4]]
        messages = [{"role": "user", "content": "hi there"}]
        status, raw = request(url + "/v1/chat/completions/render", {"messages": messages}, key=KEY)
        assert status == 200, raw
        chat_ids = json.loads(request(url + "/tokenize", {"messages": messages})[1])["tokens"]
        assert json.loads(raw)["token_ids"] == chat_ids, "chat render answers one GenerateRequest"
        assert request(url + "/v1/completions/render", key=KEY)[0] == 405
    finally:
        subscriber.close()


def test_render_answers_403_without_enable_scale_out_as_vllm(
    start: Start, render: Render, make_shard: MakeShard
) -> None:
    spec = make_shard()
    start(render(spec))
    url = base(spec)
    poll(url + "/health", lambda s: s == 200, timeout=60)
    for path in ("/v1/completions/render", "/v1/chat/completions/render"):
        status, raw = request(url + path, b"not even JSON")
        assert status == 403
        assert json.loads(raw) == {
            "error": {
                "message": "Scale-out endpoints are disabled. Restart vllm serve with --enable-scale-out "
                "to enable them.",
                "type": "PermissionDeniedError",
                "param": None,
                "code": 403,
            }
        }


def _kind(event: Any) -> str:
    return str(event["type"] if isinstance(event, dict) else event[0])


def faulty(make_shard: MakeShard, *faults: str, args: tuple[str, ...] = ()) -> ShardSpec:
    fault_args = tuple(a for f in faults for a in ("--fault", f))
    profile = Profile(
        name="f", engine="sim", model_path="/m", served_model_name="tiny", args=fault_args + args
    )
    return make_shard(profile)


def test_fault_exit_at_start(start: Start, render: Render, make_shard: MakeShard) -> None:
    spec = faulty(make_shard, "exit-at-start:3")
    proc = start(render(spec))
    assert proc.wait(10) == 3
    assert request(base(spec) + "/health", timeout=1)[0] == 0, "it never listened"


def test_fault_hang_at_start(start: Start, render: Render, make_shard: MakeShard) -> None:
    spec = faulty(make_shard, "hang-at-start")
    proc = start(render(spec, startup_seconds=0.1))
    poll(base(spec) + "/health", lambda s: s == 503, timeout=15)
    time.sleep(1.0)
    assert request(base(spec) + "/health")[0] == 503
    assert proc.alive()


def test_fault_crash_after_seconds(start: Start, render: Render, make_shard: MakeShard) -> None:
    spec = faulty(make_shard, "crash-after-seconds:0.5:7")
    proc = start(render(spec))
    poll(base(spec) + "/health", lambda s: s == 200, timeout=60)
    assert proc.wait(10) == 7


def test_fault_crash_after_requests(start: Start, render: Render, make_shard: MakeShard) -> None:
    spec = faulty(make_shard, "crash-after-requests:2:9")
    proc = start(render(spec))
    url = base(spec)
    poll(url + "/health", lambda s: s == 200, timeout=60)
    assert [completion(url, None)[0] for _ in range(2)] == [200, 200]
    assert completion(url, None)[0] == 0, "the connection dropped"
    assert proc.wait(10) == 9


def test_fault_flapping_and_slow_health(start: Start, render: Render, make_shard: MakeShard) -> None:
    flapping = faulty(make_shard, "flap-health:0.3")
    slow = faulty(make_shard, "slow-health:1")
    flap_proc, slow_proc = start(render(flapping)), start(render(slow))
    seen: list[int] = []
    poll(base(flapping) + "/health", lambda s: s == 200, timeout=15, seen=seen)
    deadline = time.monotonic() + 2.0
    while time.monotonic() < deadline:
        poll(base(flapping) + "/health", lambda s: True, timeout=1, seen=seen)
    assert seen.count(200) >= 2, seen
    assert seen[seen.index(200) :].count(503) >= 2, seen
    assert flap_proc.alive()
    poll(base(slow) + "/health", lambda s: s != 0, timeout=15)
    began = time.monotonic()
    assert request(base(slow) + "/health", timeout=0.4)[0] == 0, "a probe with a short timeout fails"
    assert poll(base(slow) + "/health", lambda s: s == 200, timeout=10) == 200
    assert time.monotonic() - began >= 1.0
    assert slow_proc.alive()


@pytest.mark.parametrize("fault", [(), ("--fault", "cpu-fallback")])
def test_device_listing_reports_the_gpus_given_or_none(make_shard: MakeShard, fault: tuple[str, ...]) -> None:
    profile = Profile(name="f", engine="sim", model_path="/m", tp=2, args=fault)
    spec = make_shard(profile, gpu_indices=(2, 5))
    engine = engine_for(SimEngine(SimConfig(python=sys.executable)), "sim")
    (shard_command,) = engine.commands(spec)
    listing = engine.device_listing()
    assert listing is not None
    # Run as the caller runs it: in the environment the shard's process gets.
    env = listing.environ(shard_command.env)
    output = subprocess.run(
        listing.argv(), env=env, capture_output=True, text=True, timeout=20, check=True
    ).stdout
    assert engine.parse_devices(output) == ([] if fault else ["2", "5"])
