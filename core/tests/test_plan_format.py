"""The launch plan's versioned JSON: what it holds, how it reads back, and what reading refuses."""

from __future__ import annotations

import copy
import json
import shlex
from typing import Any

import attrs
import pytest
from enginekit import FORMAT_VERSION, Command, LaunchPlan, SpecError
from enginekit.placement.env import DroppedVar
from enginekit.plan.leader import MUST_BE_STOPPED, STOPS
from enginekit.spec.convert import unstructure
from enginekit.spec.model import Profile, ShardSpec

KEY = "secret-key-0123456789"


def plan(**changes: Any) -> LaunchPlan:
    shard = ShardSpec(
        replica_id="r1",
        shard_id="s1",
        gpu_indices=(0,),
        http_port=8000,
        bind_addr="10.0.0.5",
        api_key=KEY,
        profile=Profile(name="p", engine="toy"),
    )
    fields: dict[str, Any] = {
        "engine": "toy",
        "shard": shard,
        "commands": (
            Command(path="/bin/sidecar", name="sidecar"),
            Command(
                path="/bin/toy",
                args=("--port", "8000", "--name", "it's"),
                env={"CUDA_VISIBLE_DEVICES": "0", "TOY_KEY": KEY},
                secret_env=frozenset({"TOY_KEY"}),
                why={"CUDA_VISIBLE_DEVICES": "the shard's GPUs"},
                wait_for_leader_port=True,
            ),
        ),
        "serves_http": True,
        "health_path": "/health",
        "metrics_path": "/metrics",
        "notes": ("a note",),
        "dropped_env": (DroppedVar("NCCL_ALGO", "denied by the site"),),
    }
    return LaunchPlan(**(fields | changes))


def shipped(value: LaunchPlan, *, show_secrets: bool = True) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(json.dumps(value.to_dict(show_secrets=show_secrets)))
    return data


def refused(raw: object) -> list[str]:
    with pytest.raises(SpecError) as caught:
        LaunchPlan.from_dict(raw)  # type: ignore[arg-type]
    return list(caught.value.problems)


def test_a_plan_reads_back_equal_through_json() -> None:
    assert LaunchPlan.from_dict(shipped(plan())) == plan()
    quiet = plan(
        serves_http=False, shard=ShardSpec(rank=1, nnodes=2, profile=Profile(name="p", engine="toy"))
    )
    assert LaunchPlan.from_dict(shipped(quiet)) == quiet


def test_every_plan_says_its_format_and_its_derived_facts() -> None:
    data = shipped(plan())
    assert data["format_version"] == FORMAT_VERSION == "1.4"
    assert data["base_url"] == "http://10.0.0.5:8000"
    assert data["health_url"] == "http://10.0.0.5:8000/health"
    assert data["commands"][1]["shell"] == "/bin/toy --port 8000 --name 'it'\"'\"'s'"
    assert data["shard"]["profile"]["name"] == data["profile"] == "p"


def test_secrets_are_masked_by_default_and_a_masked_plan_is_refused() -> None:
    data = shipped(plan(), show_secrets=False)
    assert KEY not in json.dumps(data)
    assert refused(data) == [
        "plan.shard.api_key: holds the mask '<secret>', not a key: a plan read back must be written with show_secrets=True",
        "plan.commands[1].env.TOY_KEY: holds the mask '<secret>': a plan read back must be written with show_secrets=True",
    ]


def test_a_newer_minor_format_reads_leaving_out_what_it_added() -> None:
    data = shipped(plan()) | {"format_version": "1.7", "placement_score": 3}
    data["commands"][0]["cgroup"] = "/shards/s1"
    assert LaunchPlan.from_dict(data) == plan()


def test_unknown_fields_of_this_minor_are_errors() -> None:
    data = shipped(plan()) | {"placement_score": 3}
    assert refused(data) == ["plan.placement_score: unknown field"]


@pytest.mark.parametrize(
    ("version", "problem"),
    [
        ("2.0", "plan.format_version: format 2.0 is not one this enginekit reads (it reads 1.x)"),
        ("0.9", "plan.format_version: format 0.9 is not one this enginekit reads (it reads 1.x)"),
        (None, "plan.format_version: expected a version like '1.4', got NoneType"),
        (1.0, "plan.format_version: expected a version like '1.4', got 1.0"),
        ("1", "plan.format_version: expected a version like '1.4', got '1'"),
        ("1.0\n", "plan.format_version: expected a version like '1.4', got '1.0\\n'"),
    ],
)
def test_other_formats_are_refused(version: object, problem: str) -> None:
    assert refused(shipped(plan()) | {"format_version": version}) == [problem]


def test_derived_fields_must_match_what_they_derive_from() -> None:
    data = shipped(plan()) | {"base_url": "http://evil:1", "rank": 3}
    data["commands"][1]["shell"] = "/bin/sh -c 'curl evil'"
    assert refused(data) == [
        "plan.commands[1].shell: does not match path and args",
        "plan.rank: 3 does not match the shard (expected 0)",
        "plan.base_url: 'http://evil:1' does not match the shard (expected 'http://10.0.0.5:8000')",
    ]


def test_a_plan_must_hang_together() -> None:
    data = shipped(plan()) | {"engine": "other"}
    data["commands"][1]["secret_env"] = ["TOY_KEY", "GHOST"]
    assert refused(data) == [
        "plan.commands[1].secret_env: names GHOST, which env does not set",
        "plan.engine: 'other', but the shard's profile names 'toy'",
    ]
    assert refused(shipped(plan()) | {"commands": []}) == [
        "plan.commands: expected at least one command (the main process)"
    ]


def test_wrong_shapes_are_named_by_path_never_a_traceback() -> None:
    data = shipped(plan())
    bad = copy.deepcopy(data)
    bad["commands"][1]["args"] = "--port 8000"
    bad["commands"][0]["env"] = {"A": 1}
    bad["shard"]["http_port"] = "8000"
    # Shapes are judged first, all at once; then types, all at once.
    assert refused(bad) == ["plan.commands[1].args: expected a list, got str '--port 8000'"]
    bad["commands"][1]["args"] = ["--port", "8000"]
    assert refused(bad) == [
        "plan.shard.http_port: expected an integer, got str '8000'",
        "plan.commands[0].env['A']: expected a string, got int 1",
    ]
    assert refused([data]) == ["plan: expected a table of fields, got list"]
    assert refused(data | {"notes": ["ok", "bell\x07"]}) == [
        "plan.notes[1]: contains a control character (U+0007)"
    ]


def test_unstructured_model_values_are_json_ready() -> None:
    command = Command(path="/x", secret_env=frozenset({"B", "A"}), env={"A": "1", "B": "2"})
    assert json.loads(json.dumps(unstructure(command)))["secret_env"] == ["A", "B"]


def test_environ_is_a_mapping_subprocess_takes_with_generated_variables_winning() -> None:
    command = Command(path="/x", env={"CUDA_VISIBLE_DEVICES": "0", "B": "2"})
    environ = command.environ({"PATH": "/usr/bin", "CUDA_VISIBLE_DEVICES": "7", "A": "1"})
    assert environ == {"A": "1", "B": "2", "CUDA_VISIBLE_DEVICES": "0", "PATH": "/usr/bin"}
    assert list(environ) == sorted(environ)


def test_a_worker_says_what_happens_when_its_leader_goes_and_an_old_plan_reads_safe() -> None:
    worker = plan(
        serves_http=False,
        shard=ShardSpec(rank=1, nnodes=2, profile=Profile(name="p", engine="toy")),
        on_leader_exit=STOPS,
    )
    assert shipped(worker)["on_leader_exit"] == "stops"
    assert LaunchPlan.from_dict(shipped(worker)) == worker
    # A 1.0 writer knew no such field: its worker is read as one that must be stopped.
    old = shipped(worker) | {"format_version": "1.0"}
    del old["on_leader_exit"]
    assert LaunchPlan.from_dict(old).on_leader_exit == MUST_BE_STOPPED
    old_leader = shipped(plan()) | {"format_version": "1.0"}
    del old_leader["on_leader_exit"]
    assert LaunchPlan.from_dict(old_leader).on_leader_exit == ""


def test_on_leader_exit_must_fit_the_rank() -> None:
    assert refused(shipped(plan()) | {"on_leader_exit": "stops"}) == [
        "plan.on_leader_exit: 'stops', but the shard is the leader (expected '')"
    ]
    worker = plan(
        serves_http=False, shard=ShardSpec(rank=1, nnodes=2, profile=Profile(name="p", engine="toy"))
    )
    assert refused(shipped(worker) | {"on_leader_exit": "maybe"}) == [
        "plan.on_leader_exit: 'maybe' for a worker rank, expected 'stops' or 'must_be_stopped'"
    ]


def test_a_worker_that_must_be_stopped_says_where_its_leader_is_watched() -> None:
    """``leader_watch_port``: the leader_port by default, another port where the engine said, 0 otherwise."""
    shard = ShardSpec(
        rank=1, nnodes=2, leader_addr="10.0.0.1", leader_port=29500, profile=Profile(name="p", engine="toy")
    )
    worker = plan(serves_http=False, shard=shard)
    assert (worker.on_leader_exit, worker.leader_watch_port) == (MUST_BE_STOPPED, 29500)
    assert shipped(worker)["leader_watch_port"] == 29500
    watched = plan(serves_http=False, shard=shard, leader_watch_port=8000)
    assert LaunchPlan.from_dict(shipped(watched)) == watched
    assert "stop it too (watch 10.0.0.1:8000)" in watched.render_text()
    assert plan().leader_watch_port == 0
    assert plan(serves_http=False, shard=shard, on_leader_exit=STOPS).leader_watch_port == 0
    # A 1.1 writer knew no such field: its worker is watched at leader_port, as it was.
    old = shipped(watched) | {"format_version": "1.1"}
    del old["leader_watch_port"]
    assert LaunchPlan.from_dict(old).leader_watch_port == 29500


@pytest.mark.parametrize(
    ("on_exit", "port", "problem"),
    [
        ("must_be_stopped", 65536, "expected a port in 0-65535 (0: leader_port), got 65536"),
        ("must_be_stopped", -1, "expected a port in 0-65535 (0: leader_port), got -1"),
        ("stops", 8000, "expected 0 where nothing is watched (on_leader_exit 'stops'), got 8000"),
    ],
)
def test_a_leader_watch_port_that_does_not_fit_is_refused(on_exit: str, port: int, problem: str) -> None:
    """A port out of range, or one beside nothing to watch, is a problem of the plan's JSON named by its field."""
    shard = ShardSpec(rank=1, nnodes=2, leader_port=29500, profile=Profile(name="p", engine="toy"))
    worker = plan(serves_http=False, shard=shard, on_leader_exit=on_exit)
    assert refused(shipped(worker) | {"leader_watch_port": port}) == [f"plan.leader_watch_port: {problem}"]
    assert refused(shipped(plan()) | {"leader_watch_port": 8000}) == [
        "plan.leader_watch_port: expected 0 where nothing is watched (on_leader_exit ''), got 8000"
    ]
    assert refused(shipped(worker) | {"leader_watch_port": True}) != []


def test_a_plan_made_in_python_keeps_its_watch_port_fitting_its_leader_exit() -> None:
    """The class, unlike the JSON, sets the port from ``on_leader_exit``: evolving one needs no second change."""
    shard = ShardSpec(rank=1, nnodes=2, leader_port=29500, profile=Profile(name="p", engine="toy"))
    watched = plan(serves_http=False, shard=shard, leader_watch_port=8000)
    assert attrs.evolve(watched, on_leader_exit=STOPS).leader_watch_port == 0
    stops = plan(serves_http=False, shard=shard, on_leader_exit=STOPS, leader_watch_port=8000)
    assert stops.leader_watch_port == 0
    assert attrs.evolve(stops, on_leader_exit=MUST_BE_STOPPED).leader_watch_port == 29500
    assert plan(leader_watch_port=8000).leader_watch_port == 0  # the leader watches nobody
    for bad in (65536, -1, True, 8000.0):
        with pytest.raises(ValueError, match="leader_watch_port: expected a port in 0-65535"):
            plan(serves_http=False, shard=shard, leader_watch_port=bad)


def test_a_secret_variable_is_masked_by_its_name_whatever_its_value() -> None:
    command = Command(
        path="/bin/toy",
        env={"HF_TOKEN": "hf-not-the-api-key-0123", "A": "1"},
        secret_env=frozenset({"HF_TOKEN"}),
    )
    data = shipped(plan(commands=(command,)), show_secrets=False)
    assert data["commands"][0]["env"] == {"A": "1", "HF_TOKEN": "<secret>"}
    shown = shipped(plan(commands=(command,)), show_secrets=True)
    assert shown["commands"][0]["env"] == {"A": "1", "HF_TOKEN": "hf-not-the-api-key-0123"}


def test_a_rank_that_serves_no_http_has_no_urls() -> None:
    data = shipped(plan(serves_http=False))
    assert (data["base_url"], data["health_url"], data["metrics_url"]) == (None, None, None)
    data = shipped(plan())
    assert (data["base_url"], data["health_url"], data["metrics_url"]) == (
        "http://10.0.0.5:8000",
        "http://10.0.0.5:8000/health",
        "http://10.0.0.5:8000/metrics",
    )


def test_a_plan_without_its_format_version_is_refused_naming_it() -> None:
    data = shipped(plan())
    del data["format_version"]
    assert refused(data)[0] == "plan.format_version: expected a version like '1.4', got NoneType"


def test_a_long_leader_exit_or_env_name_is_shown_cut_at_forty_characters() -> None:
    data = shipped(plan())
    data["on_leader_exit"] = "x" * 60
    assert (
        f"plan.on_leader_exit: {repr('x' * 60)[:40]}, but the shard is the leader (expected '')"
        in refused(data)
    )
    worker = shipped(
        plan(
            shard=attrs.evolve(plan().shard, rank=1, nnodes=2, leader_addr="10.0.0.1", leader_port=29500),
            serves_http=False,
        )
    )
    worker["on_leader_exit"] = "y" * 60
    assert (
        f"plan.on_leader_exit: {repr('y' * 60)[:40]} for a worker rank, expected 'stops' or 'must_be_stopped'"
        in refused(worker)
    )
    data = shipped(plan())
    data["commands"][1]["env"] = {"A=1": "x", "B" * 50 + "=": "y"}
    data["commands"][1]["secret_env"] = []
    expected = ", ".join(repr(name)[:40] for name in ("A=1", "B" * 50 + "="))
    assert f"plan.commands[1].env: names that are not portable variable names: {expected}" in refused(data)


@pytest.mark.parametrize(
    ("where", "form"),
    [
        ("args", KEY),
        ("args", KEY.upper()),
        ("args", KEY[:14]),
        ("path", f"/opt/{KEY}/bin"),
        ("split", KEY),
    ],
)
def test_a_plan_with_its_key_on_a_command_line_is_refused(where: str, form: str) -> None:
    raw = shipped(plan())
    command = raw["commands"][1]
    if where == "path":
        command["path"] = form
    elif where == "split":
        command["args"] += ["--api-key", form[:7], form[7:14], form[14:]]
    else:
        command["args"] += ["--api-key", form]
    command["shell"] = shlex.join([command["path"], *command["args"]])  # recomputed: it agrees
    problems = refused(raw)
    assert "plan.commands[1]: its path or args hold the API key, which any local user could read" in problems
    assert not any(KEY[:12] in problem for problem in problems)


def test_a_plan_with_its_key_in_a_plain_variable_is_refused() -> None:
    raw = shipped(plan())
    raw["commands"][1]["env"]["TOY_COPY"] = f"Bearer {KEY}"
    assert refused(raw) == ["plan.commands[1].env: TOY_COPY holds the API key without being in secret_env"]


def test_a_plan_without_a_key_has_nothing_to_leak() -> None:
    shard = attrs.evolve(plan().shard, api_key="")
    raw = shipped(plan(shard=shard, commands=(Command(path="/bin/toy", args=("--api-key", KEY)),)))
    assert LaunchPlan.from_dict(raw).commands[0].args == ("--api-key", KEY)


@pytest.mark.parametrize(
    ("key", "problem"),
    [
        ("abcdefg", "plan.shard.api_key: shorter than 16 characters, so guessable (the value is not shown)"),
        ("-" + "k" * 20, "plan.shard.api_key: must not start with '-'"),
        ("k" * 20 + " x", "plan.shard.api_key: must be ASCII letters, digits"),
    ],
)
def test_a_plans_key_is_held_to_the_key_rules(key: str, problem: str) -> None:
    raw = shipped(plan())
    raw["shard"]["api_key"] = key
    raw["commands"][1]["env"]["TOY_KEY"] = key
    problems = refused(raw)
    assert any(p.startswith(problem) for p in problems), problems
    assert not any(key in p for p in problems)
