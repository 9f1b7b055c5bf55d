"""The env safety policy: names and values a profile must not get past it, and its properties."""

from __future__ import annotations

import pytest
from enginekit.policy.env import DEFAULT_POLICY, DENY_GROUPS, RESERVED, EnvPolicy, unsafe_env
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
        ("NCCL_SOME_NEW_THING_DIR", "denied: its name says it points at a file"),
        ("CUDA_VISIBLE_DEVICES", "reserved: derived from the shard spec"),
        ("ENGINEKIT_API_KEY", "reserved"),
        ("PATH", "reserved"),
        ("HOME", "reserved"),
        ("TMPDIR", "reserved"),
        ("NCCL_SOCKET_IFNAME", "reserved"),
        ("OMPI_MCA_plm_rsh_agent", "denied: MPI"),
        ("TRITON_CACHE_MANAGER", "denied: PyTorch, Triton"),
        ("HTTPS_PROXY", "denied: traffic"),
        ("http_proxy", "denied: traffic"),
        ("HF_TOKEN", "denied: it is a credential"),
        ("NCCL_SOME_TOKEN", "denied: it is a credential"),
        ("OMP_SERVICE_API_KEY", "denied: it is a credential"),
        ("AWS_PROFILE", "denied: it is a credential, or picks the credentials"),
        ("OMP_TOOL", "denied: the OpenMP runtime would load the tool libraries"),
        ("OMP_TOOL_LIBRARIES", "denied: the OpenMP runtime would load the tool libraries"),
        ("omp_tool_libraries", "denied: the OpenMP runtime would load the tool libraries"),
        ("OMP_TOOL_VERBOSE_INIT", "denied: the OpenMP runtime"),
        ("MALLOC_ARENA_MAX", "denied: glibc's allocator would take its tuning from it"),
        ("MALLOC_TRACE", "denied: the dynamic loader or libc"),
        ("FOO_CONF", "unknown: not in a namespace"),
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
        "OMP_NUM_THREADS",
        "TOKENIZERS_PARALLELISM",
        "OMP_PROC_BIND",
        "PYTORCH_CUDA_ALLOC_CONF",
        "NCCL_SOME_NEW_CONF",
        "HF_HUB_DISABLE_IMPLICIT_TOKEN",
        "HF_HUB_DISABLE_TELEMETRY",
    ],
)
def test_tuning_keys_are_accepted(key: str) -> None:
    assert unsafe_env(key) == (False, "")


@pytest.mark.parametrize(
    ("value", "why"),
    [
        ("a\x00LD_PRELOAD=/tmp/x.so", "value contains a NUL byte (U+0000)"),
        ("() { :;}; id", "value looks like an exported shell function"),
        ("line1\nline2", "value contains a control character (U+000A)"),
        ("\r", "value contains a control character (U+000D)"),
        ("\x1b[31m", "value contains a control character (U+001B)"),
        ("\x85", "value contains a C1 control character (U+0085)"),
        ("a\u2028b", "value contains a Unicode line separator (U+2028)"),
        ("RING\u202eLL", "value contains a bidirectional override (U+202E)"),
        ("\udcff", "value contains a lone surrogate (not valid Unicode text) (U+DCFF)"),
        ("x" * 4097, "value longer than 4096 bytes"),
        ("/tmp/evil", "value contains '/' or '%' and the site has not marked this key as a path"),
        ("%h", "value contains '/' or '%' and the site has not marked this key as a path"),
        (1, "value must be a string, got int"),
        (True, "value must be a string, got bool"),
        (None, "value must be a string, got NoneType"),
    ],
)
def test_bad_values_are_refused(value: object, why: str) -> None:
    assert DEFAULT_POLICY.unsafe_value("NCCL_ALGO", value) == (True, why)


def test_empty_value_is_accepted() -> None:
    assert DEFAULT_POLICY.unsafe_value("NCCL_ALGO", "") == (False, "")


def test_site_additions() -> None:
    site = EnvPolicy(deny={"NCCL_ALGO"}, allow={"MY_TUNING", "MALLOC_ARENA_MAX"}, path_keys={"ACME_X"})
    assert site.unsafe_env("NCCL_ALGO") == (True, "denied by this site's policy")
    assert site.unsafe_env("nccl_algo")[0]
    assert site.unsafe_env("MY_TUNING") == (False, "")
    assert site.unsafe_env("MALLOC_ARENA_MAX") == (False, "")  # a denied name outside the floor…
    assert EnvPolicy(allow={"PATH"}).unsafe_env("PATH") == (True, "reserved: derived from the shard spec")
    assert site.unsafe_value("ACME_X", "/opt/x") == (False, "")
    assert EnvPolicy(allow_prefixes=("ACME_",)).unsafe_env("ACME_FLAG") == (False, "")


def test_a_key_denied_after_acceptance_is_refused_at_launch() -> None:
    before, after = EnvPolicy(), EnvPolicy(deny={"OMP_NUM_THREADS"})
    assert not before.unsafe_env("OMP_NUM_THREADS")[0]
    assert after.unsafe_env("OMP_NUM_THREADS")[0]


def test_every_deny_entry_denies_its_own_spelling() -> None:
    # Guards against the sudo "PERLIO_DEBUG " typo class.
    for group in DENY_GROUPS:
        for name in group.names:
            assert unsafe_env(name) == (True, f"denied: {group.why}"), name
        for prefix in group.prefixes:
            assert unsafe_env(prefix + "X") == (True, f"denied: {group.why}"), prefix
        for suffix in group.suffixes:
            assert unsafe_env("NCCL_X" + suffix) == (True, f"denied: {group.why}"), suffix
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


@pytest.mark.parametrize(
    "value",
    [
        "expandable_segments:True",
        "expandable_segments:True,max_split_size_mb:512",
        "expandable_segments:True, garbage_collection_threshold:0.6",
        "roundup_power2_divisions:[256:1,512:2,1024:4,>:8]",
        "backend:cudaMallocAsync",
        "native",
        "",
    ],
)
def test_a_conf_key_takes_a_tuning_string(value: str) -> None:
    assert DEFAULT_POLICY.problems({"PYTORCH_CUDA_ALLOC_CONF": value}) == []


_AS_PATH = "value looks like a path ('/', '%', '~' or '..') and a *_CONF key takes a tuning string"
_AS_FILE = "value looks like a file or module name ('name.ext') and a *_CONF key takes a tuning string"


@pytest.mark.parametrize(
    ("value", "why"),
    [
        ("site.conf", _AS_FILE),
        ("x.yaml", _AS_FILE),
        ("x.JSON", _AS_FILE),
        ("settings.ini", _AS_FILE),
        (".hidden", _AS_FILE),
        ("mypkg.hooks", _AS_FILE),
        ("/etc/x", _AS_PATH),
        ("../x", _AS_PATH),
        ("..", _AS_PATH),
        ("~/x", _AS_PATH),
        ("~root", _AS_PATH),
        ("%h", _AS_PATH),
        ("a$(id)", "value is not a tuning string: a *_CONF key takes only letters, digits, space"),
        ("a\\b", "value is not a tuning string"),
        ("a;b", "value is not a tuning string"),
    ],
)
def test_a_conf_key_refuses_a_path_or_file_name(value: str, why: str) -> None:
    [(key, reason)] = DEFAULT_POLICY.problems({"PYTORCH_CUDA_ALLOC_CONF": value})
    assert key == "PYTORCH_CUDA_ALLOC_CONF"
    assert reason.startswith(why)


def test_a_conf_key_takes_a_path_only_when_the_site_allows_it_and_marks_it() -> None:
    env = {"NCCL_X_CONF": "/etc/site/x.conf"}
    marked_only = EnvPolicy(path_keys={"NCCL_X_CONF"})
    allowed_only = EnvPolicy(allow={"NCCL_X_CONF"})
    both = EnvPolicy(allow={"nccl_x_conf"}, path_keys={"NCCL_X_CONF"})
    assert marked_only.problems(env)[0][1].startswith(_AS_PATH)
    assert allowed_only.problems(env)[0][1].startswith(_AS_PATH)
    assert allowed_only.problems({"NCCL_X_CONF": "x.conf"})[0][1].startswith(_AS_FILE)
    assert both.problems(env) == []
    assert both.problems({"NCCL_X_CONF": "a\nb"}) == [
        ("NCCL_X_CONF", "value contains a control character (U+000A)")
    ]


def test_a_conf_name_outside_the_open_namespaces_stays_unknown() -> None:
    assert DEFAULT_POLICY.problems({"FOO_CONF": "expandable_segments:True"}) == [
        ("FOO_CONF", "unknown: not in a namespace this site opens to profiles")
    ]
    assert EnvPolicy(allow_prefixes=("FOO_",)).problems({"FOO_CONF": "a:1"}) == []


def test_a_deny_name_belongs_to_one_group() -> None:
    seen: dict[str, str] = {}
    for group in DENY_GROUPS:
        for name in group.names:
            assert name not in seen, f"{name} in '{seen.get(name)}' and '{group.why}'"
            seen[name] = group.why


def test_a_value_of_any_type_is_one_problem_never_an_error() -> None:
    # Tables of plain strings are judged once and remembered; anything else is judged as it is.
    found = EnvPolicy().problems({"NCCL_DEBUG": ["INFO"], "NCCL_ALGO": {"a": 1}, 7: "x"})  # type: ignore[dict-item]
    assert [key for key, _ in found] == [7, "NCCL_ALGO", "NCCL_DEBUG"]
    assert all(why for _, why in found)
