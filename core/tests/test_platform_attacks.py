"""Attacks on the plugin platform (policies, the command builder, one argument reading, caches).

Each test here is an attack a hostile review found working, written as the behaviour the
security promises (docs/security.md) call for, so it would fail again if the hole reopened.
The last tests pin properties the attacks could not break.
"""

from __future__ import annotations

import gc
from collections.abc import Callable
from typing import Any

import attrs
import pytest
from enginekit import Command, EngineError, SpecError, hookimpl
from enginekit.base.text import UNSAFE_CHARACTERS
from enginekit.placement.builder import CommandBuilder
from enginekit.platform.registry import Registry
from enginekit.policy.args import ArgSyntax, ParsedArgs
from enginekit.policy.engine import EnginePolicy, EnvDeny
from enginekit.policy.env import EnvPolicy
from enginekit.spec.model import Profile, ShardSpec
from enginekit.spec.rules import check_spec

KEY = "sk-Q7vXr2Lm9ZpK4wTb8NcYs3Hd"
ENGINE = "x"


def _shard(args: tuple[str, ...] = (), env: dict[str, str] | None = None, **fields: Any) -> ShardSpec:
    profile = Profile(name="p", engine=ENGINE, model_path="/models/m", args=args, env=env or {})
    defaults: dict[str, Any] = {
        "gpu_indices": (0,),
        "http_port": 8000,
        "api_key": KEY,
        "bind_addr": "10.0.0.1",
    }
    return ShardSpec(profile=profile, **{**defaults, **fields})


def _keyed_command(shard: ShardSpec) -> list[Command]:
    build = CommandBuilder(shard)
    build.put_secret("X_API_KEY", shard.api_key)
    return [build.command("/opt/x/bin/x-server", ["serve", shard.profile.model_path, *shard.profile.args])]


class _Plain:
    """A well-behaved engine: its key in a declared secret variable, nothing else."""

    @hookimpl
    def policy(self) -> EnginePolicy:
        return EnginePolicy(secret_env="X_API_KEY")

    @hookimpl
    def validate(self) -> list[str]:
        return []

    @hookimpl
    def commands(self, shard: ShardSpec) -> list[Command]:
        return _keyed_command(shard)


def _engine(
    policy: Callable[[], object],
    *,
    validate: Callable[..., object] | None = None,
    commands: Callable[[ShardSpec], object] = _keyed_command,
    site: EnvPolicy | None = None,
) -> Any:
    class Plugin:
        @hookimpl
        def policy(self) -> object:
            return policy()

        @hookimpl
        def validate(self, profile: Profile, gpus: object, args: ParsedArgs) -> object:
            return validate(profile, args) if validate is not None else []

        @hookimpl
        def commands(self, shard: ShardSpec) -> object:
            return commands(shard)

    registry = Registry() if site is None else Registry(policy=site)
    registry.add(Plugin(), name=ENGINE)
    return registry.engine(ENGINE)


# -- 1. One argument reading, shared: a plugin that mutates it disarms the core's checks ----------

#: A module constant, as the plugin guide says a syntax must be ("it remembers what it has read").
CONSUMING_SYNTAX = ArgSyntax(known={"--trust-remote-code", "--dtype"})


def test_a_plugin_mutating_the_shared_reading_does_not_disarm_the_core_checks_next_time() -> None:
    """ParsedArgs is frozen, but ``uses`` is a plain dict shared through the syntax's memo.

    A plugin that "consumes" the options it judged (pops them from ``args.uses`` to find the
    leftovers) edits the one reading every later validation of the same args gets: the
    core's risky-flag check passes the second time, and ``--trust-remote-code`` runs.
    """

    def consume(profile: Profile, args: ParsedArgs) -> list[str]:
        for option in ("--dtype", "--trust-remote-code"):
            args.uses.pop(option, None)  # type: ignore[attr-defined]
        return []

    engine = _engine(
        lambda: EnginePolicy(
            syntax=CONSUMING_SYNTAX,
            arity={"--trust-remote-code": 0, "--dtype": 1},
            risky_args={"--trust-remote-code": "runs the model repository's code"},
            secret_env="X_API_KEY",
        ),
        validate=consume,
    )
    shard = _shard(("--trust-remote-code",))
    # The same profile planned again: the next shard of the replica, a retry, a re-render.
    for attempt in range(2):
        refusal = ""
        try:
            plan = engine.plan(shard)
        except SpecError as exc:
            refusal = str(exc)
        except EngineError:
            refusal = "--trust-remote-code"  # refusing the plugin's edit of a shared reading is a fix too
        else:
            pytest.fail(f"attempt {attempt}: planned {plan.commands[-1].argv()}")
        assert "--trust-remote-code" in refusal


# -- 2. The positional memo is keyed by id(arity): a new arity at a freed address reuses it -----

#: A module constant shared by every policy the plugin builds, as the guide recommends.
RELEASE_SYNTAX = ArgSyntax(known={"--stream", "--max-len"})


class _Versioned:
    """A plugin whose option arity depends on the configured release (a flag took a value before 2.0)."""

    def __init__(self, release: int) -> None:
        self.release = release

    @hookimpl
    def policy(self) -> EnginePolicy:
        return EnginePolicy(
            syntax=RELEASE_SYNTAX,
            arity={"--stream": 1 if self.release < 2 else 0, "--max-len": 1},
            secret_env="X_API_KEY",
        )

    @hookimpl
    def validate(self) -> list[str]:
        return []

    @hookimpl
    def commands(self, shard: ShardSpec) -> list[Command]:
        return _keyed_command(shard)


def _validate_with_release(release: int, profile: Profile) -> list[str]:
    registry = Registry()
    registry.add(_Versioned(release), name=ENGINE)
    return registry.engine(ENGINE).validate(profile)


def test_positional_results_are_not_reused_for_another_arity_at_the_same_address() -> None:
    """A node config reload (release 1 -> 2) builds a new arity; CPython often puts it where the
    old, freed one was. The memo keyed by ``id(arity)`` (on the shared ParsedArgs and on the
    syntax) then answers for the old arity: ``/etc/shadow`` after the now-valueless
    ``--stream`` is a second positional model path, and it is accepted."""
    profile = Profile(name="p", engine=ENGINE, model_path="/models/m", args=("--stream", "/etc/shadow"))
    wrong = []
    for attempt in range(50):
        # Release 1: /etc/shadow is the value of --stream. Release 2: a stray positional.
        if _validate_with_release(1, profile):
            wrong.append(f"attempt {attempt}: release 1 refused a value of --stream")
        gc.collect()
        if not _validate_with_release(2, profile):
            wrong.append(f"attempt {attempt}: release 2 accepted a stray positional")
        gc.collect()
    assert not wrong, wrong[:4]


def test_the_public_positional_helper_answers_for_the_arity_it_is_given() -> None:
    """``enginekit.plugin.positional_problems`` (plugin API) memoises on the shared reading by
    ``id(arity)``: a plugin that builds its arity per call (from the profile, the release, a
    lambda) gets the previous call's answer, because the previous, freed arity's address is
    the first one CPython hands out again."""
    from enginekit.plugin import positional_problems

    args = RELEASE_SYNTAX.parse(("--stream", "/etc/shadow"))
    assert positional_problems("p", args, arity={"--stream": 1, "--max-len": 1}) == []
    assert positional_problems("p", args, arity={"--stream": 0, "--max-len": 1}) != []
    assert positional_problems("p", args, arity=lambda option: 1) == []
    assert positional_problems("p", args, arity=lambda option: 0) != []


# -- 3. Engine handles keep the site policy they were made with ---------------------------------


def test_an_engine_handle_judges_by_the_site_policy_in_force() -> None:
    """An Engine reads the registry's policy at every call: a handle that kept the policy it
    was built with would launch a site's tightened policy (a reloaded node config) with the
    old one, through every handle already handed out."""

    registry = Registry()
    registry.add(_Plain(), name=ENGINE)
    engine = registry.engine(ENGINE)  # held, as a supervisor holds the engine of its shards
    shard = _shard(env={"NCCL_DEBUG": "INFO"})
    assert engine.plan(shard).commands[-1].env["NCCL_DEBUG"] == "INFO"
    registry.policy = EnvPolicy(deny=["NCCL_DEBUG"])  # the site now denies it
    with pytest.raises(SpecError, match="NCCL_DEBUG"):
        registry.engine(ENGINE).plan(shard)  # a new handle refuses it...
    with pytest.raises(SpecError, match="NCCL_DEBUG"):
        engine.plan(shard)  # ...and so must the one already handed out


# -- 4. The direct-call fast path skips wrappers registered on the plugin manager ---------------


class _Stamp:
    @hookimpl(wrapper=True)
    def commands(self, shard: ShardSpec) -> Any:
        commands = yield
        return [attrs.evolve(command, args=(*command.args, "--stamped")) for command in commands]


def test_a_wrapper_registered_after_the_first_call_still_wraps() -> None:
    """``registry.pm`` is public pluggy; before the refactor a wrapper registered on it wrapped
    every later call (the cached subset caller reads the plugin manager at call time); the
    direct fast path must step aside for one registered that way (NUMA pinning, an audit),
    not skip it."""
    registry = Registry()

    registry.add(_Plain(), name=ENGINE)
    engine = registry.engine(ENGINE)
    assert "--stamped" not in engine.plan(_shard()).commands[0].args
    registry.pm.register(_Stamp(), name="stamp")
    assert "--stamped" in registry.engine(ENGINE).plan(_shard()).commands[0].args


# -- 5. A garbage policy() answer is one EngineError, never a traceback, never a silent pass ----

_SYNTAX = ArgSyntax(known={"--a", "--managed"})


class _BadGet(dict):  # type: ignore[type-arg]
    def get(self, *args: object) -> object:
        raise RuntimeError("arity table unreadable")


class _NoUses(ArgSyntax):
    def parse(self, args: Any) -> ParsedArgs:
        return ParsedArgs(tokens=tuple(args), syntax=self, uses=None)  # type: ignore[arg-type]


class _NoSyntax(ArgSyntax):
    def parse(self, args: Any) -> ParsedArgs:
        return ParsedArgs(tokens=tuple(args), syntax=None, uses={})  # type: ignore[arg-type]


class _NoTokens(ArgSyntax):
    def parse(self, args: Any) -> ParsedArgs:
        return ParsedArgs(tokens=None, syntax=self, uses={})  # type: ignore[arg-type]


GARBAGE_POLICIES: dict[str, Callable[[], EnginePolicy]] = {
    "arity function raises": lambda: EnginePolicy(syntax=_SYNTAX, arity=lambda option: 1 // 0),
    "arity function returns text": lambda: EnginePolicy(syntax=_SYNTAX, arity=lambda option: "1"),  # type: ignore[arg-type,return-value]
    "arity table holds text": lambda: EnginePolicy(syntax=_SYNTAX, arity={"--a": "one"}),  # type: ignore[dict-item]
    "arity table unreadable": lambda: EnginePolicy(syntax=_SYNTAX, arity=_BadGet()),
    "parse gives no uses": lambda: EnginePolicy(
        syntax=_NoUses(known={"--a", "--managed"}), managed_args={"--managed": "enginekit sets it"}
    ),
    "parse gives no syntax": lambda: EnginePolicy(syntax=_NoSyntax(known={"--a"}), arity={"--a": 1}),
    "parse gives no tokens": lambda: EnginePolicy(syntax=_NoTokens(known={"--a"}), arity={"--a": 1}),
    "deny group of bytes prefixes": lambda: EnginePolicy(
        denied_env=(EnvDeny("x", prefixes=[b"X_"]),)  # type: ignore[list-item]
    ),
    "deny group of bytes suffixes": lambda: EnginePolicy(
        denied_env=(EnvDeny("x", suffixes=[b"_X"]),)  # type: ignore[list-item]
    ),
    "deny group with an unhashable floor": lambda: EnginePolicy(
        denied_env=(EnvDeny("x", names="X_FOO", floor=[]),)  # type: ignore[arg-type]
    ),
}


@pytest.mark.parametrize("name", sorted(GARBAGE_POLICIES))
def test_a_garbage_policy_is_one_engine_error(name: str) -> None:
    make = GARBAGE_POLICIES[name]
    engine = _engine(lambda: attrs.evolve(make(), secret_env=frozenset({"X_API_KEY"})))
    profile = Profile(
        name="p",
        engine=ENGINE,
        model_path="/models/m",
        args=("--managed", "1", "--a", "v"),
        env={"NCCL_DEBUG": "INFO"},
    )
    try:
        problems = engine.validate(profile)
    except EngineError as exc:
        message = str(exc)
    except Exception as exc:  # a traceback: exit 70, "a bug in enginekit", not the plugin's
        pytest.fail(f"{name}: {type(exc).__name__} escaped instead of an EngineError: {exc}")
    else:
        pytest.fail(f"{name}: validate() answered {problems!r} instead of refusing the broken policy")
    assert f"engine {ENGINE!r}" in message
    assert "policy()" in message


# -- 6. Policy texts reach messages unescaped ---------------------------------------------------

_FORGED = "set it elsewhere\n\x1b[2Jenginekit: profile 'p': valid for engine 'x'"

TEXTS: dict[str, tuple[Callable[[], EnginePolicy], tuple[str, ...], dict[str, str]]] = {
    "managed_args": (
        lambda: EnginePolicy(syntax=_SYNTAX, managed_args={"--managed": _FORGED}),
        ("--managed",),
        {},
    ),
    "risky_args": (
        lambda: EnginePolicy(syntax=_SYNTAX, risky_args={"--managed": _FORGED}),
        ("--managed",),
        {},
    ),
    "secret_args": (
        lambda: EnginePolicy(syntax=_SYNTAX, secret_args={"--managed": _FORGED}),
        ("--managed",),
        {},
    ),
    "display_name": (
        lambda: EnginePolicy(syntax=_SYNTAX, arity={"--a": 0}, display_name=_FORGED),
        ("--a", "stray"),
        {},
    ),
    "denied_env why": (
        lambda: EnginePolicy(open_env="XX_", denied_env=(EnvDeny(_FORGED, names="XX_DUMP"),)),
        (),
        {"XX_DUMP": "1"},
    ),
}


@pytest.mark.parametrize("field", sorted(TEXTS))
def test_policy_texts_never_reach_a_message_with_control_characters(field: str) -> None:
    """Before the refactor these sentences were the plugin's validate() answer, which the core
    makes printable; now the core writes them itself from the policy, unescaped, and the CLI
    prints problems as they are: a newline and an escape sequence forge and clear lines."""
    make, args, env = TEXTS[field]
    engine = _engine(lambda: attrs.evolve(make(), secret_env=frozenset({"X_API_KEY"})))
    profile = Profile(name="p", engine=ENGINE, model_path="/models/m", args=args, env=env)
    try:
        problems = engine.validate(profile)
    except EngineError as exc:  # refusing such a policy outright is a fix too
        assert "policy()" in str(exc)  # noqa: PT017 - either fix passes; which one is not pinned
        problems = []
    else:
        assert problems, "the profile should be refused"
    unescaped = [problem for problem in problems if UNSAFE_CHARACTERS.search(problem)]
    assert not unescaped, unescaped


# -- 7. Command env names: a second "placement" variable the placement check never sees ---------


@pytest.mark.parametrize(
    "name",
    [
        "CUDA_VISIBLE_DEVICES=0,1,2,3,",  # exec form: a second CUDA_VISIBLE_DEVICES entry, last one wins in Go/docker
        "X;touch /tmp/pwned;Y",  # `eval "$(enginekit env SPEC)"` runs it
        "",
        "X API",
    ],
)
def test_a_command_env_name_is_a_portable_name(name: str) -> None:
    """``_check_command`` compares ``env[CUDA_VISIBLE_DEVICES]`` only; a variable *named*
    ``CUDA_VISIBLE_DEVICES=0,1,2,3,`` passes, and ``Command.environ()`` then holds two
    ``CUDA_VISIBLE_DEVICES=`` entries: the plan shows the shard's GPU, a supervisor that keeps
    the last entry (Go's exec, ``docker --env-file``, the ``export`` lines of ``enginekit env``)
    starts the engine on four. The contract checks env names for unsafe characters only."""

    def commands(shard: ShardSpec) -> list[Command]:
        build = CommandBuilder(shard)
        build.put_secret("X_API_KEY", shard.api_key)
        build.put(name, "", "the plugin's own")
        return [build.command("/opt/x/bin/x-server", ["serve"])]

    engine = _engine(lambda: EnginePolicy(secret_env="X_API_KEY"), commands=commands)
    with pytest.raises(EngineError, match=r"engine 'x'.*commands\(\)"):
        engine.plan(_shard())


@pytest.mark.parametrize(
    "selector", ["ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "NVIDIA_VISIBLE_DEVICES"]
)
def test_a_command_cannot_add_a_device_selector_placement_did_not_generate(selector: str) -> None:
    """The core reserves these as placement ("overriding them breaks isolation: wrong GPUs"),
    but the registry's check compares only what placement generated: a command that keeps
    ``CUDA_VISIBLE_DEVICES=0`` and adds ``ROCR_VISIBLE_DEVICES=3,2,1,0`` (applied before
    CUDA's list on ROCm: device 0 becomes GPU 3) or ``NVIDIA_VISIBLE_DEVICES=all`` (a
    containerised engine gets every GPU) passes."""

    def commands(shard: ShardSpec) -> list[Command]:
        build = CommandBuilder(shard)
        build.put_secret("X_API_KEY", shard.api_key)
        build.put(selector, "3,2,1,0" if selector != "NVIDIA_VISIBLE_DEVICES" else "all", "the plugin's own")
        return [build.command("/opt/x/bin/x-server", ["serve"])]

    engine = _engine(lambda: EnginePolicy(secret_env="X_API_KEY"), commands=commands)
    with pytest.raises(EngineError, match=r"engine 'x'.*commands\(\)"):
        engine.plan(_shard())


# -- 8. The API key in new error paths -----------------------------------------------------------


def test_the_placement_check_never_echoes_the_key() -> None:
    """The registry's new placement check names the command by its name or path, unmasked:
    a plugin that put the key in a command's name (and dropped a placement variable) has
    the key printed by ``Engine.plan`` (the CLI masks its own output; library callers and
    their logs do not)."""

    def commands(shard: ShardSpec) -> list[Command]:
        env = {"X_API_KEY": shard.api_key}
        return [
            Command(
                path="/opt/x/bin/x-server",
                args=("serve",),
                name=f"x-{shard.api_key}",
                env=env,
                secret_env=frozenset(env),
            )
        ]

    engine = _engine(lambda: EnginePolicy(secret_env="X_API_KEY"), commands=commands)
    with pytest.raises(EngineError) as caught:
        engine.plan(_shard())
    assert KEY not in str(caught.value)


class _StrictSyntax(ArgSyntax):
    """A syntax that reads with a real parser, which quotes what it cannot read (as click does)."""

    def parse(self, args: Any) -> ParsedArgs:
        raise ValueError(f"no such option in {list(args)}")


def _validate_quoting_values(profile: Profile, args: ParsedArgs) -> list[str]:
    raise ValueError(f"cannot judge {args.find(('--token',))}")


@pytest.mark.parametrize(
    "how",
    ["the syntax's parse raises", "validate raises on a value of the one reading"],
)
def test_a_plugin_exception_quoting_the_args_never_shows_the_shards_key(how: str) -> None:
    """``Engine.plan(shard)`` knows the key, yet the argument reading (``policy.syntax.parse``)
    and ``validate`` (now handed ParsedArgs, whose OptionUse values hold the tokens) are
    called without it: what they raise is shown unmasked."""
    if how == "the syntax's parse raises":
        engine = _engine(
            lambda: EnginePolicy(syntax=_StrictSyntax(known={"--token"}), secret_env="X_API_KEY")
        )
    else:
        engine = _engine(
            lambda: EnginePolicy(syntax=ArgSyntax(known={"--token"}), secret_env="X_API_KEY"),
            validate=_validate_quoting_values,
        )
    with pytest.raises(EngineError) as caught:
        engine.plan(_shard(("--token", KEY)))
    assert KEY not in str(caught.value)


def test_the_device_listing_never_carries_the_key_in_argv() -> None:
    """ "The core refuses any command whose argv contains the key, whatever the plugin did":
    the device listing is a command the agent runs on the node with the shard's placement,
    and its argv is not checked (pre-existing, kept by the refactor)."""

    class Listing(_Plain):
        @hookimpl
        def device_listing(self, shard: ShardSpec | None) -> Command:
            key = shard.api_key if shard is not None else ""
            return Command(path="/opt/x/bin/x-server", args=("--list-devices", "--api-key", key))

    registry = Registry()
    registry.add(Listing(), name=ENGINE)
    engine = registry.engine(ENGINE)
    try:
        listing = engine.device_listing(_shard())
    except EngineError as exc:
        shown = str(exc)
    else:
        shown = "\0".join(listing.argv()) if listing is not None else ""
    assert KEY not in shown


# -- 9. Case-insensitive device names: one GPU listed twice ------------------------------------

_UUID = "5c1e6a2e-8f3b-5d7a-9c41-2b7e0f6d3a19"


def test_one_gpu_named_twice_in_two_cases_is_listed_twice() -> None:
    """``gpu-`` is now read as ``GPU-`` (the MIG rule became case-insensitive), but the
    duplicate check still compares strings: a two-GPU shard given one GPU twice passes."""
    profile = Profile(name="p", engine=ENGINE, model_path="/models/m", tp=2)
    shard = ShardSpec(
        profile=profile,
        gpu_indices=(0, 1),
        gpu_uuids=(f"GPU-{_UUID}", f"gpu-{_UUID}"),
        http_port=8000,
    )
    assert any("twice" in problem for problem in check_spec(shard)), check_spec(shard)


# -- Pinned: what held --------------------------------------------------------------------------


def test_env_verdicts_are_cached_per_engine_policy_never_across_engines() -> None:
    """The same env items judged for two engines, alternately: each engine's reserved names
    and namespaces apply to its own profiles only, whatever the lru caches saw first."""
    items = {"ALPHA_KEY": "1", "ALPHA_TUNE": "1"}
    alpha = _engine(lambda: EnginePolicy(open_env="ALPHA_", secret_env="ALPHA_KEY X_API_KEY"))
    beta = _engine(lambda: EnginePolicy(open_env="ALPHA_", secret_env="X_API_KEY"))

    def refused(engine: Any) -> set[str]:
        problems = engine.validate(Profile(name="p", engine=ENGINE, model_path="/m", env=items))
        return {key for key in items if any(f"env {key}:" in p for p in problems)}

    for _ in range(3):
        assert refused(alpha) == {"ALPHA_KEY"}
        assert refused(beta) == set()


def test_opening_a_loader_prefix_opens_nothing_the_deny_list_refuses() -> None:
    """An engine opening ``LD_`` (or ``PYTHON``) opens no name of a deny group."""
    engine = _engine(lambda: EnginePolicy(open_env="LD_ PYTHON", secret_env="X_API_KEY"))
    problems = engine.validate(
        Profile(name="p", engine=ENGINE, model_path="/m", env={"LD_PRELOAD": "x", "PYTHONPATH": "x"})
    )
    assert any("env LD_PRELOAD: denied" in p for p in problems)
    assert any("env PYTHONPATH: denied" in p for p in problems)


def test_the_placement_cache_answers_for_the_shard_asked_about() -> None:
    """The last-shard cache is keyed by identity and holds the spec alive: an equal-looking
    shard on other GPUs (a new object, possibly at a freed address) gets its own placement."""
    from enginekit.placement.env import placement_env

    for index in range(200):
        first = _shard(gpu_indices=(index % 8,))
        assert placement_env(first).env["CUDA_VISIBLE_DEVICES"] == str(index % 8)
        del first
        second = _shard(gpu_indices=((index + 1) % 8,))
        assert placement_env(second).env["CUDA_VISIBLE_DEVICES"] == str((index + 1) % 8)
