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
