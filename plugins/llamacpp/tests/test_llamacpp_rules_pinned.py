"""llama.cpp command-building rules, each pinned with the reason it exists (issue 17's mutation run)."""

from __future__ import annotations

import pytest
from enginekit import Adapter, EngineError, Profile, ShardSpec
from enginekit_llamacpp.command import lora_args, offload_args


def shard(adapters: tuple[Adapter, ...] = (), **fields: object) -> ShardSpec:
    profile = Profile(name="qwen", engine="llamacpp", model_path="/m.gguf", adapters=adapters, tp=1)
    return ShardSpec(profile=profile, http_port=8080, **fields)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("path", "item"),
    [
        ("/a/x.gguf", "/a/x.gguf:0"),
        ("/a,b/x.gguf", '"/a,b/x.gguf:0"'),  # llama-server splits the list with a CSV reader
        ('"quoted.gguf', '"""quoted.gguf:0"'),  # a leading quote opens a quoted field: escape it
        ('/a,"b"/x', '"/a,""b""/x:0"'),  # a quote inside a quoted field is doubled
        ('/a"b', '/a"b:0'),  # a quote inside an unquoted field is only a character
    ],
)
def test_each_adapter_path_reaches_llama_server_as_one_csv_field(path: str, item: str) -> None:
    # A path read as two fields would load half of it as an adapter and the rest as another.
    assert lora_args(shard((Adapter(name="a", path=path),), gpu_indices=(0,))) == ["--lora-scaled", item]


@pytest.mark.parametrize(("shard_id", "named"), [("s-0", "s-0"), ("", "(unnamed)")])
def test_a_cpu_shard_of_a_multi_gpu_profile_is_refused_naming_the_shard(shard_id: str, named: str) -> None:
    profile = Profile(name="big", engine="llamacpp", model_path="/m.gguf", tp=2)
    with pytest.raises(EngineError) as err:
        offload_args(ShardSpec(profile=profile, shard_id=shard_id, http_port=8080))
    assert str(err.value) == (
        f"shard {named}: profile 'big' asks for 2 GPUs, but the shard has none; a CPU shard runs tp = 1"
    )


# --- what llama-server's parser takes for an option (flags.ServerSyntax) ----------------------

STRAY = (
    "profile 'p': args[{i}]: not an option, and {flag!r} (args[0]) before it takes {takes}, so "
    "llama-server would read it as a positional argument; a profile's args may give none "
    "(enginekit passes the model itself): remove it, or put it right after the option it is a "
    "value of"
)


def arg_problems(*args: str) -> list[str]:
    from enginekit.testing import engine_for
    from enginekit_llamacpp import LlamaCppConfig, LlamaCppEngine

    prof = Profile(name="p", engine="llamacpp", tp=1, model_path="/models/m.gguf", args=args)
    engine = engine_for(LlamaCppEngine(LlamaCppConfig()), "llamacpp")
    return engine.validate(prof, [])


@pytest.mark.parametrize(
    ("args", "takes"), [(("-c", "4096", "-"), "exactly 1 value"), (("-c", "4096", "-1"), "exactly 1 value")]
)
def test_a_lone_dash_or_a_negative_number_is_a_word_not_an_option(args: tuple[str, ...], takes: str) -> None:
    # llama-server reads neither as an option: after a value it is a stray positional word.
    assert arg_problems(*args) == [STRAY.format(i=2, flag="-c", takes=takes)]


def test_a_short_option_glued_to_a_value_holding_equals_is_still_that_option() -> None:
    (problem,) = arg_problems("-C=a=b")
    assert problem.startswith("profile 'p': args: '-C' sets --cpu-mask, which enginekit manages; ")
