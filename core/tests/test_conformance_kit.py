"""The conformance kit: a well-behaved engine passes it, and each check fails an engine that breaks its rule."""

from __future__ import annotations

import builtins
import contextlib
import itertools
import os
import shutil
import socket
import subprocess
import sys
import textwrap
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, ClassVar

import attrs
import pytest
from enginekit import Command, EngineError, Profile, ShardSpec, hookimpl
from enginekit.base.errors import SpecError
from enginekit.placement.builder import CommandBuilder, leader_endpoint, node_ip
from enginekit.policy.args import ArgSyntax, ParsedArgs
from enginekit.policy.checks import validate_common
from enginekit.policy.engine import EnginePolicy, EnvDeny
from enginekit.policy.env import EnvPolicy
from enginekit.spec.convert import structure, unstructure
from enginekit.spec.rules import check_spec
from enginekit.testing import (
    SHAPES,
    TEST_API_KEY,
    EngineConformance,
    assert_env_denied,
    check_engine,
    engine_for,
    env_verdict,
    example_shard,
    forbid_side_effects,
    make_cpu,
    make_kv_events,
    make_lora,
    make_mig,
    make_multi_node,
    make_profile,
    make_replica,
    make_shard,
)
from enginekit.testing import conformance as kit_module
from enginekit.testing.strategies import KEY_ALPHABET, api_keys, shards
from hypothesis import given, settings

pytest_plugins = ["pytester"]

KEY_VAR = "TINY_API_KEY"


@attrs.frozen
class TinyConfig:
    """The tiny engine's config section."""

    binary: str = "tiny"
    threads: int = 0
    extra_flags: tuple[str, ...] = ()


class Tiny:
    """A well-behaved engine: a policy, CommandBuilder, and a head sidecar on a multi-node leader."""

    config_type: ClassVar[type[TinyConfig]] = TinyConfig

    def __init__(self, config: TinyConfig = TinyConfig()) -> None:
        self.config = config

    @hookimpl
    def policy(self) -> EnginePolicy:
        return EnginePolicy(
            open_env=("TINY_",),
            reserved_env={"TINY_HOST_IP"},
            secret_env={KEY_VAR},
            syntax=ArgSyntax(known={"--quantization", "--seed"}),
            display_name="tiny",
        )

    @hookimpl
    def validate(self, profile: Profile, args: ParsedArgs) -> list[str]:
        return [
            f"profile {profile.name!r}: args: --quantization {value!r} is not one tiny knows (fp8, awq)"
            for value in args.values("--quantization")
            if value not in {"fp8", "awq"}
        ]

    def server_args(self, shard: ShardSpec) -> list[str]:
        profile = shard.profile
        args = ["serve", profile.model_path, "--tp", str(profile.tp), "--pp", str(profile.pipeline_degree)]
        if shard.is_multi_node():
            args += ["--rendezvous", leader_endpoint(shard), "--rank", str(shard.rank)]
        if shard.is_leader():
            args += ["--host", shard.host(), "--port", str(shard.http_port)]
        for adapter in profile.adapters:
            args += ["--lora", f"{adapter.name}={adapter.path}"]
        if profile.kv_events and shard.kv_events_port:
            args += ["--kv-events", f"tcp://127.0.0.1:{shard.kv_events_port}"]
        if shard.threads:
            args += ["--threads", str(shard.threads)]
        return [*args, *self.config.extra_flags, *profile.args]

    @hookimpl
    def commands(self, shard: ShardSpec) -> list[Command]:
        build = CommandBuilder(shard)
        ip = node_ip(shard)
        if ip:
            build.put("TINY_HOST_IP", ip, "the node's own address, for the rendezvous")
        commands = []
        if shard.is_multi_node() and shard.is_leader():
            commands.append(
                build.command(self.config.binary, ["head", "--port", str(shard.leader_port)], name="head")
            )
        build.put_secret(KEY_VAR, shard.api_key)
        # The server waits for the head: the leader's own, started above, or the leader's.
        waits = shard.is_multi_node()
        commands.append(
            build.command(
                self.config.binary, self.server_args(shard), name="server", wait_for_leader_port=waits
            )
        )
        return commands


# -- broken engines, each breaking one rule -----------------------------------------


class EnvReader(Tiny):
    """Reads the machine while planning: ``touch`` says how."""

    touch: ClassVar[Callable[[], object]] = staticmethod(lambda: os.environ.get("HOME"))

    @hookimpl
    def commands(self, shard: ShardSpec) -> list[Command]:
        type(self).touch()
        return super().commands(shard)


class Swallower(Tiny):
    """Reads os.environ and swallows the error: caught all the same."""

    @hookimpl
    def commands(self, shard: ShardSpec) -> list[Command]:
        with contextlib.suppress(BaseException):  # the point of this engine
            os.environ["TINY_HOME"]
        return super().commands(shard)


class Placeless(Tiny):
    """Builds its Command by hand and forgets the placement variables."""

    @hookimpl
    def commands(self, shard: ShardSpec) -> list[Command]:
        env = {KEY_VAR: shard.api_key} if shard.api_key else {}
        return [Command(path="tiny", args=tuple(self.server_args(shard)), env=env, secret_env=frozenset(env))]


class Retuned(Tiny):
    """Changes a placement variable after the builder set it."""

    @hookimpl
    def commands(self, shard: ShardSpec) -> list[Command]:
        return [
            attrs.evolve(c, env={**c.env, "CUDA_DEVICE_ORDER": "FASTEST_FIRST"})
            for c in super().commands(shard)
        ]


class ArgvKey(Tiny):
    """Passes the key as a flag."""

    @hookimpl
    def commands(self, shard: ShardSpec) -> list[Command]:
        *head, last = super().commands(shard)
        return [*head, attrs.evolve(last, args=(*last.args, f"--api-key={shard.api_key}"))]


class SplitKey(Tiny):
    """Passes the key split over two argv elements."""

    @hookimpl
    def commands(self, shard: ShardSpec) -> list[Command]:
        *head, last = super().commands(shard)
        half = len(shard.api_key) // 2
        return [*head, attrs.evolve(last, args=(*last.args, shard.api_key[:half], shard.api_key[half:]))]


class PlainEnvKey(Tiny):
    """Carries the key in a variable it does not mark secret."""

    @hookimpl
    def commands(self, shard: ShardSpec) -> list[Command]:
        build = CommandBuilder(shard)
        build.put("TINY_AUTH", shard.api_key, "the key, shown in every plan")
        return [build.command("tiny", self.server_args(shard))]


class Keyless(Tiny):
    """Never gives the server the key: it would serve without authentication."""

    @hookimpl
    def commands(self, shard: ShardSpec) -> list[Command]:
        return [CommandBuilder(shard).command("tiny", self.server_args(shard))]


class KeylessButSaysSo(Keyless):
    """Has no authentication, and tells the operator so."""

    @hookimpl
    def notes(self) -> list[str]:
        return ["tiny has no authentication: the API key is not enforced, the endpoint is open"]


class Undeclared(Tiny):
    """Marks its key variable secret without declaring it in its policy."""

    @hookimpl
    def policy(self) -> EnginePolicy:
        return EnginePolicy(open_env=("TINY_",))


_COUNTER = itertools.count()


class Nondeterministic(Tiny):
    """A new seed on every plan."""

    @hookimpl
    def commands(self, shard: ShardSpec) -> list[Command]:
        *head, last = super().commands(shard)
        return [*head, attrs.evolve(last, args=(*last.args, "--seed", str(next(_COUNTER))))]


class WorkersServe(Tiny):
    """Says every rank serves HTTP."""

    @hookimpl
    def serves_http(self) -> bool:
        return True


class SelfWaiting(Tiny):
    """A single-node leader whose one command waits for the leader port."""

    @hookimpl
    def commands(self, shard: ShardSpec) -> list[Command]:
        return [attrs.evolve(c, wait_for_leader_port=True) for c in super().commands(shard)]


class Unnamed(Tiny):
    """Returns problems that do not say which profile they are about."""

    @hookimpl
    def validate(self) -> list[str]:
        return ["tensor parallel degree is not supported"]


class NoMig(Tiny):
    """Refuses MIG shards, which the kit is told it supports."""

    @hookimpl
    def commands(self, shard: ShardSpec) -> list[Command]:
        if shard.on_mig():
            raise EngineError("tiny cannot run on a MIG instance")
        return super().commands(shard)


class BadHealth(Tiny):
    """A health path without its leading slash."""

    @hookimpl
    def health_path(self) -> str:
        return "health"


def kit(plugin: object, **attributes: Any) -> EngineConformance:
    """A conformance class for ``plugin`` as engine ``tiny``, instantiated, for calling checks directly."""
    fields = {"plugin": plugin, "engine": "tiny", "max_examples": 5, **attributes}
    return type("Kit", (EngineConformance,), fields)()


def leader() -> ShardSpec:
    return make_multi_node(engine="tiny")


# -- the well-behaved engine passes everything -----------------------------------------


class TestTinyConformance(EngineConformance):
    """The whole suite, as a plugin runs it: a class, its defaults and every shape."""

    plugin = Tiny
    engine = "tiny"

    def invalid_profiles(self) -> Iterable[Profile]:
        return [make_profile(engine="tiny", name="int3", args=("--quantization", "int3"))]


def test_the_core_plan_path_touches_nothing() -> None:
    # The guard covers the registry and the core's checks too: they must be pure for it to work.
    for shape in SHAPES:
        shard = example_shard(shape, "tiny")
        with forbid_side_effects() as touched:
            engine = engine_for(Tiny(), "tiny")
            engine.validate(shard.profile)
            engine.plan(shard)
        assert touched == [], (shape, touched)


def test_check_engine_still_checks_one_shard() -> None:
    commands = check_engine(Tiny(), leader())
    assert [c.name for c in commands] == ["head", "server"]


# -- each check fails the engine that breaks it ------------------------------------


@pytest.mark.parametrize(
    ("touch", "named"),
    [
        (lambda: os.environ.get("HOME"), "os.environ['HOME']"),
        (lambda: os.environ["CUDA_HOME"], "os.environ['CUDA_HOME']"),
        (lambda: dict(os.environ), "iter(os.environ)"),
        (lambda: os.getenv("HOME"), "os.getenv('HOME')"),
        (lambda: subprocess.run(["nvidia-smi"], check=False), "subprocess.run(['nvidia-smi'])"),
        (lambda: subprocess.Popen(["nvidia-smi"]), "subprocess.Popen(['nvidia-smi'])"),
        (lambda: os.system("nvidia-smi"), "os.system('nvidia-smi')"),
        (lambda: open("/etc/hostname"), "open('/etc/hostname')"),  # noqa: SIM115
        (lambda: Path("/opt/tiny/bin/tiny").exists(), "pathlib.Path.exists(PosixPath('/opt/tiny/bin/tiny'))"),
        (lambda: Path("/opt/tiny").is_file(), "pathlib.Path.is_file"),
        (lambda: os.path.exists("/opt/tiny"), "os.path.exists('/opt/tiny')"),
        (lambda: os.stat("/opt/tiny"), "os.stat('/opt/tiny')"),
        (lambda: shutil.which("tiny"), "shutil.which('tiny')"),
        (lambda: socket.gethostname(), "socket.gethostname()"),
        (lambda: socket.socket(), "socket.socket()"),
        (lambda: Path.home(), "pathlib.Path.expanduser(PosixPath('~'))"),
    ],
)
def test_purity_names_what_a_hook_touched(touch: Callable[[], object], named: str) -> None:
    engine = type("Reader", (EnvReader,), {"touch": staticmethod(touch)})
    with pytest.raises(AssertionError, match="is not pure") as failure:
        kit(engine()).check_pure(make_shard(engine="tiny"))
    assert named in str(failure.value)
    assert "hooks must be pure" in str(failure.value)


def test_purity_catches_an_alias_of_os_environ() -> None:
    environ = os.environ  # as ``from os import environ`` binds it

    engine = type("Aliased", (EnvReader,), {"touch": staticmethod(lambda: environ.get("TINY_HOME"))})
    with pytest.raises(AssertionError, match=r"os.environ\['TINY_HOME'\]"):
        kit(engine()).check_pure(make_shard(engine="tiny"))


def test_purity_catches_a_touch_the_hook_swallowed() -> None:
    with pytest.raises(AssertionError, match=r"touched os.environ\['TINY_HOME'\]"):
        kit(Swallower()).check_pure(make_shard(engine="tiny"))


def test_purity_fails_through_the_inherited_test_for_every_shape() -> None:
    conformance = kit(EnvReader())
    for shape in SHAPES:
        with pytest.raises(AssertionError, match=r"is not pure: planning a .*os.environ\['HOME'\]"):
            conformance.test_hooks_are_pure(shape)


def test_forbid_side_effects_restores_everything_and_spares_other_threads() -> None:
    def state() -> tuple[object, ...]:
        return (
            builtins.open,
            os.getenv,
            vars(subprocess.Popen).copy(),
            vars(Path).copy(),
            vars(type(os.environ)).copy(),
        )

    before = state()
    seen: list[object] = []
    with forbid_side_effects() as touched:
        thread = threading.Thread(target=lambda: seen.append(os.environ.get("PATH")))
        thread.start()
        thread.join()
    assert touched == []
    assert seen == [os.environ.get("PATH")]
    assert state() == before
    assert "exists" not in vars(type(Path("/")))  # PosixPath inherits it, before and after


def test_placement_forgotten_is_reported_with_the_variable_and_the_fix() -> None:
    with pytest.raises(AssertionError) as failure:
        kit(Placeless()).check_placement(make_shard(engine="tiny"))
    message = str(failure.value)
    assert "could not plan a valid single-node shard" in message
    assert "placement variable CUDA_VISIBLE_DEVICES" in message
    assert "CommandBuilder" in message


def test_placement_changed_is_reported() -> None:
    with pytest.raises(AssertionError, match="placement variable CUDA_DEVICE_ORDER"):
        kit(Retuned()).test_placement_env_is_kept("cpu")


@pytest.mark.parametrize("engine", [ArgvKey(), SplitKey()])
def test_a_key_in_argv_fails(engine: Tiny) -> None:
    with pytest.raises(AssertionError, match="put the API key on a command line"):
        kit(engine).check_api_key(make_shard(engine="tiny"))
    with pytest.raises(AssertionError, match="put the API key on a command line"):
        kit(engine).test_api_key_never_in_argv("single")


def test_a_key_in_plain_env_fails() -> None:
    # The core refuses the plan (the key in a variable not marked secret is the plugin's
    # leak), and the kit reports that refusal.
    with pytest.raises(AssertionError, match="with the API key in TINY_AUTH, which it does not mark secret"):
        kit(PlainEnvKey()).check_api_key(make_shard(engine="tiny"))


def test_a_server_without_the_key_fails_unless_the_engine_has_no_auth() -> None:
    with pytest.raises(AssertionError, match="no command carries the API key"):
        kit(Keyless()).check_api_key(make_shard(engine="tiny"))
    # An engine without authentication must say so, where the operator reads the plan.
    with pytest.raises(AssertionError, match=r"notes\(\) says nothing: say that the endpoint is open"):
        kit(Keyless(), takes_api_key=False).check_api_key(make_shard(engine="tiny"))
    kit(KeylessButSaysSo(), takes_api_key=False).check_api_key(make_shard(engine="tiny"))


def test_an_undeclared_secret_fails() -> None:
    with pytest.raises(AssertionError, match="does not declare in secret_env"):
        kit(Undeclared()).check_secret_env(make_shard(engine="tiny"))


def test_a_profile_reaching_the_key_variable_fails() -> None:
    # TINY_AUTH carries the key but is not declared: a site that opens it would let a profile
    # set it. The core refuses such a plan before the kit's own check gets to say so.
    with pytest.raises(AssertionError, match="with the API key in TINY_AUTH, which it does not mark secret"):
        kit(PlainEnvKey()).check_protected_env(make_shard(engine="tiny"))


def test_protected_env_holds_for_every_site_opening() -> None:
    conformance = kit(Tiny())
    for shard in (make_shard(engine="tiny"), leader(), make_mig(engine="tiny")):
        conformance.check_protected_env(shard)


def test_nondeterminism_fails() -> None:
    with pytest.raises(AssertionError, match=r"is not deterministic: .* planned twice by one engine .*argv"):
        kit(Nondeterministic()).check_deterministic(make_shard(engine="tiny"))


def test_workers_serving_http_fail() -> None:
    worker = make_multi_node(engine="tiny", rank=1)
    with pytest.raises(AssertionError, match=r"the worker \(rank 1\) of a 2-node replica serves HTTP"):
        kit(WorkersServe()).check_roles(worker)
    with pytest.raises(AssertionError, match="serves HTTP"):
        kit(WorkersServe()).test_only_the_leader_serves_http()


def test_a_leader_waiting_for_itself_fails() -> None:
    with pytest.raises(AssertionError, match="would wait for itself forever"):
        kit(SelfWaiting()).check_roles(make_shard(engine="tiny"))


def test_unnamed_validate_messages_fail() -> None:
    profile = make_profile(engine="tiny", name="big")
    with pytest.raises(AssertionError, match=r"do not start \"profile 'big':\".*tensor parallel degree"):
        kit(Unnamed()).check_validate_messages(profile)
    with pytest.raises(AssertionError, match="validate\\(\\) returned sentences"):
        kit(Unnamed()).test_validate_names_the_profile()


def test_an_invalid_profile_the_engine_accepts_fails() -> None:
    lenient = type(
        "Lenient",
        (EngineConformance,),
        {
            "plugin": Tiny,
            "engine": "tiny",
            "invalid_profiles": lambda self: [make_profile(engine="tiny", name="fine")],
        },
    )
    with pytest.raises(AssertionError, match="lists profile 'fine', but validate\\(\\) accepts it"):
        lenient().test_validate_names_the_profile()


def test_refusing_a_listed_shape_fails_and_an_unlisted_one_is_skipped() -> None:
    with pytest.raises(
        AssertionError, match=r"could not plan a valid single-node shard on a MIG instance: .*MIG"
    ):
        kit(NoMig()).test_plans_valid_shards("mig")
    with pytest.raises(pytest.skip.Exception, match="does not list shape 'mig'"):
        kit(NoMig(), shapes=frozenset({"single"})).test_plans_valid_shards("mig")


def test_adapt_fits_drawn_shards_to_the_engine() -> None:
    def adapt(self: EngineConformance, shard: ShardSpec) -> ShardSpec:
        return attrs.evolve(shard, gpu_uuids=(), gpu_indices=(0,)) if shard.on_mig() else shard

    kit(NoMig(), adapt=adapt).test_plans_valid_shards("mig")


class Listing(Tiny):
    """Falls back to the CPU: lists its devices, and refuses output that is no listing."""

    @hookimpl
    def device_listing(self) -> Command:
        return Command(path="tiny", args=("--list-devices",))

    @hookimpl
    def parse_devices(self, output: str) -> list[str]:
        if not output.startswith("devices:"):
            raise EngineError("not a device listing")
        return output.removeprefix("devices:").split()


def test_the_device_listing_is_parsed_under_the_guard() -> None:
    shard = make_shard(engine="tiny")
    kit(Listing()).check_pure(shard)  # "" is refused, and that is an answer
    kit(Listing(), device_output="devices: CUDA0").check_pure(shard)
    with pytest.raises(AssertionError, match="not a device listing"):
        kit(Listing(), device_output="garbage").check_pure(shard)

    class Probing(Listing):
        @hookimpl
        def parse_devices(self, output: str) -> list[str]:
            return [output, *os.listdir("/dev")]

    with pytest.raises(AssertionError, match=r"touched os.listdir\('/dev'\)"):
        kit(Probing()).check_pure(shard)


def test_a_bad_health_path_fails() -> None:
    with pytest.raises(AssertionError, match="expected a URL path starting with '/'"):
        kit(BadHealth()).check_paths()


def test_an_unavailable_engine_says_how_to_configure_it() -> None:
    class Unavailable(Tiny):
        @hookimpl
        def unavailable(self) -> str:
            return "name the binary in the node config"

    with pytest.raises(AssertionError, match=r"unavailable on this node: name the binary.*plugin = lambda"):
        kit(Unavailable()).check_paths()


def test_a_plugin_class_without_a_default_config_asks_for_a_factory() -> None:
    @attrs.frozen
    class Required:
        binary: str

    class NeedsConfig(Tiny):
        config_type: ClassVar[type] = Required

    with pytest.raises(AssertionError, match=r"cannot be built with its default config .*required field"):
        kit(NeedsConfig).check_paths()


def test_a_class_without_plugin_or_engine_says_what_to_set() -> None:
    bare = type("Bare", (EngineConformance,), {})()
    with pytest.raises(AssertionError, match="set the class attributes 'plugin'"):
        bare.check_paths()


def test_an_unknown_shape_is_refused() -> None:
    with pytest.raises(AssertionError, match=r"shapes: unknown \['multinode'\]"):
        kit(Tiny(), shapes=frozenset({"multinode"})).test_plans_valid_shards("single")


def test_a_plugin_factory_is_called_per_engine() -> None:
    made: list[Tiny] = []

    def factory() -> Tiny:
        made.append(Tiny())
        return made[-1]

    kit(factory).check_deterministic(make_shard(engine="tiny"))
    assert len(made) == 2  # one engine planned twice, and a fresh one


def test_wrong_types_are_refused_with_the_field_named() -> None:
    kit(Tiny()).check_wrong_types(leader())
    raw = unstructure(make_shard(engine="tiny"))
    raw["profile"]["env"] = ["NCCL_DEBUG=INFO"]
    with pytest.raises(SpecError) as failure:
        structure(raw, ShardSpec, path="spec")
    assert "spec.profile.env" in str(failure.value)


def test_the_wrong_types_check_fails_a_traceback_and_an_acceptance(monkeypatch: pytest.MonkeyPatch) -> None:
    conformance = kit(Tiny())
    shard = make_shard(engine="tiny")
    real = kit_module.structure

    def crashes(raw: Any, cls: type, *, path: str) -> Any:
        if raw != kit_module.unstructure(shard):
            raise TypeError("unhashable")
        return real(raw, cls, path=path)

    monkeypatch.setattr(kit_module, "structure", crashes)
    with pytest.raises(AssertionError, match="raised TypeError \\(a traceback\\)"):
        conformance.check_wrong_types(shard)
    monkeypatch.setattr(kit_module, "structure", lambda raw, cls, *, path: (shard, []))
    with pytest.raises(AssertionError, match=r"accepted a wrong type in spec\.profile\.tp"):
        conformance.check_wrong_types(shard)


def test_config_types_are_checked_field_by_field(monkeypatch: pytest.MonkeyPatch) -> None:
    kit(Tiny).check_config_types()
    kit(Tiny()).check_config_types()  # an instance's class says what it takes
    kit(Keyless()).check_config_types()
    monkeypatch.setattr(kit_module, "structure", lambda raw, cls, *, path: (TinyConfig(), []))
    with pytest.raises(AssertionError, match=r"accepted a wrong type in engines\.tiny\.no_such_setting"):
        kit(Tiny).check_config_types()


# -- factories and strategies ------------------------------------------------------------


def test_every_factory_shard_is_valid_and_has_its_shape() -> None:
    shapes = {
        "single": make_shard(engine="tiny"),
        "multi_node": leader(),
        "mig": make_mig(engine="tiny"),
        "cpu": make_cpu(engine="tiny"),
        "lora": make_lora(engine="tiny"),
        "kv_events": make_kv_events(engine="tiny"),
    }
    for shape, shard in shapes.items():
        assert shard == example_shard(shape, "tiny")
        assert check_spec(shard) == [], shape
        assert validate_common(shard.profile, ()) == [], shape
        assert shard.api_key == TEST_API_KEY
    assert shapes["multi_node"].is_multi_node()
    assert shapes["multi_node"].gid_index == 3
    assert shapes["mig"].on_mig()
    assert shapes["cpu"].on_cpu()
    assert shapes["lora"].profile.adapters
    assert shapes["kv_events"].kv_events_port


def test_a_replica_has_every_rank_and_each_binds_its_own_address() -> None:
    for ipv6 in (False, True):
        ranks = make_replica(engine="tiny", nnodes=3, ipv6=ipv6)
        assert [s.rank for s in ranks] == [0, 1, 2]
        assert len({s.bind_addr for s in ranks}) == 3
        assert all(check_spec(s) == [] for s in ranks)
        assert ranks[1].leader_addr == ranks[0].bind_addr


def test_make_shard_follows_the_profile_and_refuses_two_engines() -> None:
    shard = make_shard(make_profile(tp=4, engine="tiny"))
    assert shard.gpu_indices == (0, 1, 2, 3)
    assert check_spec(shard) == []
    assert make_shard(http_port=9000).http_port == 9000
    with pytest.raises(ValueError, match="engine 'vllm' given with a profile for 'tiny'"):
        make_shard(make_profile(engine="tiny"), engine="vllm")
    with pytest.raises(ValueError, match="unknown shape 'gpu'"):
        example_shard("gpu")


@settings(max_examples=200, deadline=None)
@given(shards("tiny"))
def test_every_drawn_shard_passes_the_core_checks(shard: ShardSpec) -> None:
    assert check_spec(shard) == []
    assert validate_common(shard.profile, ()) == []


@pytest.mark.parametrize("shape", SHAPES)
def test_each_shape_draws_its_shape(shape: str) -> None:
    @settings(max_examples=30, deadline=None)
    @given(shards("tiny", shapes={shape}))
    def run(shard: ShardSpec) -> None:
        assert check_spec(shard) == []
        assert validate_common(shard.profile, ()) == []
        assert shard.profile.engine == "tiny"
        assert shard.is_multi_node() == (shape == "multi_node")
        assert shard.on_mig() == (shape == "mig")
        assert shard.on_cpu() == (shape == "cpu")
        assert bool(shard.profile.adapters) == (shape == "lora")
        assert shard.profile.kv_events == (shape == "kv_events") == bool(shard.kv_events_port)

    run()


@given(api_keys())
def test_drawn_keys_are_keys_the_spec_accepts(key: str) -> None:
    assert check_spec(make_shard(api_key=key)) == []
    assert 16 <= len(key) <= 64
    assert "--" not in key
    assert not key.startswith("-")


@given(api_keys(min_size=20, max_size=20))
def test_drawn_keys_are_spelled_from_a_hash_never_from_drawn_text(key: str) -> None:
    # Hypothesis seeds text with the code's constants; a key of them would share a
    # twelve-character run with some argv, and read as a leak.
    assert len(key) == 20
    assert "ENGINEKIT" not in key.upper()
    assert set(key) <= set(KEY_ALPHABET)


def test_strategies_refuse_unknown_shapes() -> None:
    with pytest.raises(ValueError, match=r"unknown \['nope'\]"):
        shards("tiny", shapes={"nope"})
    with pytest.raises(ValueError, match="no shapes"):
        shards("tiny", shapes=())
    shards("tiny", shapes="single")  # one name is one shape


# -- packaging: the plugin, the fixtures, and what imports what --------------------------


def test_the_pytest_plugin_is_installed_under_its_entry_point() -> None:
    from importlib.metadata import entry_points

    (plugin,) = [ep for ep in entry_points(group="pytest11") if ep.name == "enginekit"]
    assert plugin.value == "enginekit.testing.pytest_plugin"


def _python(code: str) -> str:
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, check=True, timeout=120
    )
    return result.stdout.strip()


def test_importing_enginekit_imports_neither_pytest_nor_hypothesis() -> None:
    out = _python(
        """
        import sys
        import enginekit, enginekit.plugin, enginekit.cli
        print(sorted(m for m in sys.modules if m.split(".")[0] in ("pytest", "_pytest", "hypothesis")))
        """
    )
    assert out == "[]"


def test_the_kit_loads_without_hypothesis_until_a_strategy_is_used() -> None:
    out = _python(
        """
        import sys
        sys.modules["hypothesis"] = None  # as if it were not installed
        import enginekit.testing.pytest_plugin
        from enginekit.testing import EngineConformance, make_shard
        print("loaded")
        try:
            import enginekit.testing.strategies
        except ImportError as exc:
            print(exc)

        class Kit(EngineConformance):
            plugin = object()
            engine = "x"

        try:
            Kit().test_plans_valid_shards("single")
        except BaseException as exc:
            print(type(exc).__name__, exc)
        """
    )
    assert out.splitlines() == [
        "loaded",
        "enginekit.testing.strategies needs hypothesis: install it, or enginekit[testing]",
        "Failed the conformance checks need hypothesis: install it, or enginekit[testing]",
    ]


_INNER = """
    from enginekit import EngineError, hookimpl
    from enginekit.plugin import CommandBuilder, EnginePolicy
    from enginekit.testing import EngineConformance


    class Mini:
        @hookimpl
        def policy(self):
            return EnginePolicy(secret_env={"MINI_API_KEY"})

        @hookimpl
        def validate(self, profile):
            where = f"profile {profile.name!r}"
            return [
                *([f"{where}: nodes: mini runs on one node"] if profile.node_count > 1 else []),
                *([f"{where}: adapters: mini loads no LoRA adapter"] if profile.adapters else []),
                *([f"{where}: kv_events: mini publishes no KV-cache events"] if profile.kv_events else []),
            ]

        @hookimpl
        def commands(self, shard):
            if shard.on_mig():
                raise EngineError("mini cannot run on a MIG instance")
            build = CommandBuilder(shard)
            build.put_secret("MINI_API_KEY", shard.api_key)
            {extra}
            return [build.command("mini", ["--port", str(shard.http_port)])]


    class TestMini(EngineConformance):
        plugin = Mini()
        engine = "mini"
        shapes = frozenset({"single", "cpu"})
        max_examples = 3
"""


def test_an_author_runs_the_suite_in_one_class(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_mini=textwrap.dedent(_INNER.replace("{extra}", "")))
    result = pytester.runpytest("-q")
    # 9 checks per shape for the 2 listed shapes (the other 4 skipped); the 4 unlisted
    # shapes refused (the listed cpu skipped there); and 5 more checks, of which the
    # multi-node one and the config one (it takes none) are skipped.
    result.assert_outcomes(passed=9 * 2 + 4 + 3, skipped=9 * 4 + 1 + 2)


def test_a_broken_engine_fails_the_suite_with_the_reason(pytester: pytest.Pytester) -> None:
    source = _INNER.replace("{extra}", 'import os; os.environ.get("MINI_HOME")')
    pytester.makepyfile(test_mini=textwrap.dedent(source))
    result = pytester.runpytest("-q", "-k", "pure")
    result.assert_outcomes(failed=2, skipped=4)
    assert (
        "is not pure: planning a single-node shard on 1 GPU(s), its hooks touched os.environ['MINI_HOME']"
        in (result.stdout.str())
    )


def test_the_plugin_provides_the_factory_fixtures(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_fixtures="""
        from enginekit.spec.rules import check_spec

        def test_fixtures(make_shard, make_profile):
            shard = make_shard(make_profile(engine="mini", tp=2))
            assert shard.gpu_indices == (0, 1) and check_spec(shard) == []
        """
    )
    pytester.runpytest("-q").assert_outcomes(passed=1)


def test_sites_opening_tries_every_way_a_site_opens_a_name() -> None:
    from enginekit.testing import sites_opening

    sites = dict(sites_opening("MYENGINE_API_KEY"))
    assert list(sites) == [
        "the default policy",
        "a site allowing it by name",
        "a site opening its namespace",
        "a site allowing it as unsafe",
    ]
    assert sites["a site allowing it by name"].allow == frozenset({"MYENGINE_API_KEY"})
    assert sites["a site opening its namespace"].allow_prefixes == ("MYENGINE_",)
    assert dict(sites["a site allowing it as unsafe"].allow_unsafe) == {"MYENGINE_API_KEY": "site ticket 7"}
    assert len(sites_opening("MYENGINE_API_KEY", unsafe=False)) == 3


class Denying(Tiny):
    """Tiny with a deny list: a floor group in its open namespace."""

    @hookimpl
    def policy(self) -> EnginePolicy:
        return attrs.evolve(
            super().policy(),
            denied_env=(EnvDeny("tiny would load the plugin named by it", "TINY_PLUGIN_LIB", "TINY_HOOK_"),),
        )


def test_env_verdict_judges_a_name_through_the_engine_under_a_site() -> None:
    assert env_verdict(Tiny(), "tiny", "TINY_LOG_LEVEL") == (False, "")
    assert env_verdict(Tiny(), "tiny", "TINY_LOG_LEVEL", EnvPolicy(deny={"TINY_LOG_LEVEL"})) == (
        True,
        "denied by this site's policy",
    )
    assert env_verdict(Denying(), "tiny", "tiny_plugin_lib") == (
        True,
        "denied: tiny would load the plugin named by it",
    )


@pytest.mark.parametrize("name", ["TINY_PLUGIN_LIB", "TINY_HOOK_ON_START"])
def test_assert_env_denied_passes_for_an_engines_floor_name_and_prefix(name: str) -> None:
    assert_env_denied(Denying(), "tiny", name, "load the plugin", why="it loads code")


def test_assert_env_denied_checks_a_group_that_is_not_a_floor_opens_with_allow() -> None:
    # glibc's numeric allocator tunables: refused by default, opened by a site's allow list.
    assert_env_denied(Tiny(), "tiny", "MALLOC_ARENA_MAX", "allocator", floor=False)
    with pytest.raises(AssertionError, match=r"^MALLOC_ARENA_MAX under a site allowing it by name: expected"):
        assert_env_denied(Tiny(), "tiny", "MALLOC_ARENA_MAX", "allocator")
    with pytest.raises(AssertionError, match=r"^TINY_PLUGIN_LIB is not opened by a site allowing it by name"):
        assert_env_denied(Denying(), "tiny", "TINY_PLUGIN_LIB", "load the plugin", floor=False)


@pytest.mark.parametrize(
    ("plugin", "name", "reason_part", "message"),
    [
        (
            Tiny(),
            "TINY_LOG_LEVEL",
            "load the plugin",
            "TINY_LOG_LEVEL under the default policy: expected a refusal 'denied: …load the plugin…', "
            "but tiny judges it 'acceptable' (a profile could load code)",
        ),
        (
            Denying(),
            "TINY_PLUGIN_LIB",
            "a credential",
            "TINY_PLUGIN_LIB under the default policy: expected a refusal 'denied: …a credential…', "
            "but tiny judges it 'denied: tiny would load the plugin named by it' (a profile could load code)",
        ),
        (
            Tiny(),
            "TINY_HOST_IP",
            "load the plugin",
            "TINY_HOST_IP under the default policy: expected a refusal 'denied: …load the plugin…', but tiny "
            "judges it 'reserved by the engine: generated for the shard, or carries its secret' "
            "(a profile could load code)",
        ),
    ],
    ids=["open", "another-reason", "reserved"],
)
def test_assert_env_denied_fails_naming_the_name_the_site_and_the_reason(
    plugin: object, name: str, reason_part: str, message: str
) -> None:
    with pytest.raises(AssertionError) as failure:
        assert_env_denied(plugin, "tiny", name, reason_part, why="a profile could load code")
    assert str(failure.value).splitlines()[0] == message


@pytest.mark.parametrize("answer", ["yes", "", 1, True, ["stops"]])
def test_a_worker_lifetime_that_is_no_answer_fails(answer: object) -> None:
    class Garbled(Tiny):
        @hookimpl
        def leader_exit(self) -> object:
            return answer

    worker = make_replica(engine="tiny", nnodes=2)[1]
    with pytest.raises(AssertionError, match=r"leader_exit.*expected 'stops' or 'must_be_stopped'"):
        kit(Garbled()).check_plans(worker)


def test_a_worker_lifetime_is_the_engines_answer_or_the_safe_default() -> None:
    class Stops(Tiny):
        @hookimpl
        def leader_exit(self) -> str:
            return "stops"

    leader, worker = make_replica(engine="tiny", nnodes=2)
    assert kit(Tiny()).check_plans(worker).on_leader_exit == "must_be_stopped"
    assert kit(Stops()).check_plans(worker).on_leader_exit == "stops"
    assert kit(Stops()).check_plans(leader).on_leader_exit == ""


# -- shapes the engine does not list are refused, cleanly, by name ---------------------------


class CrashesOnCpu(Tiny):
    @hookimpl
    def commands(self, shard: ShardSpec) -> list[Command]:
        if shard.on_cpu():
            raise TypeError("'NoneType' object is not subscriptable")
        return super().commands(shard)


class RefusesCpuUnnamed(Tiny):
    @hookimpl
    def commands(self, shard: ShardSpec) -> list[Command]:
        if shard.on_cpu():
            raise EngineError("not supported")
        return super().commands(shard)


def test_an_unlisted_shape_refused_by_name_passes() -> None:
    kit(NoMig(), shapes=frozenset({"single"})).test_refuses_unlisted_shapes("mig")


def test_an_unlisted_shape_planned_silently_fails() -> None:
    with pytest.raises(
        AssertionError, match=r"planned a single-node shard on a MIG instance, a shape it does not list"
    ):
        kit(Tiny(), shapes=frozenset({"single"})).test_refuses_unlisted_shapes("mig")


def test_an_unlisted_shape_that_crashes_the_plugin_fails() -> None:
    with pytest.raises(
        AssertionError, match=r"crashed on a CPU shard it does not list.*hook commands\(\) raised TypeError"
    ):
        kit(CrashesOnCpu(), shapes=frozenset({"single"})).test_refuses_unlisted_shapes("cpu")


def test_an_unlisted_shape_refused_without_naming_it_fails() -> None:
    with pytest.raises(AssertionError, match=r"without naming the shape .*: not supported"):
        kit(RefusesCpuUnnamed(), shapes=frozenset({"single"})).test_refuses_unlisted_shapes("cpu")


def test_a_listed_shape_is_not_asked_to_be_refused() -> None:
    with pytest.raises(pytest.skip.Exception, match="lists shape 'mig'"):
        kit(Tiny()).test_refuses_unlisted_shapes("mig")
