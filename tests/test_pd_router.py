"""A disaggregated replica end to end: two prefill sims, one decode sim and the real vllm-router in PD mode.

Everything comes from one disaggregated spec: ``enginekit layout --shards`` writes each
instance's shard spec (ports from the layout), ``enginekit run`` starts each, and
``enginekit router`` builds and execs ``vllm-router --vllm-pd-disaggregation`` from their
plans. On loopback, with an API key.

What vllm-router 0.1.17 does in PD mode, which these tests rest on: each request goes to
a prefill with ``max_tokens`` 1 and ``kv_transfer_params.do_remote_decode``, then, once the
prefill has answered, to a decode with the prefill's ``kv_transfer_params``; both calls
carry ``Bearer $OPENAI_API_KEY`` of the router's environment, never the client's header.
The simulator answers as vLLM's NIXL prefill does, and its decode reads the prefill's
blocks over the prefill's side channel, at the ``remote_host``/``remote_port`` the answer
names (the plan's ``VLLM_NIXL_SIDE_CHANNEL_*``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.test_kv_aware_router import (
    ROUTER,
    WAIT,
    Ports,
    Router,
    Shard,
    call,
    enginekit,
    metric,
    recorded_environ,
    recording,
    router_executable,
    words,
)

KEY = "sk-pd-router-0123456789abcdef"
MODEL = "tiny"
PROMPT = 40  # tokens in each prompt: the simulator's tokenizer takes one per word

pytestmark = pytest.mark.skipif(
    ROUTER is None,
    reason="vllm-router is not installed (pip install vllm-router==0.1.17): "
    "not on PATH and not next to " + sys.executable,
)


class PDRouter(Router):
    """vllm-router in PD mode: ready once its ``/readiness`` answers 200 (its body counts no workers there)."""

    def wait_ready(self, deadline: float, workers: int) -> None:
        del workers
        while True:
            try:
                status, _ = call(self.url + "/readiness")
            except OSError:
                status = 0
            if status == 200:
                return
            if self.process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"vllm-router not ready: {self.argv}\nits output:\n{self.output()}")
            time.sleep(0.1)


class PD:
    def __init__(self, prefills: list[Shard], decode: Shard, router: Router, argv: list[str]):
        self.prefills, self.decode, self.router, self.argv = prefills, decode, router, argv

    def counts(self, name: str) -> list[float]:
        """``name`` on each prefill, then on the decode."""
        return [metric(s.metrics(), name) for s in (*self.prefills, self.decode)]


def disaggregated_spec(ports: dict[str, int]) -> str:
    profile = (
        f'{{ name = "tiny", engine = "sim", model_path = "/models/tiny", served_model_name = "{MODEL}", '
        'args = ["--startup-seconds", "0.2", "--ttft-ms", "1", "--itl-ms", "1", "--prefill-ms-per-token", "1"] }'
    )
    return f"""
replica_id = "pd"
api_key = "{KEY}"
[transfer]
connector = "nixl"
port = {ports["transfer"]}
[router]
port = {ports["router"]}
metrics_port = {ports["metrics"]}
[prefill]
http_port = {ports["prefill"]}
profile = {profile}
[[prefill.instances]]
nodes = [{{ addr = "127.0.0.1", gpu_indices = [0] }}]
[[prefill.instances]]
nodes = [{{ addr = "127.0.0.1", gpu_indices = [1] }}]
[decode]
http_port = {ports["decode"]}
profile = {profile}
[[decode.instances]]
nodes = [{{ addr = "127.0.0.1", gpu_indices = [2] }}]
"""


SGLANG_ROUTER = router_executable("sglang-router")


@pytest.fixture
def pd(tmp_path: Path) -> Iterator[PD]:
    yield from started(tmp_path, "vllm")


@pytest.fixture
def pd_sglang(tmp_path: Path) -> Iterator[PD]:
    if SGLANG_ROUTER is None:
        pytest.skip(
            "sglang-router is not installed (pip install sglang-router==0.3.2): not on PATH and not next to "
            + sys.executable
        )
    yield from started(tmp_path, "sglang")


def started(tmp_path: Path, protocol: str) -> Iterator[PD]:
    """The spec's instances under ``enginekit run``, speaking ``protocol``'s PD, and its router in front."""
    config = tmp_path / "node.toml"
    # Reading a prefill's cache takes a modelled 0.5 ms per token here.
    config.write_text(
        f"[engines.sim]\npython = {json.dumps(sys.executable)}\nkv_transfer_ms_per_token = 0.5\n"
        f"disaggregation = {json.dumps(protocol)}\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "ENGINEKIT_CONFIG"}
    held = Ports()
    ports = {
        "prefill": held.run(2),
        "decode": held.run(1),
        "transfer": held.run(3),
        "router": held.run(1),
        "metrics": held.run(1),
    }
    held.release()
    spec = tmp_path / "pd.toml"
    spec.write_text(disaggregated_spec(ports))
    folder = tmp_path / "shards"
    laid = subprocess.run(
        enginekit(config, "layout", str(spec), "--shards", str(folder)),
        capture_output=True, text=True, timeout=60, env=env,
    )  # fmt: skip
    assert laid.returncode == 0, laid.stderr
    # Every port in the table, from the layout: the side channels one after another (an
    # SGLang decode listens on none: the router names the prefill's bootstrap port to it).
    for port in range(ports["transfer"], ports["transfer"] + (3 if protocol == "vllm" else 2)):
        assert f"kv-transfer {port}" in laid.stdout, laid.stdout
    names = ["pd-prefill-0-0", "pd-prefill-1-0", "pd-decode-0-0"]
    specs = {name: json.loads((folder / f"{name}.json").read_text()) for name in names}
    shards: list[Shard] = []
    router: Router | None = None
    try:
        for name in names:
            shards.append(Shard(tmp_path, name, specs[name], config, env))
        deadline = time.monotonic() + WAIT
        for shard in shards:
            shard.wait_ready(deadline)
        real = ROUTER if protocol == "vllm" else SGLANG_ROUTER
        assert real is not None
        options = ["--port", str(ports["router"]), "--metrics-port", str(ports["metrics"])]
        options += ["--executable", str(recording(tmp_path, real))]
        argv = enginekit(config, "router", *(str(s.source) for s in shards), *options)
        shown = subprocess.run([*argv, "--dry-run"], capture_output=True, text=True, timeout=60, env=env)
        assert shown.returncode == 0, shown.stderr
        # The key of the node's engines is kept from the router; the one it calls the instances
        # with is given to it in OPENAI_API_KEY, the only one its PD mode reads.
        router_env = {**env, "VLLM_API_KEY": KEY, "ENGINEKIT_API_KEY": KEY, "OPENAI_API_KEY": "not-the-key"}
        router = PDRouter(tmp_path, argv, ports["router"], ports["metrics"], router_env)
        router.wait_ready(time.monotonic() + WAIT, workers=3)
        yield PD(shards[:2], shards[2], router, json.loads(shown.stdout)["argv"])
    finally:
        if router is not None:
            router.stop()
        for shard in shards:
            shard.stop()


def completion(url: str, prompt: str, *, stream: bool = False, key: str = "") -> tuple[int, Any]:
    body = {"model": MODEL, "prompt": prompt, "max_tokens": 4, "stream": stream}
    return call(url + "/v1/completions", "POST", body, key)


SPLIT = (
    "enginekit_sim_prefill_computed_tokens_total",
    "enginekit_sim_kv_transfer_tokens_total",
    "enginekit_sim_kv_transfer_served_total",
    "vllm:nixl_xfer_time_seconds_count",
    "vllm:generation_tokens_total",
)


def split(pd: PD, prompt: str, key: str = "") -> dict[str, list[float]]:
    """Send one completion through the router; what each counter of :data:`SPLIT` gained on each instance.

    Whatever the protocol: it is answered with the decode's four tokens; one prefill
    computed the whole prompt and the decode none of it, having read it from that
    prefill's cache, once; the prefill made one token.
    """
    before = {name: pd.counts(name) for name in SPLIT}
    status, body = completion(pd.router.url, prompt, key=key)
    assert status == 200, body
    assert body["choices"][0]["text"]
    assert body["usage"]["completion_tokens"] == 4  # the decode's answer
    gained = {
        name: [now - was for now, was in zip(pd.counts(name), before[name], strict=True)] for name in SPLIT
    }
    computed = gained["enginekit_sim_prefill_computed_tokens_total"]
    assert sorted(computed[:2]) == [0, PROMPT], computed
    assert computed[2] == 0, computed
    assert gained["enginekit_sim_kv_transfer_tokens_total"] == [0, 0, PROMPT]
    assert gained["enginekit_sim_kv_transfer_served_total"] == [1 if c else 0 for c in computed[:2]] + [0]
    assert gained["vllm:generation_tokens_total"] == [c and 1 for c in computed[:2]] + [4]
    return gained


def test_a_completion_is_prefilled_on_a_prefill_instance_and_decoded_from_its_cache(pd: PD) -> None:
    gained = split(pd, words("p", PROMPT))
    # The decode read the prefill's cache over its side channel once: NIXL's transfer time says so.
    assert gained["vllm:nixl_xfer_time_seconds_count"] == [0, 0, 1]
    router = pd.router.metrics()
    assert metric(router, "vllm_router_pd_requests_total", route="/v1/completions") >= 1
    assert metric(router, "vllm_router_pd_decode_requests_total") >= 1


def test_requests_take_turns_on_the_prefill_instances_and_streams_come_from_the_decode(pd: PD) -> None:
    before = pd.counts("enginekit_sim_prefill_computed_tokens_total")
    for i in range(4):
        status, body = completion(pd.router.url, words(f"r{i}w", PROMPT))
        assert status == 200, body
    after = pd.counts("enginekit_sim_prefill_computed_tokens_total")
    assert [a - b for a, b in zip(after, before, strict=True)] == [2 * PROMPT, 2 * PROMPT, 0]
    status, text = completion(pd.router.url, words("s", PROMPT), stream=True)
    assert status == 200
    assert str(text).rstrip().endswith("data: [DONE]"), text
    assert metric(pd.decode.metrics(), "vllm:nixl_xfer_time_seconds_count") == 5


def test_the_key_reaches_the_router_only_in_its_environment_and_the_instances_still_demand_it(pd: PD) -> None:
    assert KEY not in " ".join(pd.argv)
    # As enginekit started it (a stand-in in front of the router recorded it: vllm-router
    # overwrites what /proc shows of both once it runs).
    folder = pd.router.out_file.parent
    assert KEY.encode() not in (folder / "router.argv").read_bytes()
    environ = recorded_environ(folder)
    assert environ.get("OPENAI_API_KEY") == KEY
    assert "VLLM_API_KEY" not in environ
    assert "ENGINEKIT_API_KEY" not in environ
    # An instance asked directly, without the key, refuses.
    assert completion(pd.prefills[0].url, "hello")[0] == 401
    assert completion(pd.decode.url, "hello", key=KEY)[0] == 200


# --- SGLang's protocol: sglang-router in front of simulated SGLang instances -----------------


def test_as_sglang_a_completion_is_prefilled_at_once_and_decoded_from_the_bootstrap_room(
    pd_sglang: PD,
) -> None:
    pd = pd_sglang
    assert pd.argv[1:3] == ["launch", "--pd-disaggregation"]
    split(pd, words("g", PROMPT), key=KEY)
    # sglang-router counts it as a PD request, on its own metrics port.
    assert metric(pd.router.metrics(), "smg_router_requests_total", backend_type="pd") >= 1
    for i in range(3):  # the rooms are the router's own, one per request: each meets its prefill
        status, body = completion(pd.router.url, words(f"h{i}w", PROMPT), stream=i == 2, key=KEY)
        assert status == 200, body
    assert metric(pd.decode.metrics(), "enginekit_sim_kv_transfer_tokens_total") == 4 * PROMPT


def test_as_sglang_the_router_holds_no_key_and_the_instances_check_each_clients(pd_sglang: PD) -> None:
    pd = pd_sglang
    folder = pd.router.out_file.parent
    assert KEY.encode() not in (folder / "router.argv").read_bytes()
    environ = recorded_environ(folder)
    assert environ
    assert KEY not in "".join(environ.values())
    # sglang-router passes the client's Authorization on: without the key, the instances refuse.
    status, _ = completion(pd.router.url, "hello there")
    assert status != 200
    assert completion(pd.router.url, "hello there", key=KEY)[0] == 200
