"""The Engine facade: checks before and after every engine, plans, secrets."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable

import pytest
from enginekit import Command, EngineError, ShardSpec, SpecError, hookimpl
from enginekit.envpolicy import EnvPolicy
from enginekit.ncclenv import placement_env
from enginekit.testing import check_engine, engine_for
from hypothesis import given
from hypothesis import strategies as st

Make = Callable[..., ShardSpec]


class Keyed:
    """An engine that passes the key properly, with a Ray-style sidecar for multi-node."""

    @hookimpl
    def validate(self) -> list[str]:
        return []

    @hookimpl
    def commands(self, shard: ShardSpec) -> list[Command]:
        build = placement_env(shard)
        env = {**build.env, "KEYED_API_KEY": shard.api_key, "KEYED_TUNING": "a"}
        why = {**build.why, "KEYED_API_KEY": "the key", "KEYED_TUNING": "default"}
        main = Command(
            path="keyed",
            args=("--port", str(shard.http_port)),
            env=env,
            why=why,
            secret_env=frozenset({"KEYED_API_KEY"}),
            name="server",
        )
        return [Command(path="sidecar", name="head"), main]

    @hookimpl
    def notes(self) -> list[str]:
        return ["read me"]


class Leaky(Keyed):
    @hookimpl
    def commands(self, shard: ShardSpec) -> list[Command]:
        return [Command(path="leaky", args=(f"--api-key={shard.api_key}",))]


class Nothing(Keyed):
    @hookimpl
    def commands(self) -> list[Command]:
        return []


def test_profile_overrides_apply_to_every_command_after_the_engine(make_shard: Make) -> None:
    spec = make_shard("keyed", profile_env={"VLLM_LOGGING_LEVEL": "DEBUG"})
    head, main = engine_for(Keyed(), "keyed").commands(spec)
    assert head.env == {"VLLM_LOGGING_LEVEL": "DEBUG"}
    assert main.env["VLLM_LOGGING_LEVEL"] == "DEBUG"
    assert main.env["CUDA_VISIBLE_DEVICES"] == "0"
    assert main.why["VLLM_LOGGING_LEVEL"].startswith("set by the profile")


def test_a_profile_cannot_override_what_the_engine_generates(
    make_shard: Make, caplog: pytest.LogCaptureFixture
) -> None:
    # The plan would say one thing (the engine's value and its reason) and run another.
    engine = engine_for(Keyed(), "keyed", policy=EnvPolicy(allow_prefixes=("KEYED_",)))
    spec = make_shard("keyed", profile_env={"KEYED_TUNING": "b", "VLLM_LOGGING_LEVEL": "DEBUG"})
    with caplog.at_level(logging.WARNING, "enginekit"):
        _, main = engine.commands(spec)
    assert main.env["KEYED_TUNING"] == "a"
    assert main.env["VLLM_LOGGING_LEVEL"] == "DEBUG"
    assert "profile 'p': env KEYED_TUNING dropped: reserved: generated for this shard" in caplog.text
    plan = engine.plan(spec)
    assert [(d.key, d.why.split(":")[0]) for d in plan.dropped_env] == [("KEYED_TUNING", "reserved")]


def test_commands_refuses_what_plan_refuses(make_shard: Make) -> None:
    # No second, unchecked way to build: a site's deny list holds for commands() too.
    engine = engine_for(Keyed(), "keyed", policy=EnvPolicy(deny={"VLLM_LOGGING_LEVEL"}))
    spec = make_shard("keyed", profile_env={"VLLM_LOGGING_LEVEL": "DEBUG"})
    with pytest.raises(SpecError) as via_commands:
        engine.commands(spec)
    with pytest.raises(SpecError) as via_plan:
        engine.plan(spec)
    assert via_commands.value.problems == via_plan.value.problems
    assert via_plan.value.problems == ("profile 'p': env VLLM_LOGGING_LEVEL: denied by this site's policy",)


def test_a_bad_spec_never_reaches_the_engine(make_shard: Make) -> None:
    with pytest.raises(SpecError) as err:
        engine_for(Keyed(), "keyed").commands(make_shard("keyed", http_port=0, threads=-1))
    assert len(err.value.problems) == 2


def test_the_key_on_a_command_line_is_refused(make_shard: Make) -> None:
    with pytest.raises(EngineError, match="put the API key on a command line"):
        engine_for(Leaky(), "leaky").commands(make_shard("leaky", api_key="sekrit-0123456789"))


def test_an_engine_returning_nothing_is_an_error(make_shard: Make) -> None:
    with pytest.raises(EngineError, match="returned no commands"):
        engine_for(Nothing(), "nothing").commands(make_shard("nothing"))


def test_plan_validates_first_and_reports_everything(make_shard: Make) -> None:
    with pytest.raises(SpecError) as err:
        engine_for(Keyed(), "keyed").plan(make_shard("keyed", http_port=0, profile_env={"LD_PRELOAD": "x"}))
    assert err.value.problems == (
        "profile 'p': env LD_PRELOAD: denied: the dynamic loader or libc would load code or data from it",
        "shard spec s1: http_port: expected a port in 1-65535, got 0",
    )


KEY = "sk-0123456789abcdef0123456789abcdef"


def test_plan_masks_secrets_unless_asked(make_shard: Make) -> None:
    plan = engine_for(Keyed(), "keyed").plan(make_shard("keyed", api_key=KEY, bind_addr="10.1.2.3"))
    assert KEY not in json.dumps(plan.to_dict())
    assert KEY not in plan.render_text(explain=True)
    assert KEY in json.dumps(plan.to_dict(show_secrets=True))
    assert KEY in plan.render_text(show_secrets=True)
    data = plan.to_dict()
    assert data["health_url"] == "http://10.1.2.3:8000/health"
    assert data["commands"][1]["env"]["KEYED_API_KEY"] == "<secret>"
    assert data["notes"] == ["read me"]


def test_check_engine_accepts_a_well_behaved_engine(make_shard: Make) -> None:
    assert len(check_engine(Keyed(), make_shard("keyed", api_key=KEY))) == 2


keys = st.from_regex(r"[A-Za-z0-9._~+/=:][A-Za-z0-9._~+/=:-]{15,63}", fullmatch=True)


@given(keys, st.integers(1, 65535), st.sampled_from(["", "10.0.0.7", "fd00::7"]))
def test_the_key_never_reaches_argv_or_rendered_output(key: str, port: int, bind: str) -> None:
    spec = ShardSpec(
        profile=__import__("enginekit").Profile(name="p", engine="keyed", model_path="/m"),
        http_port=port,
        api_key=key,
        bind_addr=bind,
        gpu_indices=(0,),
    )
    plan = engine_for(Keyed(), "keyed").plan(spec)
    assert all(key not in arg for c in plan.commands for arg in c.argv())
    assert key not in plan.render_text(explain=True)
    assert key not in json.dumps(plan.to_dict())


class Listing(Keyed):
    @hookimpl
    def device_listing(self) -> Command:
        return Command(path="lister", args=("--list-devices",))

    @hookimpl
    def parse_devices(self, output: str) -> list[str]:
        return output.split()


def test_device_listing_carries_the_shards_placement(make_shard: Make) -> None:
    engine = engine_for(Listing(), "listing")
    assert engine.device_listing() == Command(path="lister", args=("--list-devices",))
    placed = engine.device_listing(make_shard("listing", gpu_indices=(3,)))
    assert placed is not None
    assert placed.env["CUDA_VISIBLE_DEVICES"] == "3"
    assert engine.parse_devices("CUDA0 CUDA1") == ["CUDA0", "CUDA1"]
    with pytest.raises(EngineError, match="never falls back to CPU"):
        engine_for(Keyed(), "keyed").parse_devices("")
    assert engine_for(Keyed(), "keyed").device_listing() is None
