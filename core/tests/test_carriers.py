"""Which variables may carry a shard's rank, addresses and API key (``enginekit.policy.carriers``)."""

from __future__ import annotations

import re
import string

import pytest
from enginekit.base.text import printable
from enginekit.policy import carriers
from enginekit.policy.carriers import FIELDS, problem, problems
from hypothesis import given
from hypothesis import strategies as st

_READ = "is a variable the shell, the runtime or enginekit reads itself; name one of your own"
_SET = "is a variable a scheduler or Kubernetes sets, whose value anybody can guess; the key needs one of its own"


@pytest.mark.parametrize("field", FIELDS)
@pytest.mark.parametrize("name", ["SITE_VAR", "A", "X_", "X1", "K" * 128])
def test_a_plain_upper_case_name_carries_any_field(field: str, name: str) -> None:
    assert problem(name, field) is None


@pytest.mark.parametrize("field", FIELDS)
@pytest.mark.parametrize("name", ["", "1BAD", "A-B", "A=B", "A B", "Ä", "K" * 129, "A\n", "A\0"])
def test_a_name_that_is_not_one_variable_is_refused(field: str, name: str) -> None:
    assert problem(name, field) == (
        "expected a variable name (letters, digits and '_', not starting with a digit), "
        f"got {printable(name, 100)!r}"
    )


def test_a_long_name_is_shown_cut() -> None:
    assert problem("-" * 500, "rank") == (
        f"expected a variable name (letters, digits and '_', not starting with a digit), got {'-' * 100 + '…'!r}"
    )


@pytest.mark.parametrize("field", FIELDS)
@pytest.mark.parametrize("name", sorted(carriers.SHELL_READS))
def test_every_name_a_shell_or_every_process_reads_is_refused(field: str, name: str) -> None:
    assert problem(name, field) == f"{name!r} {_READ}"


@pytest.mark.parametrize("field", FIELDS)
@pytest.mark.parametrize("prefix", carriers.READ_PREFIXES)
def test_every_read_prefix_is_refused(field: str, prefix: str) -> None:
    assert problem(prefix + "X", field) == f"{prefix + 'X'!r} {_READ}"


def test_the_read_sets_hold_what_the_shell_and_loader_read() -> None:
    # Pinned so that a name dropped from the lists is a failing test, not a quiet hole.
    assert {"BASH_ENV", "ENV", "IFS", "PATH", "HOME", "PS4", "SHELLOPTS", "CDPATH", "TMPDIR"} <= (
        carriers.SHELL_READS | {"BASH_ENV"}
    )
    assert carriers.READ_PREFIXES == (
        "BASH_",
        "LC_",
        "LD_",
        "DYLD_",
        "PYTHON",
        "MALLOC_",
        "GLIBC_",
        "ENGINEKIT_",
    )
    assert len(carriers.SHELL_READS) == 42


@pytest.mark.parametrize("prefix", carriers.SET_PREFIXES)
def test_a_schedulers_variable_never_carries_the_key(prefix: str) -> None:
    assert problem(prefix + "X", "api_key") == f"{prefix + 'X'!r} {_SET}"


@pytest.mark.parametrize("field", ["rank", "leader_addr", "bind_addr"])
@pytest.mark.parametrize(
    "name", ["SLURM_PROCID", "SLURM_LAUNCH_NODE_IPADDR", "LWS_WORKER_INDEX", "PMIX_RANK"]
)
def test_a_schedulers_variable_carries_the_rank_and_addresses(field: str, name: str) -> None:
    # What those options are for: Slurm and LeaderWorkerSet give the rank and the leader.
    assert problem(name, field) is None


def test_the_set_prefixes() -> None:
    assert carriers.SET_PREFIXES == (
        "SLURM_",
        "SLURMD_",
        "SLURMCTLD_",
        "SBATCH_",
        "SRUN_",
        "SALLOC_",
        "SPANK_",
        "PMI_",
        "PMIX_",
        "OMPI_",
        "LWS_",
        "KUBERNETES_",
    )


@pytest.mark.parametrize("name", ["spec", "spec_dir", "first_node", "api_key", "Key", "kEY", "_KEY"])
def test_the_key_never_travels_in_a_lower_case_name(name: str) -> None:
    assert problem(name, "api_key") == (
        f"the key's variable must be upper case (a letter, then letters, digits and '_'), got {name!r}"
    )
    assert problem(name, "rank") is None


def test_the_documented_carriers_carry_their_own_fields_only() -> None:
    assert problem("ENGINEKIT_API_KEY", "api_key") is None
    assert problem("ENGINEKIT_API_KEY", "rank") == "'ENGINEKIT_API_KEY' carries api_key, not rank"
    assert problem("ENGINEKIT_POD_IP", "bind_addr") is None
    assert problem("ENGINEKIT_POD_IP", "leader_addr") is None
    assert problem("ENGINEKIT_POD_IP", "api_key") == (
        "'ENGINEKIT_POD_IP' carries leader_addr or bind_addr, not api_key"
    )
    assert problem("ENGINEKIT_CONFIG", "bind_addr") == f"'ENGINEKIT_CONFIG' {_READ}"
    assert carriers.KEY_VARIABLE == "ENGINEKIT_API_KEY"


def test_an_unknown_field_is_a_programming_error() -> None:
    with pytest.raises(ValueError, match=r"unknown field 'port'; expected one of \('rank', "):
        problem("X", "port")


def test_problems_names_each_field_and_variable() -> None:
    assert problems({"rank": "SLURM_PROCID", "api_key": "SLURM_JOB_ID", "bind_addr": "PATH"}) == [
        f"api_key from $SLURM_JOB_ID: 'SLURM_JOB_ID' {_SET}",
        f"bind_addr from $PATH: 'PATH' {_READ}",
    ]
    assert problems({"rank": "R", "leader_addr": "L"}) == []
    assert problems({}) == []


def test_one_variable_cannot_carry_the_key_and_another_field() -> None:
    assert problems({"rank": "SITE_KEY", "api_key": "SITE_KEY", "bind_addr": "B"}) == [
        "rank from $SITE_KEY: the API key's variable too; one cannot be both"
    ]
    assert problems({"rank": "R", "leader_addr": "R"}) == []  # no key: nothing guessable shared


def test_a_problem_shows_a_hostile_name_printably() -> None:
    (message,) = problems({"api_key": "\x1b[2J"})
    assert "\x1b" not in message
    assert message.startswith("api_key from $")


_UPPER = st.text(string.ascii_uppercase + string.digits + "_", min_size=0, max_size=20)


@given(first=st.sampled_from(string.ascii_uppercase), rest=_UPPER)
def test_a_key_name_the_rule_accepts_is_upper_case_and_no_ones_else(first: str, rest: str) -> None:
    name = first + rest
    accepted = problem(name, "api_key") is None
    refused_by_prefix = name.startswith(carriers.READ_PREFIXES + carriers.SET_PREFIXES)
    assert accepted == (
        name not in carriers.SHELL_READS
        and (not refused_by_prefix or name == carriers.KEY_VARIABLE)
        and name != "ENGINEKIT_POD_IP"
    )
    if accepted:
        assert re.fullmatch(r"[A-Z][A-Z0-9_]*", name)


def test_problems_show_a_long_name_cut_at_100_characters() -> None:
    bad, shared = "-" * 120, "K" * 120
    (message,) = problems({"rank": bad})
    assert message.startswith(f"rank from ${'-' * 100}…: ")
    assert problems({"rank": shared, "api_key": shared}) == [
        f"rank from ${'K' * 100}…: the API key's variable too; one cannot be both"
    ]
