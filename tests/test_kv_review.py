"""KV-event wiring and ``enginekit router`` attacked: a hostile control plane, a careless operator, a copied key."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from enginekit.cli import main

KEY = "sk-review-0123456789abcdef"


def spec(n: int = 0, /, **fields: Any) -> dict[str, Any]:
    """A simulated API server on loopback, publishing KV events bound on its own two ports."""
    profile = {
        "name": "tiny",
        "engine": "sim",
        "model_path": "/models/tiny",
        "served_model_name": "tiny",
        "tp": 1,
        "kv_events": True,
        "args": ["--enable-scale-out"],
        **fields.pop("profile", {}),
    }
    return {
        "replica_id": f"r{n}",
        "shard_id": f"r{n}-0",
        "bind_addr": "127.0.0.1",
        "http_port": 8100 + n,
        "kv_events_port": 5557 + 10 * n,
        "gpu_indices": [0],
        "api_key": KEY,
        "profile": profile,
        **fields,
    }


def written(folder: Path, *specs: dict[str, Any]) -> list[str]:
    paths = []
    for i, one in enumerate(specs):
        path = folder / f"spec{i}.json"
        path.write_text(json.dumps(one))
        paths.append(str(path))
    return paths


# enginekit router: the key -----------------------------------------------------------------


def test_a_copy_of_a_workers_key_under_any_name_is_kept_from_the_router(tmp_path: Path) -> None:
    """The router's environment holds no key: neither the engines' key variables nor a copy of a worker's key.

    ``enginekit probe`` already drops any variable whose value holds the shard's key, in
    any case; the router, which starts with the operator's whole environment, must too: a
    client's ``OPENAI_API_KEY`` in the same shell is the workers' key.
    """
    dumped = tmp_path / "env.json"
    router = tmp_path / "fake-router"
    router.write_text(
        f"#!{sys.executable}\nimport json, os\njson.dump(dict(os.environ), open({str(dumped)!r}, 'w'))\n"
    )
    router.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k != "ENGINEKIT_CONFIG"}
    env |= {"OPENAI_API_KEY": KEY, "MY_COPY": f"Bearer {KEY.upper()}", "HARMLESS": "kept"}
    args = [*written(tmp_path, spec(0), spec(1)), "--port", "30000", "--metrics-port", "30001"]
    shown = subprocess.run(
        [sys.executable, "-m", "enginekit", "router", *args, "--dry-run"],
        capture_output=True, text=True, timeout=60, env=env,
    )  # fmt: skip
    assert shown.returncode == 0, shown.stderr
    assert {"OPENAI_API_KEY", "MY_COPY"} <= set(json.loads(shown.stdout)["removed_env"])
    started = subprocess.run(
        [sys.executable, "-m", "enginekit", "router", *args, "--executable", str(router)],
        capture_output=True, text=True, timeout=60, env=env,
    )  # fmt: skip
    assert started.returncode == 0, started.stderr
    seen = json.loads(dumped.read_text())
    assert seen["HARMLESS"] == "kept"  # the router ran, with the operator's environment
    assert "OPENAI_API_KEY" not in seen
    assert "MY_COPY" not in seen
    assert not [name for name, value in seen.items() if KEY in value or KEY.upper() in value]


# enginekit router: options ------------------------------------------------------------------


def test_an_empty_executable_is_unusable_input_not_a_bug(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (path,) = written(tmp_path, spec())
    code = main(["router", path, "--port", "30000", "--metrics-port", "30001", "--executable", ""], {})
    _, err = capsys.readouterr()
    assert code == 2, err
    assert "internal error" not in err
    assert "--executable" in err


@pytest.mark.parametrize("host", ["", "a b", "--api-key=x", "http://127.0.0.1"])
def test_a_router_host_that_is_no_address_is_refused(
    host: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # vllm-router reads `--host --api-key=x` as two options, and '' as no address at all.
    (path,) = written(tmp_path, spec())
    code = main(
        ["router", path, "--port", "30000", "--metrics-port", "30001", f"--host={host}", "--dry-run"], {}
    )
    out, err = capsys.readouterr()
    assert code == 1, out
    assert "router host" in err


# A plan read back: its kv_events -------------------------------------------------------------


def sim_plan(**fields: Any) -> dict[str, Any]:
    from enginekit import load_spec
    from enginekit.testing import engine_for
    from enginekit_sim.plugin import SimEngine

    shard = load_spec(spec(**fields)).spec
    return engine_for(SimEngine(), "sim").plan(shard).to_dict(show_secrets=True)


def read_problems(data: dict[str, Any]) -> list[str]:
    from enginekit import LaunchPlan
    from enginekit.base.errors import SpecError

    try:
        LaunchPlan.from_dict(json.loads(json.dumps(data)))
    except SpecError as exc:
        return list(exc.problems)
    return []


def test_a_plan_read_back_lists_each_rank_once() -> None:
    # vllm-router reads URL=ENDPOINT,ENDPOINT as one endpoint per data-parallel rank, in order:
    # two entries for rank 0 are a second rank the shard does not have.
    data = sim_plan()
    (source,) = data["kv_events"]
    assert read_problems(data) == []
    data["kv_events"] = [source, source]
    assert read_problems(data)
    data["kv_events"] = [source] * 100_000
    problems = read_problems(data)
    assert problems
    assert len(problems) < 5, "one problem for the list, not one per entry"


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda shard: shard.update(kv_events_mode="connect"), "kv_events_mode"),
        (lambda shard: shard.update(kv_events_port=0), "kv_events_port"),
        (lambda shard: shard["profile"].update(kv_events=False), "kv_events"),
    ],
)
def test_a_plan_read_back_names_no_source_for_a_shard_that_binds_none(change: Any, field: str) -> None:
    # docs/plan-format.md: kv_events is empty when the publishers connect, or publish nothing.
    data = sim_plan()
    assert data["kv_events"]
    change(data["shard"])
    problems = read_problems(data)
    assert any(p.startswith("plan.kv_events") and field in p for p in problems), problems


# Where the plan sends subscribers, and what the publisher binds -----------------------------


@pytest.mark.parametrize(
    "fields",
    [
        {"bind_addr": "fd00::7"},
        {"bind_addr": "::1"},
        # Listening everywhere, the first node's consumers are sent to the leader's address.
        {"bind_addr": "", "leader_addr": "fd00::1"},
        {"bind_addr": "::", "leader_addr": "fd00::1"},
    ],
)
def test_a_binding_publisher_is_never_advertised_at_an_ipv6_address(
    fields: dict[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """vLLM, SGLang and the sim bind ``tcp://*:PORT`` without ZMQ's IPV6 option: IPv4 only.

    The plan's kv_events said ``tcp://[fd00::7]:5557``, where nothing listens: a router
    subscribing there gets nothing, and routes blind without a word. Refused, naming the field.
    """
    (path,) = written(tmp_path, spec(**fields))
    code = main(["render", path, "--json"], {})
    out, err = capsys.readouterr()
    assert code == 1, out
    field = "bind_addr" if "leader_addr" not in fields else "leader_addr"
    assert f"{field}: " in err
    assert "kv_events_mode 'connect'" in err
    connecting = spec(**fields, kv_events_mode="connect")
    (path,) = written(tmp_path, connecting)
    assert main(["render", path, "--json"], {}) == 0, capsys.readouterr().err


def test_a_zmq_publisher_bound_on_the_wildcard_is_not_reached_over_ipv6() -> None:
    # What the rule stands on: the endpoint vLLM and the sim are given, as they bind it.
    import socket

    import zmq

    with socket.socket(socket.AF_INET6) as probe:
        try:
            probe.bind(("::1", 0))
        except OSError:
            pytest.skip("no IPv6 loopback here")
    context = zmq.Context()
    try:
        publisher = context.socket(zmq.PUB)
        port = publisher.bind_to_random_port("tcp://*")
        subscriber = context.socket(zmq.SUB)
        subscriber.setsockopt(zmq.IPV6, 1)
        subscriber.setsockopt(zmq.SUBSCRIBE, b"")
        subscriber.connect(f"tcp://[::1]:{port}")
        for _ in range(10):
            publisher.send(b"batch")
            if subscriber.poll(50):
                break
        assert not subscriber.poll(0), "tcp://* is IPv4 only without zmq.IPV6"
    finally:
        context.destroy(linger=0)


# The router's block size against the workers' ------------------------------------------------


@pytest.mark.parametrize(
    ("worker_args", "router", "refused"),
    [
        # The sim renders its node config's --block-size 16; a profile's own comes after it, and wins.
        ([], "16", False),
        ([], "8", True),
        (["--block-size", "8"], "8", False),
        (["--block-size=8"], "16", True),
        (["--block-size", "32", "--block-size", "8"], "32", True),
    ],
)
def test_a_router_hashing_blocks_of_another_size_than_its_workers_is_refused(
    worker_args: list[str], router: str, refused: bool, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """With another block size the router matches no block, and says nothing (docs/kv-events.md).

    Where the worker's command says its block size, enginekit knows it: a router given
    another is refused, as a worker without --enable-scale-out is.
    """
    profile = {"args": ["--enable-scale-out", *worker_args]}
    paths = written(tmp_path, spec(0, profile=profile), spec(1, profile=profile))
    argv = [
        "router",
        *paths,
        "--port",
        "30000",
        "--metrics-port",
        "30001",
        "--block-size",
        router,
        "--dry-run",
    ]
    code = main(argv, {})
    out, err = capsys.readouterr()
    if refused:
        assert code == 1, out
        assert "block size" in err
    else:
        assert code == 0, err
        assert json.loads(out)["argv"][-3] == router  # --kv-event-block-size N --kv-event-model tiny


# Found and not fixed here: each needs a decision beyond a small fix --------------------------


def test_a_loopback_shard_s_plan_says_its_publisher_binds_every_address(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """vLLM binds a publisher only on a wildcard endpoint: a loopback shard's events are on every address.

    Decided: not refused (a router on the same machine is the common case, and it needs the
    events bound), and not silently switched to 'connect' (nobody would listen); the plan says
    so, and docs/security.md and docs/kv-events.md tell the operator to keep the port off
    untrusted networks or use kv_events_mode 'connect'.
    """
    (path,) = written(tmp_path, spec())  # bind_addr 127.0.0.1: the API on loopback only
    assert main(["render", path, "--json"], {}) == 0
    plan = json.loads(capsys.readouterr()[0])
    args = plan["commands"][-1]["args"]
    assert json.loads(args[args.index("--kv-events-config") + 1])["endpoint"].startswith("tcp://*:")
    (note,) = [n for n in plan["notes"] if n.startswith("KV-cache events: the publisher binds")]
    assert "on every address" in note
    assert "keep the port from untrusted networks" in note


@pytest.mark.parametrize("taken", [("--port", "8100"), ("--metrics-port", "5558"), ("--port", "5557")])
def test_a_router_port_a_worker_on_this_host_listens_on_is_refused(
    taken: tuple[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (path,) = written(tmp_path, spec())  # HTTP 127.0.0.1:8100, events *:5557, replay 127.0.0.1:5558
    options = {"--port": "30000", "--metrics-port": "30001", taken[0]: taken[1]}
    code = main(["router", path, *[x for kv in options.items() for x in kv], "--dry-run"], {})
    capsys.readouterr()
    assert code == 1


@pytest.mark.xfail(
    strict=True,
    reason="the layout checks listeners per node address, but a publisher bound on tcp://* takes the "
    "port on every address: two nodes on loopback addresses of one machine (examples/replicas/"
    "sim-dp.toml's way) whose rank ranges overlap collide at start, unrefused",
)
def test_two_loopback_nodes_whose_wildcard_publishers_overlap_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    replica = {
        "replica_id": "dp",
        "leader_port": 29650,
        "http_port": 8200,
        "placement": {"gpu_indices": [0, 1]},
        # Node 0's ranks 0-1 bind *:5557-5558; node 1's ranks 2-3 bind *:5555+2 and *:5555+3.
        "nodes": [
            {"addr": "127.0.0.2", "kv_events_port": 5557},
            {"addr": "127.0.0.3", "kv_events_port": 5555},
        ],
        "profile": {
            "name": "dp4",
            "engine": "sim",
            "model_path": "/models/tiny",
            "tp": 1,
            "dp": 4,
            "nodes": 2,
            "gpus_per_node": 2,
            "kv_events": True,
        },
    }
    path = tmp_path / "replica.json"
    path.write_text(json.dumps(replica))
    code = main(["layout", str(path)], {})
    out, err = capsys.readouterr()
    assert "kv-events 5557-5558" in out  # both nodes: the same wildcard ports
    assert code == 1, err
