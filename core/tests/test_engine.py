"""The Engine facade: checks before and after every engine, plans, secrets."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable

import pytest
from enginekit import Adapter, Command, EngineError, LaunchPlan, Profile, ShardSpec, SpecError, hookimpl
from enginekit.placement.builder import CommandBuilder
from enginekit.policy.args import ArgSyntax, ParsedArgs
from enginekit.policy.engine import NO_POLICY, EnginePolicy
from enginekit.policy.env import EnvPolicy
from enginekit.testing import check_engine, engine_for
from hypothesis import given
from hypothesis import strategies as st

Make = Callable[..., ShardSpec]


class Keyed:
    """An engine that passes the key properly, with a Ray-style sidecar for multi-node."""

    @hookimpl
    def policy(self) -> EnginePolicy:
        return EnginePolicy(open_env="KEYED_", secret_env="KEYED_API_KEY")

    @hookimpl
    def validate(self) -> list[str]:
        return []

    @hookimpl
    def commands(self, shard: ShardSpec) -> list[Command]:
        build = CommandBuilder(shard)
        head = build.command("sidecar", [], name="head")  # started before the key is put
        build.put_secret("KEYED_API_KEY", shard.api_key, "the key")
        build.put("KEYED_TUNING", "a", "default")
        return [head, build.command("keyed", ["--port", str(shard.http_port)], name="server")]

    @hookimpl
    def notes(self) -> list[str]:
        return ["read me"]


class Leaky(Keyed):
    @hookimpl
    def commands(self, shard: ShardSpec) -> list[Command]:
        return [CommandBuilder(shard).command("leaky", [f"--api-key={shard.api_key}"])]


class Passing(Keyed):
    """An engine that passes the spec's paths and names on its command line, as engines do."""

    @hookimpl
    def commands(self, shard: ShardSpec) -> list[Command]:
        build = CommandBuilder(shard)
        build.put_secret("KEYED_API_KEY", shard.api_key, "the key")
        profile = shard.profile
        adapters = [f"{adapter.name}={adapter.path}" for adapter in profile.adapters]
        argv = [profile.model_path, "--served-model-name", profile.model_name(), "--lora", *adapters]
        return [build.command("passing", [*argv, "--shard", shard.shard_id])]


class Nothing(Keyed):
    @hookimpl
    def commands(self, shard: ShardSpec) -> list[Command]:
        return []


def test_profile_overrides_apply_to_every_command_after_the_engine(make_shard: Make) -> None:
    spec = make_shard("keyed", api_key=KEY, profile_env={"KEYED_LOGGING_LEVEL": "DEBUG"})
    head, main = engine_for(Keyed(), "keyed").commands(spec)
    assert head.env["KEYED_LOGGING_LEVEL"] == "DEBUG"
    assert head.env["CUDA_VISIBLE_DEVICES"] == "0"
    assert "KEYED_API_KEY" not in head.env, "the sidecar was built before the key was put"
    assert head.secret_env == frozenset()
    assert main.env["KEYED_LOGGING_LEVEL"] == "DEBUG"
    assert main.env["CUDA_VISIBLE_DEVICES"] == "0"
    assert main.env["KEYED_API_KEY"] == KEY
    assert main.secret_env == frozenset({"KEYED_API_KEY"})
    assert main.why["KEYED_LOGGING_LEVEL"].startswith("set by the profile")


def test_a_profile_cannot_override_what_the_engine_generates(
    make_shard: Make, caplog: pytest.LogCaptureFixture
) -> None:
    # The plan would say one thing (the engine's value and its reason) and run another.
    engine = engine_for(Keyed(), "keyed")
    spec = make_shard("keyed", profile_env={"KEYED_TUNING": "b", "KEYED_LOGGING_LEVEL": "DEBUG"})
    with caplog.at_level(logging.WARNING, "enginekit"):
        _, main = engine.commands(spec)
    assert main.env["KEYED_TUNING"] == "a"
    assert main.env["KEYED_LOGGING_LEVEL"] == "DEBUG"
    assert "profile 'p': env KEYED_TUNING dropped: reserved: generated for this shard" in caplog.text
    plan = engine.plan(spec)
    assert [(d.key, d.why.split(":")[0]) for d in plan.dropped_env] == [("KEYED_TUNING", "reserved")]


def test_commands_refuses_what_plan_refuses(make_shard: Make) -> None:
    # No second, unchecked way to build: a site's deny list holds for commands() too.
    engine = engine_for(Keyed(), "keyed", policy=EnvPolicy(deny={"KEYED_LOGGING_LEVEL"}))
    spec = make_shard("keyed", profile_env={"KEYED_LOGGING_LEVEL": "DEBUG"})
    with pytest.raises(SpecError) as via_commands:
        engine.commands(spec)
    with pytest.raises(SpecError) as via_plan:
        engine.plan(spec)
    assert via_commands.value.problems == via_plan.value.problems
    assert via_plan.value.problems == ("profile 'p': env KEYED_LOGGING_LEVEL: denied by this site's policy",)


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


# --- the registry's checks on every command: placement kept, secrets declared -----------------


class Forgetful(Keyed):
    """Builds its command by hand and forgets the placement variables."""

    @hookimpl
    def commands(self, shard: ShardSpec) -> list[Command]:
        return [Command(path="forgetful", args=("--port", str(shard.http_port)), name="server")]


class ForgetsInTheSidecar(Keyed):
    @hookimpl
    def commands(self, shard: ShardSpec) -> list[Command]:
        build = CommandBuilder(shard)
        return [build.command("main", []), Command(path="/opt/sidecar", env={"CUDA_VISIBLE_DEVICES": "0"})]


class Repoints(Keyed):
    """Keeps every placement variable but points the engine at another GPU."""

    @hookimpl
    def commands(self, shard: ShardSpec) -> list[Command]:
        build = CommandBuilder(shard).put("CUDA_VISIBLE_DEVICES", "1", "my favourite card")
        return [build.command("repoints", [], name="server")]


class Removes(Keyed):
    @hookimpl
    def commands(self, shard: ShardSpec) -> list[Command]:
        return [CommandBuilder(shard).remove("CUDA_DEVICE_ORDER").command("removes", [], name="server")]


@pytest.mark.parametrize(
    ("plugin", "where", "variable"),
    [
        (Forgetful(), "command 0 (server) without", "CUDA_VISIBLE_DEVICES"),
        (ForgetsInTheSidecar(), "command 1 (/opt/sidecar) without", "CUDA_DEVICE_ORDER"),
        (Repoints(), "command 0 (server) with a changed value of", "CUDA_VISIBLE_DEVICES"),
        (Removes(), "command 0 (server) without", "CUDA_DEVICE_ORDER"),
    ],
    ids=["forgotten", "forgotten-in-a-sidecar", "changed", "removed"],
)
def test_a_command_without_the_shards_placement_variables_is_refused(
    make_shard: Make, plugin: Keyed, where: str, variable: str
) -> None:
    # Without them the engine takes GPUs or NICs another shard holds.
    engine = engine_for(plugin, "careless")
    message = (
        f"engine 'careless' (added in process): hook commands() returned {where} the "
        f"shard's placement variable {variable}; build commands with "
        f"enginekit.plugin.CommandBuilder, which keeps them as generated"
    )
    for build in (engine.commands, engine.plan):
        with pytest.raises(EngineError) as err:
            build(make_shard("careless"))
        assert str(err.value) == message


def test_a_profile_restoring_a_forgotten_placement_variable_does_not_make_the_command_pass(
    make_shard: Make,
) -> None:
    # Checked on what the engine returned, before the profile's env is applied (which may
    # not set placement variables anyway).
    with pytest.raises(EngineError, match="placement variable CUDA_VISIBLE_DEVICES"):
        engine_for(Forgetful(), "careless").plan(make_shard("careless", profile_env={"NCCL_IB_DISABLE": "1"}))


class Undeclared(Keyed):
    """Marks its key as a secret but declares no secret_env: profiles could set it."""

    @hookimpl
    def policy(self) -> EnginePolicy:
        return EnginePolicy(open_env="KEYED_")


def test_a_secret_variable_the_policy_does_not_declare_is_refused(make_shard: Make) -> None:
    engine = engine_for(Undeclared(), "undeclared")
    with pytest.raises(EngineError) as err:
        engine.plan(make_shard("undeclared", api_key=KEY))
    assert str(err.value) == (
        "engine 'undeclared' (added in process): hook commands() returned command 1 (server) with "
        "secret variables ['KEYED_API_KEY'] its policy() does not declare in secret_env, so profiles "
        "are not kept from setting them"
    )
    assert KEY not in str(err.value)
    # Without a key there is no secret variable, and nothing to declare.
    assert len(engine.plan(make_shard("undeclared")).commands) == 2


def test_a_declared_secret_variable_is_kept_from_every_profile(make_shard: Make) -> None:
    engine = engine_for(
        Keyed(), "keyed", policy=EnvPolicy(allow={"KEYED_API_KEY"}, allow_unsafe={"KEYED_API_KEY": "please"})
    )
    [problem] = engine.validate(make_shard("keyed", profile_env={"keyed_api_key": "mine"}).profile)
    assert problem == (
        "profile 'p': env keyed_api_key: reserved by the engine: generated for the shard, or carries its secret"
    )


class Validating:
    """Records what its validate hook was given."""

    seen: list[object]

    def __init__(self) -> None:
        self.seen = []

    @hookimpl
    def policy(self) -> EnginePolicy:
        return EnginePolicy(
            open_env="KEYED_",
            secret_env="KEYED_API_KEY",
            syntax=ArgSyntax(known={"--seed", "--port", "--trust-remote-code"}),
            arity={"--seed": 1, "--port": 1, "--trust-remote-code": 0},
            managed_args={"--port": "enginekit sets it"},
            risky_args={"--trust-remote-code": "runs code from the model"},
            display_name="Keyed",
        )

    @hookimpl
    def validate(self, args: ParsedArgs) -> list[str]:
        self.seen.append(args)
        return [f"profile 'p': args: seed {value} is unlucky" for value in args.values("--seed")]

    @hookimpl
    def commands(self, shard: ShardSpec) -> list[Command]:
        return [CommandBuilder(shard).command("keyed", [])]


def test_the_policys_arg_checks_run_before_the_engines_own_and_validate_gets_the_parsed_args(
    make_shard: Make,
) -> None:
    plugin = Validating()
    engine = engine_for(plugin, "keyed")
    args = ("stray", "--port", "1", "--trust-remote-code", "--se", "13")
    problems = engine.validate(make_shard("keyed", profile_args=args).profile)
    assert [problem.split(":")[1].strip() for problem in problems] == ["args[0]", "args", "args", "args"]
    assert "so Keyed would read it as a positional argument" in problems[0]
    assert "'--port' sets --port, which enginekit manages" in problems[1]
    assert "engines.keyed.allow_args" in problems[2]
    assert problems[3] == "profile 'p': args: seed 13 is unlucky"
    [parsed] = plugin.seen
    assert isinstance(parsed, ParsedArgs)
    assert parsed.tokens == args
    assert parsed.syntax is engine.policy.syntax


def test_the_policy_hook_is_asked_once(make_shard: Make) -> None:
    asked: list[int] = []

    class Counted(Keyed):
        @hookimpl
        def policy(self) -> EnginePolicy:
            asked.append(1)
            return EnginePolicy(open_env="KEYED_", secret_env="KEYED_API_KEY")

    engine = engine_for(Counted(), "keyed")
    for _ in range(3):
        engine.plan(make_shard("keyed", api_key=KEY, profile_env={"KEYED_X": "1"}))
    assert asked == [1]


def test_an_engine_without_a_policy_opens_nothing_and_declares_no_secret(make_shard: Make) -> None:
    class Bare:
        @hookimpl
        def validate(self) -> list[str]:
            return []

        @hookimpl
        def commands(self, shard: ShardSpec) -> list[Command]:
            return [CommandBuilder(shard).command("bare", [])]

    engine = engine_for(Bare(), "bare")
    assert engine.policy is NO_POLICY
    assert engine.validate(make_shard("bare", profile_env={"BARE_X": "1"}).profile) == [
        "profile 'p': env BARE_X: unknown: not in a namespace this site opens to profiles"
    ]
    [command] = engine.commands(make_shard("bare", profile_env={"NCCL_ALGO": "Ring"}))
    assert command.env["NCCL_ALGO"] == "Ring"


def test_a_worker_waiting_for_an_ipv6_leader_is_shown_with_the_address_in_brackets() -> None:
    shard = ShardSpec(
        rank=1,
        nnodes=2,
        leader_addr="fd00::1",
        leader_port=29600,
        gpu_indices=(0,),
        profile=Profile(name="p", engine="test", nodes=2),
    )
    plan = LaunchPlan(
        engine="test",
        shard=shard,
        commands=(Command(path="worker", wait_for_leader_port=True),),
        serves_http=False,
        health_path="/health",
        metrics_path="/metrics",
    )
    assert "  waits until [fd00::1]:29600 accepts connections" in plan.render_text()


@pytest.mark.parametrize(
    ("fields", "named"),
    [
        (
            {"profile_model_path": f"/models/{KEY}"},
            "profile.model_path holds the API key; engine 'passing' passes it",
        ),
        (
            {
                "profile_adapters": (
                    Adapter(name="a", path="/adapters/a"),
                    Adapter(name="b", path=f"s3://{KEY}/b"),
                )
            },
            "profile.adapters[1].path holds the API key; engine 'passing' passes it",
        ),
        ({"shard_id": f"s-{KEY}"}, "shard_id holds the API key; engine 'passing' passes it"),
        (
            {"profile_model_path": KEY, "profile_served_model_name": f"{KEY}-chat"},
            "profile.model_path and profile.served_model_name hold the API key; engine 'passing' passes them",
        ),
    ],
    ids=["model_path", "adapter path", "shard field", "two fields"],
)
def test_a_key_pasted_into_a_field_on_the_command_line_is_the_spec_s_to_fix(
    make_shard: Make, fields: dict[str, object], named: str
) -> None:
    spec = make_shard("passing", api_key=KEY, **fields)
    engine = engine_for(Passing(), "passing")
    with pytest.raises(EngineError) as caught:
        engine.commands(spec)
    message = str(caught.value)
    assert message.startswith(
        named + " on a command line, which any local user can read: take the key out of"
    )
    assert message.endswith("(the engine gets it only in its environment, from api_key); refusing it")
    assert "put the API key" not in message, "the engine did nothing wrong"
    assert KEY not in message
    with pytest.raises(EngineError) as planned:
        engine.plan(spec)
    assert str(planned.value) == message


def test_a_key_split_over_the_profile_s_args_names_the_args(make_shard: Make) -> None:
    class Passes(Keyed):
        @hookimpl
        def commands(self, shard: ShardSpec) -> list[Command]:
            return [CommandBuilder(shard).command("passes", list(shard.profile.args))]

    # Each piece shorter than a run the masking recognises: only the whole list holds it.
    pieces = tuple(KEY[i : i + 8] for i in range(0, len(KEY), 8))
    spec = make_shard("passes", api_key=KEY, profile_args=("--token", *pieces))
    with pytest.raises(EngineError, match=r"^profile\.args holds the API key; engine 'passes' passes it"):
        engine_for(Passes(), "passes").commands(spec)


def test_the_profile_s_variables_are_never_named_they_never_reach_a_command_line(make_shard: Make) -> None:
    # enginekit puts them in the environment itself: a key there does not explain an argv.
    spec = make_shard("passing", api_key=KEY, profile_model_path=f"/m/{KEY}", profile_env={"KEYED_NOTE": KEY})
    with pytest.raises(
        EngineError, match=r"^profile\.model_path holds the API key; engine 'passing' passes it "
    ):
        engine_for(Passing(), "passing").commands(spec)
