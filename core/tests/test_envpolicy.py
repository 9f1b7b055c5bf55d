"""The env safety policy: the bad inputs of reference/security.md §4.1-4.2, and its properties."""

from __future__ import annotations

import pytest
from enginekit.envpolicy import DEFAULT_POLICY, DENY_GROUPS, RESERVED, EnvPolicy, unsafe_env
from hypothesis import given
from hypothesis import strategies as st


@pytest.mark.parametrize(
    ("key", "why"),
    [
        ("", "empty name"),
        ("=", "not a portable name"),
        ("A=B", "not a portable name"),
        ("A\x00B", "not a portable name"),
        ("1ABC", "not a portable name"),
        (" A", "not a portable name"),
        ("A\n", "not a portable name"),
        ("A-B", "not a portable name"),
        ("my.env-name", "not a portable name"),
        ("$(id)", "not a portable name"),
        ("A" * 300, "name longer than 256"),
        ("LD_PRELOAD", "denied: the dynamic loader"),
        ("ld_preload", "denied: the dynamic loader"),
        ("Ld_Preload", "denied: the dynamic loader"),
        ("LD_PRELОAD", "not a portable name"),  # Cyrillic О
        ("BASH_FUNC_ls%%", "not a portable name"),
        ("BASH_FUNC_ls", "denied: a shell"),
        ("PYTHONWARNINGS", "denied: the Python interpreter"),
        ("PYTHONPATH", "denied: the Python interpreter"),
        ("PYTHONUSERBASE", "denied: the Python interpreter"),
        ("NCCL_NET_PLUGIN", "denied: NCCL would load a plugin"),
        ("NCCL_CONF_FILE", "denied: NCCL"),
        ("NCCL_DEBUG_FILE", "denied: NCCL"),
        ("VLLM_NIC_SELECTION_VARS", "denied: vLLM"),
        ("VLLM_LOGGING_CONFIG_PATH", "denied: vLLM"),
        ("VLLM_NCCL_SO_PATH", "denied: vLLM"),
        ("VLLM_SOME_NEW_THING_DIR", "denied: its name says it points at a file"),
        ("LLAMA_ARG_RPC", "denied: llama-server reads every flag"),
        ("LLAMA_ARG_STATIC_PATH", "denied: llama-server"),
        ("CUDA_VISIBLE_DEVICES", "reserved: derived from the shard spec"),
        ("VLLM_API_KEY", "reserved"),
        ("LLAMA_API_KEY", "reserved"),
        ("ENGINEKIT_API_KEY", "reserved"),
        ("PATH", "reserved"),
        ("HOME", "reserved"),
        ("TMPDIR", "reserved"),
        ("NCCL_SOCKET_IFNAME", "reserved"),
        ("OMPI_MCA_plm_rsh_agent", "denied: MPI"),
        ("RAY_RUNTIME_ENV_HOOK", "denied: Ray"),
        ("TRITON_CACHE_MANAGER", "denied: PyTorch, Triton"),
        ("HTTPS_PROXY", "denied: traffic"),
        ("http_proxy", "denied: traffic"),
        ("HF_TOKEN", "denied: it is a credential"),
        ("SOMETHING_ELSE", "unknown: not in a namespace"),
    ],
)
def test_bad_keys_are_refused_with_a_reason(key: str, why: str) -> None:
    bad, reason = unsafe_env(key)
    assert bad
    assert reason.startswith(why)


@pytest.mark.parametrize(
    "key",
    [
        "PYTHONUNBUFFERED",
        "NCCL_DEBUG",
        "NCCL_IB_DISABLE",
        "NCCL_MNNVL_ENABLE",
        "NCCL_CUMEM_ENABLE",
        "VLLM_ATTENTION_BACKEND",
        "OMP_NUM_THREADS",
        "TOKENIZERS_PARALLELISM",
        "SGLANG_LOG_LEVEL",
    ],
)
def test_tuning_keys_are_accepted(key: str) -> None:
    assert unsafe_env(key) == (False, "")


@pytest.mark.parametrize(
    ("value", "why"),
    [
        ("a\x00LD_PRELOAD=/tmp/x.so", "value contains a NUL byte"),
        ("() { :;}; id", "value looks like an exported shell function"),
        ("line1\nline2", "value contains control characters"),
        ("\r", "value contains control characters"),
        ("\x1b[31m", "value contains control characters"),
        ("\udcff", "value is not valid UTF-8"),
        ("x" * 4097, "value longer than 4096 bytes"),
        ("/tmp/evil", "value contains '/' or '%'"),
        (1, "value must be a string, got int"),
        (True, "value must be a string, got bool"),
        (None, "value must be a string, got NoneType"),
    ],
)
def test_bad_values_are_refused(value: object, why: str) -> None:
    assert DEFAULT_POLICY.unsafe_value("NCCL_ALGO", value) == (True, why) or DEFAULT_POLICY.unsafe_value(
        "NCCL_ALGO", value
    )[1].startswith(why)


def test_empty_value_is_accepted() -> None:
    assert DEFAULT_POLICY.unsafe_value("NCCL_ALGO", "") == (False, "")


def test_site_additions() -> None:
    site = EnvPolicy(deny={"NCCL_ALGO"}, allow={"MY_TUNING", "LD_BIND_NOW"}, path_keys={"VLLM_X"})
    assert site.unsafe_env("NCCL_ALGO") == (True, "denied by this site's policy")
    assert site.unsafe_env("nccl_algo")[0]
    assert site.unsafe_env("MY_TUNING") == (False, "")
    assert site.unsafe_env("LD_BIND_NOW") == (False, "")  # a site may accept a denied name…
    assert EnvPolicy(allow={"PATH"}).unsafe_env("PATH")[0]  # …but never a reserved one
    assert site.unsafe_value("VLLM_X", "/opt/x") == (False, "")
    assert EnvPolicy(allow_prefixes=("ACME_",)).unsafe_env("ACME_FLAG") == (False, "")


def test_a_key_denied_after_acceptance_is_refused_at_launch() -> None:
    before, after = EnvPolicy(), EnvPolicy(deny={"VLLM_ATTENTION_BACKEND"})
    assert not before.unsafe_env("VLLM_ATTENTION_BACKEND")[0]
    assert after.unsafe_env("VLLM_ATTENTION_BACKEND")[0]


def test_every_deny_entry_denies_its_own_spelling() -> None:
    # Guards against the sudo "PERLIO_DEBUG " typo class.
    for group in DENY_GROUPS:
        for name in group.exact:
            assert unsafe_env(name)[0], name
        for prefix in group.prefixes:
            assert unsafe_env(prefix + "X")[0], prefix
    for name in RESERVED:
        assert unsafe_env(name) == (True, "reserved: derived from the shard spec"), name


@given(st.text(max_size=40))
def test_verdict_is_case_insensitive(key: str) -> None:
    assert unsafe_env(key)[0] == unsafe_env(key.upper())[0] or not key.isascii()


@given(st.dictionaries(st.text(max_size=20), st.text(max_size=20), max_size=5))
def test_problems_never_raise_and_name_only_refused_keys(env: dict[str, str]) -> None:
    refused = dict(DEFAULT_POLICY.problems(env))
    for key, value in env.items():
        bad = unsafe_env(key)[0] or DEFAULT_POLICY.unsafe_value(key, value)[0]
        assert (key in refused) == bad
