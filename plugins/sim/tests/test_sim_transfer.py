"""The simulator's prefill and decode: vLLM's NIXL answers over HTTP, its side channel on the plan's ports."""

from __future__ import annotations

import asyncio
import json
import socket
import sys

import pytest
from enginekit.base.errors import EngineError
from enginekit.spec.model import Profile, ShardSpec
from enginekit.testing import engine_for
from enginekit_sim.plugin import SimEngine
from enginekit_sim.plugin.config import SimConfig
from enginekit_sim.server import transfer
from enginekit_sim.testing import Proc, free_port, poll, request

FAST = ("--startup-seconds", "0", "--ttft-ms", "0", "--itl-ms", "0")


def shard(role: str, port: int, side: int, **fields: object) -> ShardSpec:
    profile = Profile(name="p", engine="sim", model_path="/m", served_model_name="m", args=FAST)
    base: dict[str, object] = {
        "shard_id": f"{role}-0",
        "http_port": port,
        "bind_addr": "127.0.0.1",
        "gpu_indices": (0,),
        "role": role,
        "kv_transfer_port": side,
        "profile": profile,
    }
    return ShardSpec(**{**base, **fields})  # type: ignore[arg-type]


def start(spec: ShardSpec) -> Proc:
    (command,) = engine_for(SimEngine(SimConfig(python=sys.executable)), "sim").commands(spec)
    return Proc(command)


def test_a_prefill_answers_what_a_decode_needs_and_the_decode_reads_it_over_the_side_channel() -> None:
    p_port, d_port, side = free_port(), free_port(), free_port()
    prefill = start(shard("prefill", p_port, side))
    decode = start(shard("decode", d_port, free_port()))
    try:
        for port in (p_port, d_port):
            poll(f"http://127.0.0.1:{port}/health", lambda s: s == 200, 20)
        asked = {
            "model": "m", "prompt": "a b c d e f g h i j k l m n o p q r", "max_tokens": 1,
            "kv_transfer_params": {"do_remote_decode": True, "do_remote_prefill": False},
        }  # fmt: skip
        status, body = request(f"http://127.0.0.1:{p_port}/v1/completions", asked)
        assert status == 200, body
        params = json.loads(body)["kv_transfer_params"]
        # vLLM 0.34's pull scheduler's keys, at the side channel the plan gave it.
        assert params["do_remote_prefill"] is True
        assert (params["remote_host"], params["remote_port"]) == ("127.0.0.1", side)
        assert params["remote_block_ids"] == [[1, 2]]  # 18 tokens in blocks of 16
        assert params["remote_num_tokens"] == 18
        assert params["remote_request_id"].startswith("cmpl-")
        decoded = {"model": "m", "prompt": asked["prompt"], "max_tokens": 3, "kv_transfer_params": params}
        status, body = request(f"http://127.0.0.1:{d_port}/v1/completions", decoded)
        assert status == 200, body
        answer = json.loads(body)
        assert answer["usage"]["completion_tokens"] == 3
        assert answer["kv_transfer_params"] is None  # vLLM's decode answers null
        # The blocks are read once: a second decode of the same request fails, as vLLM's
        # does once the prefill freed them (kv_load_failure_policy fail).
        status, body = request(f"http://127.0.0.1:{d_port}/v1/completions", decoded)
        assert status == 500
        assert b"KV transfer failed" in body
        _, metrics = request(f"http://127.0.0.1:{d_port}/metrics")
        text = metrics.decode()
        assert "enginekit_sim_kv_transfer_tokens_total" in text
        assert 'enginekit_sim_prefill_computed_tokens_total{model_name="m",engine="0"} 0.0' in text
    finally:
        prefill.close()
        decode.close()


@pytest.mark.parametrize("protocol", ["vllm", "sglang"])
def test_a_transfer_port_another_process_holds_stops_the_instance_at_start(protocol: str) -> None:
    """vLLM's side channel (on a decode too) and SGLang's bootstrap server (a prefill's) are bound at start."""
    held = socket.socket()
    held.bind(("127.0.0.1", 0))
    held.listen()
    engine = engine_for(SimEngine(SimConfig(python=sys.executable, disaggregation=protocol)), "sim")
    role = "decode" if protocol == "vllm" else "prefill"
    try:
        (command,) = engine.commands(shard(role, free_port(), held.getsockname()[1]))
        proc = Proc(command)
        try:
            assert proc.wait(20) == 1
            assert "cannot listen" in proc.output()
        finally:
            proc.close()
    finally:
        held.close()


def test_a_request_without_transfer_params_is_served_as_an_aggregated_one() -> None:
    port = free_port()
    proc = start(shard("decode", port, free_port()))
    try:
        poll(f"http://127.0.0.1:{port}/health", lambda s: s == 200, 20)
        status, body = request(
            f"http://127.0.0.1:{port}/v1/completions", {"model": "m", "prompt": "x y", "max_tokens": 2}
        )
        assert status == 200
        assert "kv_transfer_params" not in json.loads(body)
    finally:
        proc.close()


@pytest.mark.parametrize(
    ("config", "problem"),
    [
        (
            '{"kv_connector":"LMCacheConnectorV1","kv_role":"kv_both"}',
            "moves KV caches as vLLM's NixlConnector",
        ),
        ('{"kv_connector":"NixlConnector","kv_role":"both"}', "kv_role must be one of"),
        ("[1]", "must be a JSON object"),
        ("{", "must be a JSON object"),
    ],
)
def test_a_transfer_config_the_simulator_cannot_serve_is_refused_at_start(config: str, problem: str) -> None:
    problems: list[str] = []
    transfer.transfer_config(config, {}, 0.0, problems)
    assert any(problem in p for p in problems), problems


def test_the_side_channel_port_variable_is_read_as_vllm_reads_it() -> None:
    problems: list[str] = []
    made = transfer.transfer_config(
        '{"kv_connector":"NixlConnector","kv_role":"kv_producer"}', {}, 2.0, problems
    )
    assert made is not None
    assert (made.host, made.port, made.s_per_token) == ("localhost", 5600, 0.002)
    transfer.transfer_config(
        '{"kv_connector":"NixlConnector","kv_role":"kv_producer"}',
        {"VLLM_NIXL_SIDE_CHANNEL_PORT": "x"},
        0,
        problems,
    )
    assert problems == ["VLLM_NIXL_SIDE_CHANNEL_PORT must be a port, got 'x'"]


def test_a_decode_given_params_without_an_address_fails_the_request() -> None:
    with pytest.raises(transfer.TransferFailed, match="lack remote_host"):
        asyncio.run(
            transfer.fetch({"remote_host": "127.0.0.1", "remote_port": "1", "remote_request_id": "x"})
        )


def test_the_plugin_renders_vllms_nixl_settings_and_refuses_its_own_config_in_args() -> None:
    engine = engine_for(SimEngine(SimConfig(kv_transfer_ms_per_token=0.5)), "sim")
    (command,) = engine.commands(shard("prefill", 8100, 5600))
    at = command.args.index("--kv-transfer-config")
    assert json.loads(command.args[at + 1])["kv_role"] == "kv_producer"
    assert command.args[command.args.index("--kv-transfer-ms-per-token") + 1] == "0.5"
    assert command.env["VLLM_NIXL_SIDE_CHANNEL_PORT"] == "5600"
    assert command.env["VLLM_NIXL_SIDE_CHANNEL_HOST"] == "127.0.0.1"
    own = Profile(name="p", engine="sim", model_path="/m", args=("--kv-transfer-config={}",))
    with pytest.raises(EngineError, match=r"--kv-transfer-config is set from the shard's role \('decode'\)"):
        engine.commands(shard("decode", 8100, 5600, profile=own))
    # An aggregated shard renders as it always did.
    (plain,) = engine.commands(shard("aggregated", 8100, 0))
    assert "--kv-transfer-config" not in plain.args


def sglang_engine() -> object:
    return engine_for(SimEngine(SimConfig(python=sys.executable, disaggregation="sglang")), "sim")


def test_as_sglang_a_prefill_and_a_decode_asked_at_once_meet_at_the_bootstrap_room() -> None:
    import threading

    engine = sglang_engine()
    p_port, d_port, bootstrap = free_port(), free_port(), free_port()
    (p_command,) = engine.commands(shard("prefill", p_port, bootstrap))  # type: ignore[attr-defined]
    (d_command,) = engine.commands(shard("decode", d_port, 0))  # type: ignore[attr-defined]
    assert p_command.args[p_command.args.index("--disaggregation-bootstrap-port") + 1] == str(bootstrap)
    assert "--disaggregation-bootstrap-port" not in d_command.args
    assert not any(k.startswith("VLLM_NIXL") for k in p_command.env)
    prefill, decode = Proc(p_command), Proc(d_command)
    try:
        for port in (p_port, d_port):
            poll(f"http://127.0.0.1:{port}/health", lambda s: s == 200, 20)
        body = {
            "model": "m", "prompt": "a b c d e f g h i j", "max_tokens": 3,
            "bootstrap_host": "127.0.0.1", "bootstrap_port": bootstrap, "bootstrap_room": 12345,
        }  # fmt: skip
        answers: dict[str, tuple[int, bytes]] = {}
        # The decode is asked first: it waits at the prefill's bootstrap server for the room.
        waiting = threading.Thread(
            target=lambda: answers.__setitem__(
                "decode", request(f"http://127.0.0.1:{d_port}/v1/completions", body)
            )
        )
        waiting.start()
        answers["prefill"] = request(f"http://127.0.0.1:{p_port}/v1/completions", body)
        waiting.join(30)
        assert answers["prefill"][0] == 200
        assert json.loads(answers["prefill"][1])["usage"]["completion_tokens"] == 1
        status, text = answers["decode"]
        assert status == 200, text
        assert json.loads(text)["usage"]["completion_tokens"] == 3
        _, metrics = request(f"http://127.0.0.1:{d_port}/metrics")
        assert 'enginekit_sim_kv_transfer_tokens_total{model_name="m",engine="0"} 10.0' in metrics.decode()
        # A request without a room (a health check's, a client's asking the decode directly) is served whole.
        status, _ = request(
            f"http://127.0.0.1:{d_port}/v1/completions", {"model": "m", "prompt": "x", "max_tokens": 1}
        )
        assert status == 200
    finally:
        prefill.close()
        decode.close()


def test_a_room_never_held_fails_the_decode_after_the_wait_and_is_forgotten(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(transfer, "ROOM_WAIT", 0.05)
    config = transfer.TransferConfig(
        host="127.0.0.1",
        port=free_port(),
        engine_id="",
        s_per_token=0,
        protocol=transfer.SGLANG,
        mode="prefill",
    )

    async def scenario() -> tuple[str, dict[str, object]]:
        side = transfer.SideChannel(config)
        await side.start()
        try:
            with pytest.raises(transfer.TransferFailed, match="holds no blocks for request '7'") as caught:
                await transfer.fetch_from("127.0.0.1", config.port, "7", timeout=1.0)
            # A room the prefill holds later is met by a decode that asked first.
            asked = asyncio.ensure_future(transfer.fetch_from("127.0.0.1", config.port, "8", timeout=1.0))
            await asyncio.sleep(0.01)
            side.hold("8", 32, 16)
            assert await asked == 32
            return str(caught.value), dict(side._waiting)
        finally:
            side.close()

    message, waiting = asyncio.run(scenario())
    assert "127.0.0.1" in message
    assert waiting == {}


@pytest.mark.parametrize("port", [0, -1, 70000, 10**30])
def test_a_port_out_of_range_fails_the_transfer_and_never_the_server(port: int) -> None:
    with pytest.raises(transfer.TransferFailed, match=f"port {port} is no port"):
        asyncio.run(transfer.fetch_from("127.0.0.1", port, "x"))
    with pytest.raises(transfer.TransferFailed, match="is no port"):
        asyncio.run(transfer.fetch({"remote_host": "h" * 300, "remote_port": port, "remote_request_id": "x"}))


@pytest.mark.parametrize("port", [0, 70000])
def test_a_bootstrap_port_out_of_range_is_a_400(port: int) -> None:
    from enginekit_sim.server import openai

    body = {"prompt": "x", "bootstrap_host": "127.0.0.1", "bootstrap_port": port, "bootstrap_room": 1}
    with pytest.raises(openai.ApiError) as caught:
        openai.parse(body, chat=False, names=("m",), adapters={}, max_len=100)
    assert caught.value.status == 400
    assert caught.value.param == "bootstrap_port"


def test_a_long_host_is_cut_in_the_failure() -> None:
    with pytest.raises(transfer.TransferFailed) as caught:
        asyncio.run(transfer.fetch_from("h" * 300, 1, "x", timeout=0.5))
    assert "h" * 81 not in str(caught.value)
