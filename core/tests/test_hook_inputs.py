"""Hooks cannot change what they are given: the model is frozen, and a change made around it is caught and undone."""

from __future__ import annotations

import copy
import pickle
from collections.abc import Callable, Sequence
from typing import Any

import attrs
import pytest
from enginekit import Command, EngineError, GPUInfo, Profile, ShardSpec, SpecError
from enginekit import plugin as ek
from enginekit.base.frozen import FrozenDict
from enginekit.platform.inputs import Inputs
from enginekit.testing import EngineConformance, engine_for, make_multi_node, make_shard
from hypothesis import given, settings
from hypothesis import strategies as st


class Good:
    """Plans one command and touches nothing it is given."""

    @ek.hookimpl
    def validate(self, profile: Profile) -> list[str]:
        return []

    @ek.hookimpl
    def commands(self, shard: ShardSpec) -> list[Command]:
        return [ek.CommandBuilder(shard).command("/usr/bin/good", ["--port", str(shard.http_port)])]


def _changing(hook: str, change: Callable[[Any], None]) -> object:
    """A plugin whose ``hook`` applies ``change`` to its input, then answers as :class:`Good`."""

    class Changing(Good):
        @ek.hookimpl
        def validate(self, profile: Profile, gpus: Sequence[GPUInfo]) -> list[str]:
            if hook == "validate":
                change(profile)
            return []

        @ek.hookimpl
        def commands(self, shard: ShardSpec) -> list[Command]:
            answer = super().commands(shard)
            if hook == "commands":
                change(shard)
            return answer

        @ek.hookimpl
        def notes(self, shard: ShardSpec) -> list[str]:
            if hook == "notes":
                change(shard)
            return []

        @ek.hookimpl
        def help_command(self, command: Command) -> Command:
            if hook == "help_command":
                change(command)
            return command

    return Changing()


def _shard(**fields: Any) -> ShardSpec:
    return make_shard(
        engine="x",
        gpu_indices=(0, 1),
        profile=Profile(name="p", engine="x", model_path="/m", tp=2, env={"NCCL_DEBUG": "INFO"}),
        **fields,
    )


# --- the model is frozen all the way down ---------------------------------------------------


def test_a_profiles_env_cannot_be_changed_by_item_assignment() -> None:
    profile = Profile(name="p", engine="x", env={"A": "1"})
    assert type(profile.env) is FrozenDict
    for change in (
        lambda env: env.__setitem__("B", "2"),
        lambda env: env.__delitem__("A"),
        lambda env: env.update(B="2"),
        lambda env: env.setdefault("B", "2"),
        lambda env: env.pop("A"),
        lambda env: env.popitem(),
        lambda env: env.clear(),
    ):
        with pytest.raises(TypeError, match="read-only"):
            change(profile.env)
    env = profile.env
    with pytest.raises(TypeError, match="read-only"):
        env |= {"B": "2"}
    with pytest.raises(TypeError, match="read-only"):
        profile.env.__init__(B="2")  # type: ignore[misc]
    assert profile.env == {"A": "1"}


def test_a_frozen_table_reads_as_a_dict_everywhere() -> None:
    table = FrozenDict({"B": "2", "A": "1"})
    assert table == {"A": "1", "B": "2"}
    assert isinstance(table, dict)
    assert hash(table) == hash(FrozenDict({"A": "1", "B": "2"}))
    assert copy.deepcopy(table) == table
    assert type(pickle.loads(pickle.dumps(table))) is FrozenDict
    assert type(table | {"C": "3"}) is dict  # a new table to change is a plain dict
    assert type(table.copy()) is dict
    assert repr(table) == "FrozenDict({'B': '2', 'A': '1'})"


def test_commands_tables_and_sequences_are_frozen_too() -> None:
    command = Command(path="/x", args=("a",), env={"A": "1"}, why={"A": "because"})
    assert type(command.env) is FrozenDict
    assert type(command.why) is FrozenDict
    profile = Profile(name="p", engine="x", args=["--a"], adapters=[])  # type: ignore[arg-type]
    assert type(profile.args) is tuple
    assert type(profile.adapters) is tuple


def test_a_spec_loaded_from_a_document_is_frozen() -> None:
    spec = ShardSpec.from_dict(
        {
            "replica_id": "r",
            "shard_id": "s",
            "gpu_indices": [0],
            "http_port": 8000,
            "profile": {"name": "p", "engine": "x", "env": {"A": "1"}},
        }
    )
    assert type(spec.profile.env) is FrozenDict
    assert type(spec.gpu_indices) is tuple


# --- a change made around the frozen model fails planning, naming the hook ------------------


CHANGES = {
    "item assignment on the profile's env": (
        "validate",
        lambda profile: dict.__setitem__(profile.env, "LD_PRELOAD", "/tmp/x.so"),
        "hook validate() changed what it was given (a table (its items))",
    ),
    "object.__setattr__ on the shard": (
        "commands",
        lambda shard: object.__setattr__(shard, "gpu_indices", (0,)),
        "hook commands() changed what it was given (ShardSpec.gpu_indices)",
    ),
    "object.__setattr__ on the nested profile": (
        "notes",
        lambda shard: object.__setattr__(shard.profile, "tp", 1),
        "hook notes() changed what it was given (Profile.tp)",
    ),
    "a nested list swapped in and grown": (
        "commands",
        lambda shard: (object.__setattr__(shard.profile, "args", []), shard.profile.args.append("--x")),
        "hook commands() changed what it was given (Profile.args)",
    ),
}


@pytest.mark.parametrize("how", sorted(CHANGES))
def test_a_hook_changing_its_input_fails_planning_naming_it_and_the_spec_is_put_back(how: str) -> None:
    hook, change, said = CHANGES[how]
    engine = engine_for(_changing(hook, change), "x")
    shard = _shard()
    before = copy.deepcopy(shard)
    fields = attrs.astuple(shard, recurse=False)
    with pytest.raises(EngineError) as caught:
        engine.plan(shard)
    message = str(caught.value)
    assert message == (
        f"engine 'x' (added in process): {said}; hooks must leave their inputs alone "
        f"(the caller's spec was put back as it was)"
    )
    assert "\n" not in message
    assert shard == before
    assert type(shard.profile.env) is FrozenDict
    assert all(a is b for a, b in zip(attrs.astuple(shard, recurse=False), fields, strict=True))


def test_a_hook_growing_a_sequence_in_place_fails_naming_it_and_the_spec_is_unchanged() -> None:
    # Every sequence of the model is a tuple: growing one in place is an error of the hook's.
    shard = _shard(hcas=("mlx5_0",))
    before = copy.deepcopy(shard)
    engine = engine_for(_changing("commands", lambda s: s.hcas.append("mlx5_1")), "x")
    with pytest.raises(
        EngineError,
        match=r"hook commands\(\) raised AttributeError: 'tuple' object has no attribute 'append'",
    ):
        engine.plan(shard)
    assert shard == before


def test_each_hook_called_alone_is_checked_too() -> None:
    engine = engine_for(_changing("validate", lambda p: object.__setattr__(p, "name", "q")), "x")
    profile = Profile(name="p", engine="x")
    with pytest.raises(EngineError, match=r"hook validate\(\) changed what it was given \(Profile.name\)"):
        engine.validate(profile)
    assert profile.name == "p"
    engine = engine_for(_changing("help_command", lambda c: object.__setattr__(c, "path", "/evil")), "x")
    command = Command(path="/usr/bin/good")
    with pytest.raises(
        EngineError, match=r"hook help_command\(\) changed what it was given \(Command.path\)"
    ):
        engine.help_command(command)
    assert command.path == "/usr/bin/good"


def test_a_hook_that_changes_its_input_only_once_is_still_refused() -> None:
    calls = []

    def once(shard: ShardSpec) -> None:
        if not calls:
            object.__setattr__(shard, "http_port", 1)
        calls.append(shard)

    engine = engine_for(_changing("commands", once), "x")
    shard = _shard()
    with pytest.raises(
        EngineError, match=r"a hook changed what it was given \(ShardSpec.http_port\) once, and not again"
    ):
        engine.plan(shard)
    assert shard.http_port == 8000


def test_a_hook_raising_after_changing_its_input_still_has_it_put_back() -> None:
    def change_then_fail(shard: ShardSpec) -> None:
        object.__setattr__(shard, "rank", 5)
        raise ValueError("boom")

    engine = engine_for(_changing("notes", change_then_fail), "x")
    shard = _shard()
    with pytest.raises(EngineError, match=r"hook notes\(\) changed what it was given \(ShardSpec.rank\)"):
        engine.plan(shard)
    assert shard.rank == 0


def test_a_well_behaved_plugin_plans_and_is_not_slowed_by_a_second_plan() -> None:
    engine = engine_for(Good(), "x")
    shard = _shard()
    assert engine.plan(shard) == engine.plan(shard)
    with pytest.raises(SpecError):
        engine.plan(_shard(http_port=0))


_FIELDS = [f.name for f in attrs.fields(ShardSpec) if f.name not in ("profile",)]


@settings(max_examples=60, deadline=None)
@given(field=st.sampled_from(_FIELDS), hook=st.sampled_from(["commands", "notes"]))
def test_any_field_changed_by_any_hook_is_caught_and_put_back(field: str, hook: str) -> None:
    shard = _shard()
    before = copy.deepcopy(shard)
    engine = engine_for(_changing(hook, lambda s: object.__setattr__(s, field, object())), "x")
    with pytest.raises(
        EngineError, match=rf"hook {hook}\(\) changed what it was given \(ShardSpec.{field}\)"
    ):
        engine.plan(shard)
    assert shard == before


# --- the recorder on its own ----------------------------------------------------------------


def test_the_recorder_sees_nothing_when_nothing_changed_and_names_what_did() -> None:
    shard = make_multi_node(engine="x")
    held = Inputs((shard,))
    assert held.changed() is None
    object.__setattr__(shard.profile, "env", {"A": "1"})
    assert held.changed() == "Profile.env"
    held.restore()
    assert held.changed() is None


# --- the conformance kit fails a plugin that changes its input ------------------------------


@pytest.mark.parametrize("hook", ["validate", "commands", "notes", "help_command"])
def test_the_kit_fails_a_plugin_that_changes_its_input_naming_the_hook(hook: str) -> None:
    def change(value: Any) -> None:
        target = value.profile if isinstance(value, ShardSpec) else value
        name = "path" if isinstance(target, Command) else "name"
        object.__setattr__(target, name, "changed")

    kit = type(
        "Kit", (EngineConformance,), {"plugin": _changing(hook, change), "engine": "x", "max_examples": 3}
    )()
    with pytest.raises(
        AssertionError,
        match=rf"engine 'x' changed its input planning a .*hook {hook}\(\) changed what it was given",
    ):
        kit.test_hooks_leave_their_inputs_alone("single")


def test_the_kit_passes_a_plugin_that_leaves_its_input_alone() -> None:
    kit = type("Kit", (EngineConformance,), {"plugin": Good(), "engine": "x", "max_examples": 3})()
    kit.check_inputs_unchanged(_shard())


# --- the recorder, piece by piece ------------------------------------------------------------


def test_which_declared_types_can_hold_nothing_changeable() -> None:
    from enginekit.platform.inputs import _holds_nothing_changeable as plain

    for tp in (
        str,
        int,
        float,
        bool,
        bytes,
        type(None),
        int | None,
        tuple[int, ...],
        frozenset[str],
        tuple[str, int],
    ):
        assert plain(tp), tp
    for tp in (
        Profile,
        tuple[GPUInfo, ...],
        dict[str, str],
        list[int],
        object,
        tuple[str, list[int]],
        int | list[int],
    ):
        assert not plain(tp), tp


def test_a_class_whose_annotations_do_not_resolve_is_looked_into_everywhere() -> None:
    from enginekit.platform.inputs import _getter

    @attrs.frozen
    class Odd:
        name: str
        later: NotDefinedAnywhere  # type: ignore[name-defined]  # noqa: F821

    _getter.cache_clear()
    names, get, deep = _getter(Odd)  # type: ignore[misc]
    assert (names, deep) == (("name", "later"), (0, 1))
    assert get(Odd("a", [1])) == ("a", [1])
    assert _getter(int) is None


def test_a_class_of_one_field_is_read_as_a_one_item_tuple() -> None:
    from enginekit.platform.inputs import _getter

    @attrs.frozen
    class One:
        items: list[int]

    one = One([1])
    held = Inputs((one,))
    _getter.cache_clear()
    assert _getter(One)[1](one) == ([1],)  # type: ignore[index]
    one.items.append(2)
    assert held.changed() == "a list (its items)"
    held.restore()
    assert one.items == [1]


def test_lists_and_tables_are_recorded_by_their_items_and_put_back() -> None:
    inner = [1, 2]
    table = {"k": inner}
    outer = ("x", [table])
    held = Inputs((outer, inner))  # one object reached twice is recorded once
    assert held.changed() is None
    inner.append(3)
    assert held.changed() == "a list (its items)"
    held.restore()
    assert inner == [1, 2]
    table["new"] = []
    assert held.changed() == "a table (its items)"
    held.restore()
    assert table == {"k": [1, 2]}
    assert table["k"] is inner
    outer[1].clear()
    assert held.changed() == "a list (its items)"
    held.restore()
    assert outer[1] == [table]


def test_the_field_named_is_the_one_that_changed() -> None:
    shard = _shard()
    held = Inputs((shard,))
    object.__setattr__(shard, "http_port", 9)
    object.__setattr__(shard, "pool", "other")
    assert held.changed() == "ShardSpec.http_port"
    held.restore()
    assert (shard.http_port, shard.pool) == (8000, "")
    assert held.changed() is None


def test_a_frozen_table_passed_to_frozen_is_not_copied() -> None:
    from enginekit.base.frozen import frozen

    table = FrozenDict({"a": "1"})
    assert frozen(table) is table
    made = frozen({"a": "1"})
    assert type(made) is FrozenDict
    assert made == table
    assert frozen([("a", "1")]) == table
    assert FrozenDict({"a": "1"}, b="2") == {"a": "1", "b": "2"}
    assert hash(FrozenDict({"a": "1", "b": "2"})) == hash(frozenset({("a", "1"), ("b", "2")}))
    assert hash(FrozenDict({"a": "1"})) != hash(FrozenDict({"a": "2"}))


def test_changing_a_frozen_table_says_how_to_make_a_new_one() -> None:
    with pytest.raises(TypeError) as caught:
        FrozenDict({"a": "1"})["b"] = "2"  # type: ignore[index]
    assert str(caught.value) == (
        "this table is read-only: enginekit's model is frozen all the way down; "
        "build a new one (dict(table) | {...}) instead"
    )


def test_a_structure_that_holds_itself_is_recorded_once() -> None:
    loop: list[object] = []
    loop.append(loop)
    table: dict[str, object] = {}
    table["self"] = table
    held = Inputs((loop, table, 7, "s"))
    assert held.changed() is None
    loop.append(1)
    assert held.changed() == "a list (its items)"
    held.restore()
    assert loop == [loop]
