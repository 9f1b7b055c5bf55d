"""SGLang reads every ``SGL_X`` as ``SGLANG_X``: the old spelling is refused wherever the new one is.

From 0.5.3 SGLang copies each ``SGL_*`` variable over its ``SGLANG_*`` name when
``sglang.srt.environ`` is imported, at every start. The SGLang policy opens both
namespaces, so before its aliases were declared ``SGL_HOST_IP`` moved the rendezvous,
``SGL_CPU_OMP_THREADS_BIND`` overrode the generated CPU binding and
``SGL_USE_MODELSCOPE`` fetched the model from another hub, each while its ``SGLANG_``
spelling was refused. This file holds its own list of those names on purpose.
"""

from __future__ import annotations

import pytest
from enginekit import Profile
from enginekit.plugin import parse_version
from enginekit.policy.env import EnvPolicy
from enginekit.testing import engine_for
from enginekit_sglang import SglangConfig, SglangEngine
from enginekit_sglang.policy import HOST_IP_ALIAS, SGL_ALIAS, SGL_COPIED_SINCE, aliases, engine_policy

ENGINE = engine_for(SglangEngine(), "sglang")
READ_AS = "the engine reads it as SGLANG_{rest} (SGLang copies every SGL_* variable over SGLANG_* at start)"

#: Each refused under its SGLANG_ name, and why, as the policy says it.
REFUSED = {
    "HOST_IP": "reserved by the engine",
    "PORT": "reserved by the engine",
    "GRPC_PORT": "reserved by the engine",
    "TCP_STORE_PORT": "reserved by the engine",
    "DISTRIBUTED_INIT_METHOD_OVERRIDE": "reserved by the engine",
    "CPU_OMP_THREADS_BIND": "reserved by the engine",
    "USE_MODELSCOPE": "another hub (ModelScope)",
    "PLATFORM": "SGLang would import a package",
    "ENABLE_REQUEST_HEADER_OVERRIDES": "SGLang would import a package",
    "TEST_ANYTHING": "SGLang would import a package",
    "HICACHE_STORAGE_BACKEND": "SGLang would import a package",
}


@pytest.mark.parametrize(("rest", "why"), sorted(REFUSED.items()))
def test_the_old_spelling_is_refused_as_the_new_one(rest: str, why: str) -> None:
    policy = ENGINE.env_policy
    assert policy.unsafe_env(f"SGLANG_{rest}")[0]
    bad, said = policy.unsafe_env(f"SGL_{rest}")
    assert bad
    assert said.startswith(READ_AS.format(rest=rest) + ", which is refused: ")
    assert why in said


@pytest.mark.parametrize("name", ["SGL_ENABLE_JIT_DEEPGEMM", "SGL_LOG_LEVEL", "sgl_enable_jit_deepgemm"])
def test_an_old_spelling_of_an_open_name_stays_open(name: str) -> None:
    assert ENGINE.env_policy.unsafe_env(name) == (False, "")


def test_every_name_sglang_reserves_or_denies_is_refused_in_the_old_spelling() -> None:
    # Iterates the policy: what is in it is covered however it grows.
    policy = ENGINE.env_policy
    names = {n for n in ENGINE.policy.protected_env if n.startswith("SGLANG_")}
    for group in ENGINE.policy.denied_env:
        names |= {n for n in group.names if n.startswith("SGLANG_")}
        names |= {p + "X" for p in group.prefixes if p.startswith("SGLANG_")}
    assert len(names) >= 25
    for name in names:
        old = "SGL_" + name.removeprefix("SGLANG_")
        assert policy.unsafe_env(old)[0], old


def test_a_profile_setting_an_old_spelling_is_refused_naming_it() -> None:
    env = {"SGL_HOST_IP": "10.9.9.9"}
    profile = Profile(name="p", engine="sglang", tp=1, model_path="/models/m", env=env)
    problems = ENGINE.validate(profile, [])
    assert [p for p in problems if "SGL_HOST_IP" in p and "SGLANG_HOST_IP" in p], problems


def test_a_site_opening_the_target_opens_the_old_spelling_with_it() -> None:
    site = engine_for(
        SglangEngine(), "sglang", policy=EnvPolicy(allow_unsafe={"SGLANG_USE_MODELSCOPE": "mirror"})
    )
    assert site.env_policy.unsafe_env("SGL_USE_MODELSCOPE") == (False, "")
    assert site.env_policy.unsafe_allowances({"SGL_USE_MODELSCOPE": "1"}) == [
        ("SGL_USE_MODELSCOPE", "mirror")
    ]


def test_the_aliases_by_release() -> None:
    assert parse_version("0.5.3") == SGL_COPIED_SINCE
    assert aliases(parse_version("0.5.3")) == (SGL_ALIAS, HOST_IP_ALIAS)
    assert aliases(parse_version("0.5.23")) == (SGL_ALIAS, HOST_IP_ALIAS)
    assert aliases(parse_version("0.5.2")) == (HOST_IP_ALIAS,)
    assert aliases(parse_version("0.4.7")) == (HOST_IP_ALIAS,)
    assert SGL_ALIAS.alias == "SGL_"
    assert SGL_ALIAS.target == "SGLANG_"
    assert SGL_ALIAS.prefix is True
    assert (HOST_IP_ALIAS.alias, HOST_IP_ALIAS.target, HOST_IP_ALIAS.prefix) == (
        "HOST_IP",
        "SGLANG_HOST_IP",
        False,
    )
    # Unknown release: every alias any release reads.
    assert engine_policy(()).env_aliases == (SGL_ALIAS, HOST_IP_ALIAS)
    assert engine_policy((), parse_version("0.4.7")).env_aliases == (HOST_IP_ALIAS,)


@pytest.mark.parametrize("release", ["0.4.7", "0.5.2", "0.5.23"])
def test_host_ip_is_the_nodes_address_in_every_release_and_refused_as_it(release: str) -> None:
    engine = engine_for(SglangEngine(SglangConfig(version=release)), "sglang")
    bad, why = engine.env_policy.unsafe_env("HOST_IP")
    assert bad
    opened = engine_for(
        SglangEngine(SglangConfig(version=release)), "sglang", policy=EnvPolicy(allow=frozenset({"HOST_IP"}))
    )
    bad, why = opened.env_policy.unsafe_env("HOST_IP")
    assert bad
    assert why.startswith(
        "the engine reads it as SGLANG_HOST_IP (SGLang takes the node's address from HOST_IP"
    )
    assert "reserved by the engine" in why


def test_the_plugin_declares_the_alias_of_its_configured_release() -> None:
    assert SglangEngine().policy().env_aliases == (SGL_ALIAS, HOST_IP_ALIAS)  # the newest release read
    assert SglangEngine(SglangConfig(version="0.5.3")).policy().env_aliases == (SGL_ALIAS, HOST_IP_ALIAS)
