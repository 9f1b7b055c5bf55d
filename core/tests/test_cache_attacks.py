"""Attacks on the performance shortcuts: the validation memo, the printable-ASCII fast path,
the unguarded answer checks and the single-slot placement cache.

Each test before the last section is an attack a hostile review found working, written
as the behaviour docs/security.md promises, so it would fail again if the hole reopened.
The last section pins properties the attacks could not break.
"""

from __future__ import annotations

import sys
import threading
from typing import Any

import pytest
from enginekit import (
    Adapter,
    Command,
    EngineError,
    GPUInfo,
    Profile,
    Registry,
    ShardSpec,
    SpecError,
    hookimpl,
)
from enginekit.base.text import UNSAFE_CHARACTERS
from enginekit.placement.builder import CommandBuilder
from enginekit.placement.env import placement_env
from enginekit.policy.engine import EnginePolicy
from enginekit.policy.env import EnvPolicy

KEY = "sk-Q7vXr2Lm9ZpK4wTb8NcYs3Hd"
ENGINE = "x"


def _profile(**fields: Any) -> Profile:
    return Profile(**{"name": "p", "engine": ENGINE, "model_path": "/models/m", **fields})


def _shard(profile: Profile | None = None, **fields: Any) -> ShardSpec:
    defaults: dict[str, Any] = {"gpu_indices": (0,), "http_port": 8000, "api_key": KEY}
    return ShardSpec(profile=profile or _profile(), **{**defaults, **fields})


class _Plugin:
    """An engine whose own checks are given by ``check`` and whose command says which build ran."""

    def __init__(self, check: Any = None, flag: str = "--v1") -> None:
        self.check = check
        self.flag = flag

    @hookimpl
    def policy(self) -> EnginePolicy:
        return EnginePolicy(secret_env="X_API_KEY")

    @hookimpl
    def validate(self, profile: Profile, gpus: Any) -> list[str]:
        return self.check(profile, gpus) if self.check is not None else []

    @hookimpl
    def commands(self, shard: ShardSpec) -> list[Command]:
        build = CommandBuilder(shard)
        build.put_secret("X_API_KEY", shard.api_key)
        return [build.command("/opt/x/bin/x-server", ["serve", self.flag])]


def _registry(plugin: object) -> Registry:
    registry = Registry()
    registry.add(plugin, name=ENGINE)
    return registry


class _Liar(str):
    """A string that says it is printable ASCII, whatever it holds."""

    def isascii(self) -> bool:
        return True

    def isprintable(self) -> bool:
        return True

    def __str__(self) -> str:
        return self


# -- 1. The validation memo outlives the plugin it judged for ------------------------------------


def test_a_held_handle_does_not_answer_with_a_replaced_plugins_verdict() -> None:
    """``registry.add(..., replace=True)`` swaps the plugin behind an engine name (a patched
    build, a site's stricter fork). A handle already handed out (a supervisor holds one)
    calls the new plugin's hooks through the registry, but its memo still holds the old
    plugin's verdict: the new plugin's refusal is never asked, and the new plugin's
    commands are built from a profile only the old plugin judged."""

    def strict(profile: Profile, gpus: Any) -> list[str]:
        return ["v2 refuses models under /tmp"] if profile.model_path.startswith("/tmp") else []

    registry = _registry(_Plugin(flag="--v1"))
    held = registry.engine(ENGINE)
    shard = _shard(_profile(model_path="/tmp/m"))
    assert held.plan(shard).commands[0].args == ("serve", "--v1")
    registry.add(_Plugin(strict, flag="--v2"), name=ENGINE, replace=True)
    with pytest.raises(SpecError, match="v2 refuses"):
        registry.engine(ENGINE).plan(shard)  # a new handle asks the new plugin...
    refusal = ""
    try:
        plan = held.plan(shard)  # ...and so must the held one, which would run "--v2"
    except SpecError as exc:
        refusal = str(exc)
    else:
        pytest.fail(f"planned {plan.commands[0].argv()} without the new plugin's checks")
    assert "v2 refuses" in refusal


# -- 2. "Types included" stops at the top level -------------------------------------------------


def _strict_types(profile: Profile, gpus: Any) -> list[str]:
    problems = [f"GPU {gpu.index!r}: index is not an integer" for gpu in gpus if type(gpu.index) is not int]
    problems += [
        f"adapter {a.name!r}: path is not a plain string" for a in profile.adapters if type(a.path) is not str
    ]
    return problems


def test_a_gpus_fields_are_judged_by_type_as_the_profiles_are() -> None:
    """The key holds the GPUs by value: GPUInfo(index=True) == GPUInfo(index=1), the same hash,
    so a GPU list judged once answers for an equal-but-differently-typed one, which the
    engine's own check refuses when asked (as ``tp=True`` is, at the top level)."""
    engine = _registry(_Plugin(_strict_types)).engine(ENGINE)
    assert engine.validate(_profile(), (GPUInfo(index=1, name="H100"),)) == []
    assert engine.validate(_profile(), (GPUInfo(index=True, name="H100"),)) != []


class _Path(str):
    pass


def test_an_adapters_fields_are_judged_by_type_as_the_profiles_are() -> None:
    """The same for adapters: the key records the adapters tuple's type, not its fields' types."""
    engine = _registry(_Plugin(_strict_types)).engine(ENGINE)
    assert engine.validate(_profile(adapters=(Adapter(name="a", path="/loras/a"),))) == []
    assert engine.validate(_profile(adapters=(Adapter(name="a", path=_Path("/loras/a")),))) != []


# -- 3. The printable-ASCII fast path asks the string itself ------------------------------------


def test_a_plugins_error_text_is_escaped_even_when_it_says_it_is_printable() -> None:
    """``printable`` (and ``has_unsafe``/``unsafe_text``) call ``text.isascii()`` and
    ``text.isprintable()``: methods a str subclass overrides. ``str(exc)`` returns whatever
    ``__str__`` returns, subclass and all, and a hook without a shard (validate, policy,
    unavailable) has no key to mask, so nothing makes it a plain copy: the message keeps its
    newline and escape sequence. Before the fast path the pattern searched the characters."""
    forged = "bad\n\x1b[2Jenginekit: profile 'p' is valid"

    class Forging(Exception):
        def __str__(self) -> str:
            return _Liar(forged)

    def raising(profile: Profile, gpus: Any) -> list[str]:
        raise Forging()

    engine = _registry(_Plugin(raising)).engine(ENGINE)
    with pytest.raises(EngineError) as caught:
        engine.validate(_profile())
    assert not UNSAFE_CHARACTERS.search(str(caught.value)), repr(str(caught.value))


def test_the_env_policy_judges_a_value_by_its_characters_not_its_methods() -> None:
    """``EnvPolicy.problems`` sends a non-``str`` value to ``unsafe_value``, which accepts any
    ``str`` subclass and asks ``unsafe_text``: the subclass says "printable ASCII", and a
    newline (a second ``KEY=VALUE`` line in an env file) is accepted. The pattern refuses it."""
    value = _Liar("INFO\nLD_PRELOAD=evil.so")
    assert UNSAFE_CHARACTERS.search(value)
    assert EnvPolicy().problems({"NCCL_DEBUG": value}) != []


# -- 4. Answer checks that "cannot run plugin code" can, and crash the caller -------------------


class _Spoof:
    """Not a string, but ``isinstance(x, str)`` reads ``__class__`` and says it is one."""

    __class__ = str  # type: ignore[assignment]


class _Answering(_Plugin):
    def __init__(self, reason: object = None, problems: object = ()) -> None:
        super().__init__(lambda profile, gpus: list(problems))  # type: ignore[call-overload]
        self.reason = reason

    @hookimpl
    def unavailable(self) -> object:
        return self.reason


def test_one_engines_spoofed_unavailable_answer_does_not_break_the_engines_listing() -> None:
    """``Answers.reason`` lost its guard: ``isinstance`` passes a spoofed ``__class__`` and
    ``str.__str__`` raises TypeError, which escapes ``statuses()``: ``enginekit engines`` fails
    (exit 70, "a bug in enginekit") because of one engine, for every engine."""
    registry = Registry()
    registry.add(_Answering(reason=_Spoof()), name="bad")
    registry.add(_Plugin(), name="good")
    rows = {row.name: row for row in registry.statuses()}
    assert rows["bad"].status == "failed"
    assert rows["good"].status == "ok"


def test_a_spoofed_problem_from_validate_is_the_plugins_error() -> None:
    """The same through ``Answers.sentences``: a TypeError, not one EngineError naming the engine."""
    engine = _registry(_Answering(problems=[_Spoof()])).engine(ENGINE)
    with pytest.raises(EngineError, match=rf"engine {ENGINE!r}"):
        engine.validate(_profile())


# -- 5. The placement cache trusts a "frozen" spec whose lists are not ---------------------------


def test_a_plan_places_the_shard_on_the_gpus_its_spec_names_now() -> None:
    """ShardSpec is frozen, but ``gpu_indices`` is whatever the caller gave (a list is
    accepted by every check). ``placement_env`` remembers the last spec by identity, so a
    spec whose list was changed (re-placed) is planned with the old GPUs: the plan's shard
    says GPU 3 while the command pins GPU 0, another shard's card. A fix may equally make
    the list immutable (a converter) or refuse it."""
    registry = _registry(_Plugin())
    engine = registry.engine(ENGINE)
    try:
        shard = _shard(gpu_indices=[0])
    except (TypeError, ValueError):
        return  # refused at construction: fixed
    assert engine.plan(shard).commands[0].env["CUDA_VISIBLE_DEVICES"] == "0"
    try:
        shard.gpu_indices[0] = 3  # type: ignore[index]
    except TypeError:
        return  # made immutable: fixed
    try:
        plan = engine.plan(shard)
    except SpecError:
        return  # refused: fixed
    assert plan.commands[0].env["CUDA_VISIBLE_DEVICES"] == ",".join(map(str, plan.shard.gpu_indices))


# -- What held -----------------------------------------------------------------------------------


def test_placement_is_never_another_shards_under_threads() -> None:
    """``_last`` is one tuple read and written whole, and it holds its spec alive, so its
    identity cannot be reused: two threads planning different shards each get their own."""
    shards = [_shard(gpu_indices=(index,)) for index in range(4)]
    wrong: list[str] = []
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)

    def work(shard: ShardSpec) -> None:
        want = str(shard.gpu_indices[0])
        for _ in range(3000):
            got = placement_env(shard).env["CUDA_VISIBLE_DEVICES"]
            if got != want:
                wrong.append(f"{want} got {got}")
                return

    try:
        threads = [threading.Thread(target=work, args=(shard,)) for shard in shards]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(interval)
    assert not wrong, wrong[:4]


def test_a_wrapper_added_through_the_plugin_manager_turns_the_memo_off_for_held_handles() -> None:
    """A refusing wrapper registered straight on ``registry.pm`` after a verdict was kept is
    asked on the next call of a handle already handed out, and after it is removed too."""

    class Refuse:
        @hookimpl(wrapper=True)
        def validate(self) -> Any:
            answer = yield
            return [*answer, "the site refuses it"]

    registry = _registry(_Plugin())
    held = registry.engine(ENGINE)
    assert held.validate(_profile()) == []
    wrapper = Refuse()
    registry.pm.register(wrapper, name="refuse")
    assert held.validate(_profile()) == ["the site refuses it"]
    registry.pm.unregister(wrapper)
    assert held.validate(_profile()) == []
