"""Hostile review of the embedding API and the versioned JSON formats.

Two kinds of test live here. Tests whose docstring starts with "DEFECT" pin a problem
found by attacking ``load_spec``, ``ShardSpec``/``LaunchPlan`` ``to_dict``/``from_dict``, the
published schemas and the ``spec`` command: each fails until the code is fixed. The
others pin behaviour that was attacked and held, so that it keeps holding.
"""

from __future__ import annotations

import copy
import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import attrs
import jsonschema
import pytest
from enginekit import (
    FORMAT_VERSION,
    Command,
    ConfigError,
    EngineError,
    LaunchPlan,
    ShardSpec,
    SpecError,
    load_config,
    load_spec,
    registry_for,
    schema,
)
from enginekit.cli import main
from enginekit.placement.env import DroppedVar
from enginekit.spec.model import Profile
from enginekit.testing.factories import make_profile, make_shard
from hypothesis import HealthCheck, given, settings

KEY = "ekt.Q7vXr2Lm9ZpK4wTb8NcYs3Hd"
MASK = "<secret>"
NO_CONFIG = {"ENGINEKIT_CONFIG": ""}
SPEC = {"profile": {"name": "p", "engine": "sim"}}


def toy_plan(**changes: Any) -> LaunchPlan:
    """A plan built by hand (no plugin needed): a sidecar and a main process holding the key."""
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
                args=("--port", "8000"),
                env={"CUDA_VISIBLE_DEVICES": "0", "TOY_KEY": KEY},
                secret_env=frozenset({"TOY_KEY"}),
                why={"CUDA_VISIBLE_DEVICES": "the shard's GPUs"},
            ),
        ),
        "serves_http": True,
        "health_path": "/health",
        "metrics_path": "/metrics",
        "notes": ("a note",),
        "dropped_env": (DroppedVar("NCCL_ALGO", "denied by the site"),),
    }
    return LaunchPlan(**(fields | changes))


def wire(plan: LaunchPlan, *, show_secrets: bool = True) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(json.dumps(plan.to_dict(show_secrets=show_secrets)))
    return data


def spec_problems(raw: object, **kwargs: Any) -> list[str]:
    with pytest.raises(SpecError) as caught:
        load_spec(raw, **kwargs)  # type: ignore[arg-type]
    return list(caught.value.problems)


def plan_problems(raw: object) -> list[str]:
    with pytest.raises(SpecError) as caught:
        LaunchPlan.from_dict(raw)  # type: ignore[arg-type]
    return list(caught.value.problems)


def validator(kind: str) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(schema(kind))


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv), NO_CONFIG)
    out, err = capsys.readouterr()
    return code, out, err


def stdin(monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text.encode()), encoding="utf-8"))


def engines_ok() -> list[str]:
    return [status.name for status in registry_for(None, {}).statuses() if status.status == "ok"]


# --- defects: secrets -----------------------------------------------------------------------


@pytest.mark.parametrize("wrong", [[KEY], {"value": KEY}, [KEY, 5]])
def test_a_wrong_typed_api_key_still_masks_the_key_elsewhere(wrong: object) -> None:
    """DEFECT: a key sent in a wrong-typed ``api_key`` is echoed by other fields' messages.

    ``_normalise`` collects the key for masking only when ``api_key`` is a string, so
    ``{"api_key": ["<key>"], "gpu_uuids": "<key>"}`` prints the key in
    ``spec.gpu_uuids: expected a list, got str '<key>'`` (its own comment says "a list
    holding the key is still the key"). Error messages end up in logs and on stderr; the
    docs promise "No message ever holds the API key". Fix: when a secret field holds a
    non-string, collect every string inside it into ``secrets`` before reporting.
    """
    raw = {**SPEC, "api_key": wrong, "gpu_uuids": KEY, "replica_id": KEY}
    problems = spec_problems(raw)
    assert not any(KEY in problem for problem in problems), problems


def test_the_spec_command_masks_a_key_sent_in_a_wrong_typed_field(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """DEFECT: ``enginekit spec -`` prints the key on stderr when ``api_key`` is a list.

    The command masks only the string-valued ``api_key`` entries of the raw document, so
    the same leak as in :func:`load_spec` reaches the terminal. Fix with the loader's
    masking, and collect strings inside a non-string ``api_key`` in ``Run.document``.
    """
    stdin(monkeypatch, json.dumps({**SPEC, "api_key": [KEY], "gpu_uuids": KEY}))
    code, out, err = cli(capsys, "spec", "-")
    assert (code, out) == (2, "")
    assert KEY not in err


def test_reading_a_plan_never_echoes_the_key_in_a_consistency_problem() -> None:
    """DEFECT: the problems ``read_plan`` finds after structuring are not masked.

    A plan whose derived ``replica_id`` (or ``engine``) holds the key is refused with
    ``plan.replica_id: '<key>' does not match the shard``: the key, verbatim, in an
    error a node agent logs. Structuring masks its own problems; the derived-field,
    engine and secret_env checks in ``read_plan`` bypass that. Fix: pass them through
    the same masking with ``doc.shard.api_key`` (and the secret env values).
    """
    data = wire(toy_plan()) | {"replica_id": KEY, "engine": KEY}
    problems = plan_problems(data)
    assert problems
    assert not any(KEY in problem for problem in problems), problems


def test_a_key_with_characters_repr_escapes_is_still_masked() -> None:
    """DEFECT: a key holding a backslash or both quotes is shown, escaped, unmasked.

    ``load_spec`` checks no key rules, and messages show values with ``repr``, which
    doubles a backslash: the escaped text no longer contains the key verbatim, so
    masking misses it and ``spec.rank: expected an integer, got str 'a\\\\Zq7…'``
    shows it. Fix: also mask ``repr(secret)[1:-1]`` (or refuse such keys while
    structuring, without echoing them).
    """
    tail = "Zq7Xv9Lm2Pw4Rt8Ks"
    key = "a\\" + tail
    problems = spec_problems({**SPEC, "api_key": key, "rank": key})
    assert not any(tail in problem for problem in problems), problems


def test_a_masked_spec_dump_masks_the_key_wherever_it_appears() -> None:
    """DEFECT: ``ShardSpec.to_dict()`` masks ``api_key`` but not the key pasted elsewhere.

    ``LaunchPlan.to_dict()`` scrubs the key from every field and ``enginekit spec``
    masks it in all of its output, but the library's own spec dump leaves it in
    ``profile.env`` and ``profile.args``: a scheduler logging ``spec.to_dict()`` as the
    docs suggest ("Secrets are masked unless show_secrets=True") leaks it. Fix: scrub
    the dump as ``plan_dict`` does.
    """
    spec = make_shard(make_profile(engine="sim", env={"TOKENIZERS_PARALLELISM": KEY}, args=("--x", KEY)))
    for go_names in (False, True):
        assert KEY not in json.dumps(spec.to_dict(go_names=go_names))


def test_masking_a_plan_never_rewrites_the_formats_own_field_names() -> None:
    """DEFECT: ``LaunchPlan.to_dict()`` replaces the key inside the JSON's own keys.

    ``_scrub`` masks mapping keys too, so a key the spec rules accept
    (``wait_for_leader_port``, 20 characters of the key alphabet) turns the command's
    field ``wait_for_leader_port`` into ``<secret>``: the masked plan no longer fits
    the published schema, and a reader in another language cannot parse it. (A short
    key read back through ``from_dict``, which checks no rules, rewrites every field
    holding its letters.) Fix: scrub values and env/why names only, never the format's
    field names.
    """
    if "sim" not in engines_ok():
        pytest.skip("the sim engine is not installed")
    plan = registry_for(None, {}).engine("sim").plan(make_shard(engine="sim", api_key="wait_for_leader_port"))
    masked = wire(plan, show_secrets=False)
    assert validator("plan").is_valid(masked), list(validator("plan").iter_errors(masked))[:3]


# --- defects: what reading a plan lets through ------------------------------------------------


def _bad_env_name(name: str) -> dict[str, Any]:
    data = wire(toy_plan())
    data["commands"][1]["env"][name] = "x"
    return data


def _no_path() -> dict[str, Any]:
    data = wire(toy_plan())
    data["commands"][0]["path"] = ""
    del data["commands"][0]["shell"]
    return data


def _url_path(field: str, value: str) -> dict[str, Any]:
    data = wire(toy_plan()) | {field: value}
    data[field.replace("_path", "_url")] = None
    return data


@pytest.mark.parametrize(
    "make",
    [
        pytest.param(lambda: _bad_env_name("CUDA_VISIBLE_DEVICES=7"), id="env-name-with-equals"),
        pytest.param(lambda: _bad_env_name(""), id="empty-env-name"),
        pytest.param(lambda: _bad_env_name("1BAD"), id="env-name-starting-with-a-digit"),
        pytest.param(lambda: _bad_env_name("A B"), id="env-name-with-a-space"),
        pytest.param(_no_path, id="empty-command-path"),
        pytest.param(lambda: _url_path("health_path", "@evil.example/"), id="health-path-userinfo"),
        pytest.param(lambda: _url_path("metrics_path", "metrics"), id="metrics-path-without-slash"),
    ],
)
def test_reading_a_plan_refuses_commands_the_plugin_contract_refuses(make: Any) -> None:
    """DEFECT: ``LaunchPlan.from_dict`` accepts commands no engine may return.

    The contract refuses a plugin's command with a non-portable env name (an entry
    ``CUDA_VISIBLE_DEVICES=7=x`` is a second definition of the real variable to a Go
    ``exec.Cmd``; ``subprocess.Popen`` raises ``ValueError``), an empty path, or a health
    or metrics path not starting with ``/`` (``@evil.example/`` makes the health URL
    ``http://10.0.0.5:8000@evil.example/``). ``from_dict`` "checks the shape, types and
    text of every field" yet lets all of these through. Fix: run the contract's command
    and URL-path checks in ``read_plan``.
    """
    plan_problems(make())


def test_a_plan_serving_http_must_not_null_its_urls() -> None:
    """DEFECT: derived URLs may be null on a plan that serves HTTP.

    ``read_plan`` checks a derived field only when it is not null, and the schema makes
    every derived field optional and nullable. ``base_url: null`` with
    ``serves_http: true`` is accepted, so a Go reader trusting the derived fields (the
    docs: "so a reader does not have to compute them") sees a shard with no API. Fix:
    null only where ``to_dict`` writes null (no HTTP), else refuse the mismatch.
    """
    data = wire(toy_plan()) | {"base_url": None, "health_url": None, "metrics_url": None}
    problems = plan_problems(data)
    assert any("base_url" in problem for problem in problems), problems


# --- defects: the schemas and the loader disagree ---------------------------------------------


def _plan_with(**changes: Any) -> dict[str, Any]:
    return wire(toy_plan()) | changes


def _plan_with_integral_float() -> dict[str, Any]:
    data = wire(toy_plan())
    data["shard"]["profile"]["tp"] = 1.0
    return data


@pytest.mark.parametrize(
    "make",
    [
        pytest.param(lambda: _plan_with(commands=[]), id="no-commands"),
        pytest.param(lambda: _plan_with(format_version="1.1234567"), id="seven-digit-minor"),
        pytest.param(lambda: _plan_with(format_version="1.0\n"), id="version-with-newline"),
    ],
)
def test_the_plan_schema_and_the_reader_agree_on_shapes_and_types(make: Any) -> None:
    """DEFECT: the plan schema accepts documents ``from_dict`` refuses for shape or type.

    The docs say a schema-valid document is refused only for enginekit's own rules
    (control characters, bounds, flags). But: ``commands: []`` (no ``minItems``), a
    minor version of 7 digits (the pattern has ``[0-9]+``, the reader ``{1,6}``), a
    trailing newline (Python's ``jsonschema`` reads ``$`` as "before a final newline";
    ``(?!\\n)`` after it fixes that), and ``8.0`` for an integer (JSON Schema's
    ``integer`` accepts it; the reader refuses any float). Fix the schema where it can
    say it; for integral floats the reader must accept them or the docs must say so.
    """
    data = make()
    try:
        LaunchPlan.from_dict(data)
        reads = True
    except SpecError:
        reads = False
    assert validator("plan").is_valid(data) == reads


def test_an_integral_float_is_refused_by_the_reader_as_go_refuses_it() -> None:
    """The one shape JSON Schema cannot say: ``integer`` admits ``1.0``.

    The reader refuses it, as Go's encoding/json refuses ``1.0`` for an ``int``;
    docs/plan-format.md says integers are written without a fraction.
    """
    data = _plan_with_integral_float()
    assert validator("plan").is_valid(data)
    assert any("expected an integer, got float 1.0" in p for p in plan_problems(data))


def test_the_go_schema_accepts_the_nulls_go_writes() -> None:
    """DEFECT: the ``spec-go`` schema refuses specs the Go agent actually persists.

    encoding/json writes a nil slice or map as ``null``: a CPU shard's ``GPUIndices``,
    a profile with no ``Args``, ``Env`` or ``Adapters``. The loader reads ``null`` as
    "not set" (on purpose, see ``_normalise``), but the schema published for the Go
    agent's names types those fields as array/object only, so a Go scheduler validating
    its own output against ``enginekit schema spec-go`` fails. Fix: allow ``null`` for
    collection fields in the schemas (at least ``spec-go``).
    """
    go_zero = {
        "ReplicaID": "r1",
        "GPUIndices": None,
        "gpu_uuids": None,
        "HCAs": None,
        "Profile": {"Name": "p", "Engine": "sim", "Args": None, "Env": None, "Adapters": None},
    }
    assert load_spec(go_zero).spec.profile.args == ()
    errors = [error.message for error in validator("spec-go").iter_errors(go_zero)]
    assert errors == []


# --- defects: the embedding API ---------------------------------------------------------------


def test_load_spec_names_the_document_in_field_problems() -> None:
    """DEFECT: ``load_spec(..., name=...)`` is ignored in field problems.

    The docstring says ``name`` is "what to call the document in messages", but every
    field problem starts ``spec.``: a scheduler loading a thousand specs cannot tell
    which one ``spec.profile.tp: expected an integer`` is about. Fix: use ``name`` (and a
    file's path) as the prefix, or say the problems come with ``spec.`` only.
    """
    problems = spec_problems({"profile": {"name": "p", "engine": "sim", "tp": "8"}}, name="shard-7")
    assert any("shard-7" in problem for problem in problems), problems


def test_an_integer_beyond_any_digits_limit_gets_a_plain_message() -> None:
    """DEFECT: an integer of more than 4300 digits reports Python's conversion limit.

    ``_strict_int`` measures the value with ``len(str(value))``, which itself raises,
    so a mapping holding ``10**5000`` (a Python caller's, or a decoder without the
    limit) gets "Exceeds the limit (4300 digits) for integer string conversion; use
    sys.set_int_max_str_digits()". Fix: size it with ``int.bit_length()``.
    """
    problems = spec_problems({"profile": {"name": "p", "engine": "sim", "tp": 10**5000}})
    assert len(problems) == 1
    assert problems[0].startswith("spec.profile.tp: ")
    assert "set_int_max_str_digits" not in problems[0]
    assert "64 bits" in problems[0]


def test_lenient_loading_refuses_a_key_go_folds_onto_a_field() -> None:
    """DEFECT: in lenient mode a Kelvin-sign ``api_Key`` is dropped; Go reads it as the key.

    Go's encoding/json folds field names with Unicode simple folding, so the Go agent
    reads ``"api_\\u212aey"`` as ``api_key``. enginekit (rightly) never folds it, but in
    lenient mode reports it as unknown and plans the shard without the key the agent
    believes it set: the two sides disagree about whether the engine is authenticated.
    Fix: a non-ASCII key that Unicode case folding maps onto a field is an error even
    when lenient.
    """
    raw = {**SPEC, "api_\u212aey": KEY}
    spec_problems(raw, lenient=True)


def test_load_config_takes_a_str_path_as_registry_for_does() -> None:
    """DEFECT: the exported ``load_config`` crashes with AttributeError on a ``str`` path.

    ``registry_for`` takes a str path; ``load_config`` (documented beside it as
    ``load_config(path, required=True)``) reads the file and then calls ``path.suffix``
    on the str. Fix: accept ``str | os.PathLike`` (or raise ConfigError).
    """
    path = Path(__file__).resolve().parents[2] / "examples" / "node-config.toml"
    try:
        got = load_config(str(path), required=True)  # type: ignore[arg-type]
    except ConfigError:
        return
    assert got == load_config(path, required=True)


# --- verified good behaviour: the package's laziness ------------------------------------------


def test_importing_enginekit_loads_nothing_it_does_not_use() -> None:
    """``import enginekit`` imports no registry, pluggy or cattrs; names load on first use,
    ``dir`` lists every export, ``import *`` works and an unknown name is a plain AttributeError."""
    code = """
import sys, enginekit
assert "pluggy" not in sys.modules and "cattrs" not in sys.modules
assert not any(m.startswith("enginekit.") and m not in ("enginekit._version", "enginekit.base", "enginekit.base.lazy", "enginekit.base.moved") for m in sys.modules), sorted(sys.modules)
assert set(enginekit.__all__) <= set(dir(enginekit))
enginekit.FORMAT_VERSION, enginekit.ShardSpec, enginekit.load_spec, enginekit.LaunchPlan
assert "pluggy" not in sys.modules and "enginekit.platform.registry" not in sys.modules
try:
    enginekit.no_such_name
except AttributeError as exc:
    assert "no_such_name" in str(exc)
else:
    raise SystemExit("no AttributeError")
ns = {}
exec("from enginekit import *", ns)
assert set(enginekit.__all__) <= set(ns)
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


# --- verified good behaviour: format_version, hostile shapes, spellings -----------------------


@pytest.mark.parametrize(
    "version",
    [" 1.0", "1.0 ", "1.0.0", "1", "1.", "١.٠", "1.٠", "𝟏.0", "+1.0", "1_0.0", "1.0\x00", True, 1, b"1.0"],
)
def test_malformed_format_versions_are_refused(version: object) -> None:
    """Whitespace, a third part, non-ASCII digits, signs, underscores, bools and numbers are
    never read as a version (Python's int() would accept several of them)."""
    problems = plan_problems(wire(toy_plan()) | {"format_version": version})
    assert problems[0].startswith("plan.format_version: expected a version like '1.4', got ")


def test_a_zero_padded_minor_is_this_minor_and_a_newer_minor_is_lenient() -> None:
    """``1.00`` is 1.0 (strict); ``1.999999`` is newer (unknown fields left out); the mask is
    refused whatever the minor."""
    assert LaunchPlan.from_dict(wire(toy_plan()) | {"format_version": "1.00"}) == toy_plan()
    assert plan_problems(wire(toy_plan()) | {"format_version": "1.00", "extra": 1}) == [
        "plan.extra: unknown field"
    ]
    assert LaunchPlan.from_dict(wire(toy_plan()) | {"format_version": "1.999999", "extra": 1}) == toy_plan()
    masked = wire(toy_plan(), show_secrets=False) | {"format_version": "1.5"}
    assert any("holds the mask" in problem for problem in plan_problems(masked))


def _deep_list(depth: int) -> object:
    value: object = "x"
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize(
    ("where", "value"),
    [
        ("notes", _deep_list(50_000)),
        ("notes", {"a", "b"}),
        ("notes", [float("nan")]),
        ("notes", [b"x"]),
        ("serves_http", 1),
        ("health_path", None),
    ],
)
def test_hostile_shapes_are_problems_naming_their_path(where: str, value: object) -> None:
    """Deep nesting, sets, NaN, bytes and wrong scalars are a SpecError naming the field,
    never a RecursionError or a traceback."""
    problems = plan_problems(wire(toy_plan()) | {where: value})
    assert problems
    assert all(problem.startswith("plan.") for problem in problems)


def test_two_spellings_of_one_field_are_refused_and_lookalikes_are_not_fields() -> None:
    """``ReplicaID`` beside ``replica_id`` is "given twice"; a Kelvin-sign ``api_Key`` is an
    unknown field (never the key), and masked in what it reports."""
    assert spec_problems({**SPEC, "replica_id": "a", "ReplicaID": "b"}) == [
        "spec.ReplicaID: given twice (as 'replica_id' and 'ReplicaID')"
    ]
    problems = spec_problems({**SPEC, "api_\u212aey": KEY})
    assert len(problems) == 1
    assert problems[0].endswith(": not a field name, but one Go would read as 'api_key'")
    assert KEY not in problems[0]
    data = wire(toy_plan())
    data["Shard"] = data["shard"]
    assert plan_problems(data) == ["plan.Shard: given twice (as 'shard' and 'Shard')"]


def test_non_string_keys_and_huge_lists_are_handled() -> None:
    """An int key is an unknown field; a million GPU indices structure quickly (the rules,
    run when planning, bound them)."""
    raw: dict[object, object] = {"profile": SPEC["profile"], 5: "x"}
    assert spec_problems(raw) == ["spec.5: unknown field"]
    data = wire(toy_plan())
    data["shard"]["gpu_indices"] = list(range(1_000_000))
    assert len(LaunchPlan.from_dict(data).shard.gpu_indices) == 1_000_000


# --- verified good behaviour: secrets that are masked -----------------------------------------


def test_the_key_in_field_names_and_values_is_masked_in_problems() -> None:
    """The key used as an unknown field's name, pasted into a wrong-typed field, or cut
    short by a message, never appears in a problem; lenient unknowns are masked too."""
    problems = spec_problems({**SPEC, "api_key": KEY, KEY: 1, "rank": KEY, "gpu_uuids": KEY})
    assert not any(KEY in problem for problem in problems), problems
    long_key = "sk-live-" + "Ab3" * 30
    problems = spec_problems({**SPEC, "api_key": long_key, "rank": long_key})
    assert not any(long_key[:12] in problem for problem in problems), problems
    unknown = load_spec({**SPEC, "api_key": KEY, "x_" + KEY: 1}, lenient=True).unknown
    assert unknown == ("spec.x_<secret>: unknown field",)


def test_masked_documents_are_refused_in_every_spelling() -> None:
    """A masked spec (either spelling, lenient or not) and a masked plan never read back."""
    spec = make_shard(engine="sim")
    for go_names in (False, True):
        masked = spec.to_dict(go_names=go_names)
        assert masked["api_key"] == MASK
        for lenient in (False, True):
            assert "holds the mask" in spec_problems(masked, lenient=lenient)[0]
    data = wire(toy_plan(), show_secrets=False)
    assert KEY not in json.dumps(data)
    assert len(plan_problems(data)) == 2


def test_a_plan_with_the_key_in_notes_and_why_masks_it_everywhere() -> None:
    """``LaunchPlan.to_dict()`` scrubs the key from notes, why, args, env names and dropped_env."""
    command = Command(
        path="/bin/toy",
        args=("--token-file", f"/run/{KEY}"),
        env={f"X_{KEY.replace('.', '_')}": "1", "TOY_KEY": KEY},
        secret_env=frozenset({"TOY_KEY"}),
        why={"TOY_KEY": f"the key {KEY}"},
    )
    plan = toy_plan(commands=(command,), notes=(f"key {KEY}",), dropped_env=(DroppedVar("NCCL_ALGO", KEY),))
    assert KEY not in json.dumps(plan.to_dict())


# --- verified good behaviour: round trips -----------------------------------------------------


@pytest.mark.parametrize("engine", engines_ok() or ["none"])
def test_plans_and_specs_of_every_engine_read_back_equal_through_json(engine: str) -> None:
    """For every installed engine: a spec reads back equal in both spellings, a plan reads
    back equal and rewrites to the same JSON, both fit their schemas, and the masked
    forms hide the key and are refused."""
    if engine == "none":
        pytest.skip("no engine plugin is installed")
    from enginekit.testing.strategies import shards

    built = registry_for(None, {}).engine(engine)
    plans, specs, spec_go = validator("plan"), validator("spec"), validator("spec-go")

    @settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
    @given(shards(engine))
    def check(spec: ShardSpec) -> None:
        for go_names, schema_of in ((False, specs), (True, spec_go)):
            data = json.loads(json.dumps(spec.to_dict(go_names=go_names, show_secrets=True)))
            assert schema_of.is_valid(data)
            assert ShardSpec.from_dict(data) == spec
            assert load_spec(json.dumps(data)).spec == spec
        try:
            plan = built.plan(spec)
        except (SpecError, EngineError):
            return  # a shape this engine refuses (vLLM: MIG), as documented
        data = wire(plan)
        assert plans.is_valid(data)
        back = LaunchPlan.from_dict(data)
        assert back == plan
        assert wire(back) == data
        if spec.api_key:
            masked = wire(plan, show_secrets=False)
            assert spec.api_key not in json.dumps(masked)
            assert plan_problems(masked)

    check()


# --- verified good behaviour: inputs and the registry -----------------------------------------


def test_load_spec_refuses_what_is_not_a_regular_small_file(tmp_path: Path) -> None:
    """A directory, a FIFO (never blocking), a missing file and a file over 1 MiB are
    each one SpecError naming the path; a path given as a str gets the hint."""
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs on this platform")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    big = tmp_path / "big.json"
    big.write_text('{"x": "' + "a" * (1024 * 1024) + '"}')
    assert spec_problems(tmp_path) == [f"{tmp_path}: cannot read: not a regular file"]
    assert spec_problems(fifo) == [f"{fifo}: cannot read: not a regular file"]
    assert spec_problems(tmp_path / "missing.toml") == [
        f"{tmp_path / 'missing.toml'}: cannot read: No such file or directory"
    ]
    assert "larger than 1048576 bytes" in spec_problems(big)[0]
    hint = spec_problems(str(tmp_path / "shard.toml"))[-1]
    assert hint.endswith("pass a pathlib.Path")


def test_registry_for_refuses_unusable_configs_as_config_errors(tmp_path: Path) -> None:
    """A wrong type, a missing file (str or Path), a directory and a shard spec given as
    the config are ConfigErrors; ``environ`` None and ``{}`` mean the same."""
    for config in (5, str(tmp_path / "missing.toml"), tmp_path / "missing.toml", tmp_path):
        with pytest.raises(ConfigError):
            registry_for(config, {})  # type: ignore[arg-type]
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps(SPEC))
    with pytest.raises(ConfigError, match="a shard spec"):
        registry_for(spec)
    assert registry_for(None, None).names() == registry_for(None, {}).names()


# --- verified good behaviour: the spec and schema commands ------------------------------------


def test_the_spec_command_masks_round_trips_and_refuses_its_own_masked_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``spec`` masks the key everywhere (even pasted into profile.env), ``--show-secrets``
    output reads back equal, and piping masked output back in is exit 2, key unshown."""
    path = tmp_path / "spec.json"
    raw = {**SPEC, "api_key": KEY, "profile": {**SPEC["profile"], "env": {"X": KEY}}}
    path.write_text(json.dumps(raw))
    code, out, err = cli(capsys, "spec", str(path))
    assert (code, err) == (0, "")
    assert KEY not in out
    code, shown, err = cli(capsys, "spec", str(path), "--go-names", "--show-secrets")
    assert (code, err) == (0, "")
    assert load_spec(shown).spec == load_spec(path).spec
    stdin(monkeypatch, out)
    code, again, err = cli(capsys, "spec", "-")
    assert (code, again) == (2, "")
    assert "holds the mask" in err


@pytest.mark.parametrize("kind", ["plan", "spec", "spec-go"])
def test_the_schema_command_prints_valid_json_of_the_current_format(
    kind: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """``enginekit schema KIND`` exits 0 with the shipped, valid draft 2020-12 schema."""
    code, out, err = cli(capsys, "schema", kind)
    assert (code, err) == (0, "")
    jsonschema.Draft202012Validator.check_schema(json.loads(out))
    if kind == "plan":
        assert FORMAT_VERSION in json.loads(out)["title"]


def test_environ_merges_generated_variables_over_the_inherited_ones() -> None:
    """``Command.environ`` lets generated variables win and never changes what it is given."""
    command = Command(path="/x", env={"CUDA_VISIBLE_DEVICES": "0"})
    inherited = {"CUDA_VISIBLE_DEVICES": "7", "PATH": "/usr/bin"}
    assert command.environ(inherited) == {"CUDA_VISIBLE_DEVICES": "0", "PATH": "/usr/bin"}
    assert inherited["CUDA_VISIBLE_DEVICES"] == "7"
    assert attrs.evolve(command).environ({}) == {"CUDA_VISIBLE_DEVICES": "0"}


def test_copying_a_wire_plan_keeps_it_readable() -> None:
    """A deep copy of the wire form (what a scheduler queues) reads back equal."""
    assert LaunchPlan.from_dict(copy.deepcopy(wire(toy_plan()))) == toy_plan()
