"""The env policy's rules other than its tables, each pinned with the reason it exists.

Profiles reach root processes: a key or value let through here is set in the engine's
environment. The deny list and the reserved keys have tables of their own
(``test_deny_list_table.py``, ``test_reserved_keys_table.py``).
"""

from __future__ import annotations

import pytest
from enginekit.policy.engine import EnginePolicy
from enginekit.policy.env import DEFAULT_POLICY, MAX_KEY_LENGTH, MAX_VALUE_LENGTH, EnvPolicy, unsafe_env

SUFFIX = "denied: its name says it points at a file, directory, module or program"
UNKNOWN = "unknown: not in a namespace this site opens to profiles"
SITE = "denied by this site's policy"
PATHY = "value contains '/' or '%' and the site has not marked this key as a path"

#: A made-up engine that opens its own namespace, as every real engine does in its policy().
MYENGINE = EnginePolicy(open_env="MYENGINE_")
#: The default site policy as it applies to MYENGINE's profiles.
ENGINE = DEFAULT_POLICY.for_engine(MYENGINE)


# --- names ---------------------------------------------------------------------------------


def test_the_limits_are_the_documented_ones() -> None:
    # Changing a limit is a policy change: do it here too, deliberately.
    assert (MAX_KEY_LENGTH, MAX_VALUE_LENGTH) == (256, 4096)


@pytest.mark.parametrize(("length", "bad"), [(255, False), (256, False), (257, True)])
def test_a_name_may_be_256_characters_and_no_more(length: int, bad: bool) -> None:
    key = "NCCL_" + "X" * (length - 5)
    assert unsafe_env(key)[0] is bad
    if bad:
        assert unsafe_env(key)[1] == "name longer than 256 characters"


@pytest.mark.parametrize(
    ("prefix", "key"),
    [
        ("MYENGINE_EXPERIMENTAL_", "MYENGINE_EXPERIMENTAL_KERNEL"),
        ("NCCL_", "nccl_algo"),
        ("omp_", "OMP_NUM_THREADS"),
    ],
)
def test_a_sites_deny_prefixes_close_a_namespace(prefix: str, key: str) -> None:
    # How a site withdraws a whole family after an advisory without waiting for a release,
    # an engine's own namespace included.
    assert ENGINE.unsafe_env(key) == (False, ""), "the example must be open by default"
    assert EnvPolicy(deny_prefixes=(prefix,)).for_engine(MYENGINE).unsafe_env(key) == (True, SITE)


def test_a_sites_deny_beats_its_own_allow() -> None:
    policy = EnvPolicy(deny={"ACME_X"}, allow={"ACME_X"}, deny_prefixes=("NCCL_",), allow_prefixes=("NCCL_",))
    assert policy.unsafe_env("ACME_X") == (True, SITE)
    assert policy.unsafe_env("NCCL_ALGO") == (True, SITE)


@pytest.mark.parametrize(
    "suffix",
    [
        "_PATH",
        "_DIR",
        "_FILE",
        "_HOME",
        "_ROOT",
        "_LIB",
        "_SO_PATH",
        "_PLUGIN",
        "_PLUGINS",
        "_MODULE",
        "_PACKAGE",
        "_CLASS",
        "_HOOK",
        "_COMMAND",
        "_CMD",
        "_EXECUTABLE",
        "_COMPILER",
        "_CONFIG_PATH",
        "_TEMPLATE",
    ],
)
@pytest.mark.parametrize("namespace", ["MYENGINE_", "NCCL_", "TORCH_NCCL_", "OMP_", "MKL_"])
def test_an_unknown_name_that_points_at_code_or_files_is_refused(namespace: str, suffix: str) -> None:
    # A release adds MYENGINE_FOO_PLUGIN before the engine's deny list knows it: a name
    # ending like a path, module or program is refused in every open namespace, an
    # engine's own included, until someone looks.
    key = f"{namespace}NEW_THING{suffix}"
    assert ENGINE.unsafe_env(key) == (True, SUFFIX), f"{key}: the {suffix} heuristic was lost"
    assert ENGINE.unsafe_env(key.lower()) == (True, SUFFIX)


@pytest.mark.parametrize("key", ["PYTORCH_CUDA_ALLOC_CONF", "MYENGINE_NEW_THING_CONF", "NCCL_X_CONF"])
def test_a_conf_name_is_judged_by_its_value_a_tuning_string_passes_a_file_does_not(key: str) -> None:
    # *_CONF is usually a tuning string (expandable_segments:True); a file there is code.
    assert ENGINE.unsafe_env(key) == (False, "")
    assert ENGINE.unsafe_value(key, "expandable_segments:True,max_split_size_mb:512") == (False, "")
    for value in ("/etc/evil.conf", "evil.yaml", "../x", "~root"):
        assert ENGINE.unsafe_value(key, value)[0], f"{key}={value} names a file and was accepted"


def test_a_site_may_accept_a_name_the_suffix_heuristic_refuses() -> None:
    assert unsafe_env("NCCL_NEW_PLUGIN") == (True, SUFFIX)
    assert EnvPolicy(allow={"NCCL_NEW_PLUGIN"}).unsafe_env("NCCL_NEW_PLUGIN") == (False, "")


def test_a_site_namespace_is_still_under_the_suffix_heuristic() -> None:
    site = EnvPolicy(allow_prefixes=("ACME_",))
    assert site.unsafe_env("ACME_TUNING") == (False, "")
    assert site.unsafe_env("ACME_HOOK") == (True, SUFFIX)
    assert DEFAULT_POLICY.unsafe_env("ACME_TUNING") == (True, UNKNOWN)


@pytest.mark.parametrize(
    "key",
    [
        "NCCL_ALGO",
        "TORCH_NCCL_ASYNC_ERROR_HANDLING",
        "TORCH_DISTRIBUTED_DEBUG",
        "PYTORCH_CUDA_ALLOC_CONF",  # ends like a config file, but it is an allocator setting
        "CUDA_LAUNCH_BLOCKING",
        "CUDA_MODULE_LOADING",
        "OMP_NUM_THREADS",
        "MKL_NUM_THREADS",
        "KMP_AFFINITY",
        "TOKENIZERS_PARALLELISM",
        "HF_HUB_OFFLINE",
        "HF_HUB_ENABLE_HF_TRANSFER",
        "HF_HUB_DISABLE_TELEMETRY",
        "PYTHONUNBUFFERED",
        "PYTHONHASHSEED",
        "PYTHONFAULTHANDLER",
        "PYTHONIOENCODING",
        "PYTHONUTF8",
        "PYTHONDONTWRITEBYTECODE",
        "PYTHONNOUSERSITE",
        "PYTHONSAFEPATH",
    ],
)
def test_tuning_variables_stay_open_to_profiles(key: str) -> None:
    # The escape hatch for per-cluster tuning: closing one breaks profiles that work today.
    assert unsafe_env(key) == (False, ""), f"{key} is tuning and was refused: {unsafe_env(key)[1]}"


# --- values --------------------------------------------------------------------------------


@pytest.mark.parametrize("char", [chr(c) for c in [*range(0x00, 0x20), 0x7F]])
def test_every_ascii_control_character_is_refused_in_a_value(char: str) -> None:
    # DEL and the C0 controls end strings early, split KEY=VALUE lines in env files and
    # forge log lines.
    bad, why = DEFAULT_POLICY.unsafe_value("NCCL_ALGO", f"Ring{char}Tree")
    assert bad, f"control character {ord(char):#04x} was accepted in a value"
    assert why.startswith("value contains ")


@pytest.mark.parametrize("value", [" ", "~", "Ring,Tree", "a=b", "é", "\u00a0", "漢字"])
def test_printable_and_non_ascii_text_is_accepted_in_a_value(value: str) -> None:
    assert DEFAULT_POLICY.unsafe_value("NCCL_ALGO", value) == (False, "")


@pytest.mark.parametrize(
    ("value", "bad"),
    [
        ("x" * 4095, False),
        ("x" * 4096, False),
        ("x" * 4097, True),
        ("é" * 2048, False),  # 4096 bytes in UTF-8
        ("é" * 2048 + "x", True),  # 4097 bytes, 2049 characters: the limit counts bytes
    ],
)
def test_a_value_may_be_4096_bytes_and_no_more(value: str, bad: bool) -> None:
    # Bounded so one profile cannot exhaust the kernel's argument and environment space.
    verdict = DEFAULT_POLICY.unsafe_value("NCCL_ALGO", value)
    assert verdict == ((True, "value longer than 4096 bytes") if bad else (False, ""))


@pytest.mark.parametrize("value", ["/etc/passwd", "%s", "50%", "%2e%2e", "a/b"])
def test_slash_or_percent_needs_a_key_the_site_marked_as_a_path(value: str) -> None:
    # '/' names a file; '%' is expanded (%h, %p, %2F) into one by NCCL, printf-style
    # loggers and URL decoders.
    assert DEFAULT_POLICY.unsafe_value("NCCL_ALGO", value) == (True, PATHY)
    assert EnvPolicy(path_keys={"nccl_algo"}).unsafe_value("NCCL_ALGO", value) == (False, "")
    assert EnvPolicy(path_keys={"NCCL_ALGO"}).unsafe_value("nccl_algo", value) == (False, "")
    assert EnvPolicy(path_keys={"OTHER"}).unsafe_value("NCCL_ALGO", value) == (True, PATHY)


@pytest.mark.parametrize("value", ["() { :; }; /bin/id", "() {"])
def test_an_exported_shell_function_is_refused_even_for_a_path_key(value: str) -> None:
    # Shellshock: bash imports "() {" values as functions.
    policy = EnvPolicy(path_keys={"NCCL_ALGO"})
    assert policy.unsafe_value("NCCL_ALGO", value) == (True, "value looks like an exported shell function")


def test_a_value_merely_starting_with_parentheses_is_accepted() -> None:
    assert DEFAULT_POLICY.unsafe_value("NCCL_ALGO", "()") == (False, "")
    assert DEFAULT_POLICY.unsafe_value("NCCL_ALGO", "(x) y") == (False, "")


def test_problems_judges_names_before_values_and_lists_in_key_order() -> None:
    env: dict[object, object] = {"NCCL_B": "/x", "LD_PRELOAD": "ok", 3: "x", "NCCL_A": "fine"}
    found = DEFAULT_POLICY.problems(env)  # type: ignore[arg-type]  # a control plane may send anything
    assert found == [
        (3, "name not a string"),
        ("LD_PRELOAD", "denied: the dynamic loader or libc would load code or data from it"),
        ("NCCL_B", PATHY),
    ]


# --- allow_unsafe: what a site may open, and how it is checked -----------------------------------


def test_allow_unsafe_also_opens_a_name_outside_every_namespace_and_the_plan_says_so() -> None:
    # Not in a deny group, but refused as unknown or by the suffix heuristic: a site that
    # names it in allow_unsafe takes it on with a reason, and every plan repeats it.
    policy = EnvPolicy(allow_unsafe={"ACME_FLAG": "vendor ticket 42", "NCCL_NEW_PLUGIN": "pinned build"})
    assert policy.unsafe_env("ACME_FLAG") == (False, "")
    assert policy.unsafe_env("NCCL_NEW_PLUGIN") == (False, "")
    assert policy.unsafe_allowances({"ACME_FLAG": "1", "NCCL_NEW_PLUGIN": "x", "NCCL_ALGO": "Ring"}) == [
        ("ACME_FLAG", "vendor ticket 42"),
        ("NCCL_NEW_PLUGIN", "pinned build"),
    ]
    assert DEFAULT_POLICY.unsafe_allowances({"ACME_FLAG": "1"}) == []


def test_a_conf_key_marked_as_a_path_still_needs_the_site_to_open_that_very_key() -> None:
    # path_keys alone does not make a *_CONF key a file: the site must also open it, by its
    # own name (allow or allow_unsafe); opening some other name opens nothing here.
    other = EnvPolicy(path_keys={"MKL_X_CONF"}, allow_unsafe={"ACME_FLAG": "vendor ticket 42"})
    assert other.unsafe_value("MKL_X_CONF", "/etc/x.conf")[0]
    opened = EnvPolicy(path_keys={"MKL_X_CONF"}, allow={"MKL_X_CONF"})
    assert opened.unsafe_value("MKL_X_CONF", "/etc/x.conf") == (False, "")


@pytest.mark.parametrize(
    ("value", "why"),
    [
        ("/etc/x", "value looks like a path ('/', '%', '~' or '..') and a *_CONF key takes a tuning "
         "string (such as 'key:value,key:value') unless the site allows it and marks it as a path"),
        ("site.conf", "value looks like a file or module name ('name.ext') and a *_CONF key takes a "
         "tuning string (such as 'key:value,key:value') unless the site allows it and marks it as a path"),
        ("a;b", "value is not a tuning string: a *_CONF key takes only letters, digits, space "
         "and _ . , : = + - [ ] >"),
    ],
)  # fmt: skip
def test_a_conf_value_that_is_no_tuning_string_is_refused_saying_why(value: str, why: str) -> None:
    assert DEFAULT_POLICY.unsafe_value("PYTORCH_CUDA_ALLOC_CONF", value) == (True, why)


@pytest.mark.parametrize(
    ("name", "ok"), [("A", True), ("", False), ("A" * MAX_KEY_LENGTH, True), ("A" * 257, False)]
)
def test_an_allow_unsafe_name_is_a_portable_name_of_one_to_256_characters(name: str, ok: bool) -> None:
    problems = EnvPolicy.allow_unsafe_problems({name: "vendor ticket 42"})
    assert (problems == []) is ok, problems


@pytest.mark.parametrize(
    ("name", "shown"),
    [
        ("A" * 64, "A" * 64),  # a portable name up to 64 characters is shown as it is
        ("A" * 65, repr("A" * 65)[:40] + "…"),  # a longer one is quoted and cut like any other
        ("A" * 65 + "-", repr("A" * 65 + "-")[:40] + "…"),
        ("A-B", "'A-B'"),
        ("X" * 37 + "-", repr("X" * 37 + "-")),  # 40 characters quoted: shown whole
        ("X" * 38 + "-", repr("X" * 38 + "-")[:40] + "…"),  # 41: cut at 40
    ],
)
def test_an_allow_unsafe_name_is_echoed_quoted_and_cut_when_it_is_not_a_plain_name(
    name: str, shown: str
) -> None:
    [(echoed, _)] = EnvPolicy.allow_unsafe_problems({name: 5}) or [("", "")]
    assert echoed == shown


def test_an_allow_unsafe_reason_must_be_a_string() -> None:
    assert EnvPolicy.allow_unsafe_problems({"LD_PRELOAD": 5}) == [
        ("LD_PRELOAD", "the reason must be a string, got int")
    ]
