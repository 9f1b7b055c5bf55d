"""Every engine's table of aliases, read from its policy: each alias is judged as its target (issue 30).

An engine may read one name as another (SGLang's ``SGL_X`` as ``SGLANG_X``, its ``HOST_IP``
as ``SGLANG_HOST_IP``; llama-server's ``AIP_HTTP_PORT`` as its port; vLLM's
``DJ_JIT_NVCC_COMPILER`` as the compiler DeepGEMM runs; TensorRT-LLM's ``TLLM_RANK`` as
``RANK``). For each alias an engine declares, under the built-in policy and under a site that
opens the alias by name: where the target is refused, so is the alias, saying which name the
engine reads it as; where the target is open, the alias is judged by its own spelling alone.

TensorRT-LLM's were read in its repository's sources: its usage reporter stops on
``DO_NOT_TRACK`` and ``TELEMETRY_DISABLED`` as on ``TRTLLM_NO_USAGE_STATS``
(``usage/usage_lib.py``), and its C++ logger takes its rank from ``TLLM_RANK`` before ``RANK``
(``cpp/tensorrt_llm/common/logger.cpp``). It copies no prefix and reads no ``TLLM_`` name under a
``TRTLLM_`` spelling or the reverse; the names of its launchers that the ``TLLM_`` groups miss
are denied by its policy instead (``plugins/trtllm/tests``).
"""

from __future__ import annotations

import attrs
import pytest
from enginekit import Registry, registry_for
from enginekit.policy.engine import EnvAlias
from enginekit.policy.env import EnvPolicy

from tests.conftest import EXAMPLES

#: The aliases each engine must declare, at the least: what its sources were read for.
EXPECTED = {
    "vllm": {"DJ_JIT_NVCC_COMPILER", "DO_NOT_TRACK", "JAX_PLATFORMS"},
    "sglang": {"SGL_", "HOST_IP"},
    "llamacpp": {"AIP_HTTP_PORT", "AIP_MODE", "MODEL_ENDPOINT"},
    "trtllm": {"DO_NOT_TRACK", "TELEMETRY_DISABLED", "TLLM_RANK"},
    "sim": set(),
}

#: What an alias that stands for a prefix is tried with.
SUFFIXES = ("HOST_IP", "PORT", "USE_MODELSCOPE", "LOG_LEVEL", "ENABLE_JIT_DEEPGEMM")


@pytest.fixture(scope="module")
def registry() -> Registry:
    return registry_for(EXAMPLES / "node-config.toml")


def names(alias: EnvAlias) -> list[tuple[str, str]]:
    """``(alias name, target name)`` pairs to judge."""
    if not alias.prefix:
        return [(alias.alias, alias.target)]
    return [(alias.alias + rest, alias.target + rest) for rest in SUFFIXES]


@pytest.mark.parametrize("engine", sorted(EXPECTED))
def test_each_engine_declares_the_aliases_its_sources_show(registry: Registry, engine: str) -> None:
    declared = {alias.alias for alias in registry.engine(engine).policy.env_aliases}
    assert EXPECTED[engine] <= declared


@pytest.mark.parametrize("engine", sorted(EXPECTED))
def test_each_alias_is_refused_where_its_target_is_and_judged_alone_where_it_is_open(
    registry: Registry, engine: str
) -> None:
    handle = registry.engine(engine)
    checked = 0
    for alias in handle.policy.env_aliases:
        for name, target in names(alias):
            # The built-in policy, and a site that names the alias in allow (as if to open it).
            for site in (EnvPolicy(), EnvPolicy(allow=frozenset({name.upper()}))):
                policy = site.for_engine(handle.policy)
                # The same engine as if it declared no alias: the name by its spelling alone.
                alone = site.for_engine(attrs.evolve(handle.policy, env_aliases=()))
                bad, why = policy.unsafe_env(name)
                if policy.unsafe_env(target)[0]:
                    assert bad, (engine, name)
                    if not alone.unsafe_env(name)[0]:
                        assert why.startswith(f"the engine reads it as {target}"), (engine, name, why)
                else:
                    assert (bad, why) == alone.unsafe_env(name), (engine, name)
                checked += 1
    assert checked >= 2 * len(EXPECTED[engine])


@pytest.mark.parametrize(
    ("engine", "name", "target"),
    [
        ("vllm", "DJ_JIT_NVCC_COMPILER", "DG_JIT_NVCC_COMPILER"),
        ("sglang", "HOST_IP", "SGLANG_HOST_IP"),
        ("llamacpp", "AIP_HTTP_PORT", "LLAMA_ARG_PORT"),
        ("llamacpp", "MODEL_ENDPOINT", "HF_ENDPOINT"),
        ("trtllm", "TLLM_RANK", "RANK"),
    ],
)
def test_a_site_that_opens_an_alias_by_name_still_cannot_open_its_refused_target(
    registry: Registry, engine: str, name: str, target: str
) -> None:
    policy = EnvPolicy(allow=frozenset({name})).for_engine(registry.engine(engine).policy)
    bad, why = policy.unsafe_env(name)
    assert bad
    assert why.startswith(f"the engine reads it as {target} (")
    # Unknown to the built-in policy; it is the alias that keeps a site's allow from opening it.
    assert not EnvPolicy(allow=frozenset({name})).unsafe_env(name)[0]


@pytest.mark.parametrize("name", ["LLAMA_APP_CMD", "LLAMA_CACHE", "MTMD_BACKEND_DEVICE"])
def test_llamacpps_own_option_names_are_a_floor_a_site_allow_cannot_open(
    registry: Registry, name: str
) -> None:
    policy = EnvPolicy(allow=frozenset({name})).for_engine(registry.engine("llamacpp").policy)
    bad, why = policy.unsafe_env(name)
    assert bad
    assert "allow_unsafe" in why
