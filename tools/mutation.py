"""Mutation testing for the modules that decide what a root process on a GPU node gets.

Runs the pinned ``mutmut`` (``[dependency-groups] mutation`` in the root ``pyproject.toml``)
over one module at a time, each against an explicit, narrow selection of tests, and
prints a score table. Not part of the default test run; see ``docs/mutation-testing.md``::

    python3 -m uv run --all-packages --group mutation python tools/mutation.py            # every target
    python3 -m uv run --all-packages --group mutation python tools/mutation.py core.envpolicy vllm.argpolicy
    python3 -m uv run --all-packages --group mutation python tools/mutation.py --list
    python3 -m uv run --all-packages --group mutation python tools/mutation.py --fail-under 95 --record
    python3 -m uv run --all-packages --group mutation python tools/mutation.py \
        --fail-under 95 --changed --rotate 300

Why a runner and not a bare ``mutmut run``: mutmut names a mutant after its file's path,
and only a ``src/`` directory at the working directory is stripped from it. In this
workspace every distribution has its own ``src/``, so each target runs with its
distribution's directory as the working directory (``core/``, ``plugins/vllm/``…),
where mutmut's own conventions hold. The shared settings are read from the root
``pyproject.toml``'s ``[tool.mutmut]``; the runner sets only what differs per target:
the file to mutate and the tests to run.

This file is also the pytest plugin (``-p mutation``) the runs load: every test session
imports the code under test afresh, so a mutant of code that runs at import (the deny
groups, the converter) runs too, and no ``functools`` cache answers with what the
unmutated code computed before mutmut forked the worker.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / ".mutation"


@dataclass(frozen=True)
class Target:
    """One module, mutated alone, against the tests that state its rules."""

    name: str
    #: The distribution's directory, relative to the root: mutmut runs there.
    dist: str
    #: The module, relative to ``dist``.
    source: str
    #: The tests, relative to ``dist``; missing files are skipped (an older checkout).
    tests: tuple[str, ...]
    #: Wall-clock budget on two cores; a run past it is stopped and reported incomplete.
    budget_s: int = 300
    #: Whether the module has a score target (issue 17), or is measured for information.
    gated: bool = True


def _trust(*names: str) -> tuple[str, ...]:
    """Tests of ``test_trust_boundaries.py`` by name: the file is broad, and some of it runs the CLI."""
    return tuple(f"tests/test_trust_boundaries.py::test_{name}" for name in names)


_CORE_PINNED = ("tests/test_placement_rules_pinned.py", "tests/test_profile_rules_pinned.py")

TARGETS: tuple[Target, ...] = (
    Target(
        "core.ncclenv",
        "core",
        "src/enginekit/placement/env.py",
        ("tests/test_ncclenv.py", "tests/test_placement_rules_pinned.py", "tests/test_disaggregated.py"),
    ),
    Target("core.nvshmem", "core", "src/enginekit/placement/nvshmem.py", ("tests/test_nvshmem.py",)),
    Target(
        "core.envpolicy",
        "core",
        "src/enginekit/policy/env.py",
        (
            "tests/test_envpolicy.py",
            "tests/test_envpolicy_floor.py",
            "tests/test_env_rules_pinned.py",
            "tests/test_deny_list_table.py",
            "tests/test_reserved_keys_table.py",
            "tests/test_engine_env_policy.py",
            "tests/test_env_aliases.py",
            "tests/test_plugin_env_floor.py",
        ),
    ),
    Target(
        "core.enginepolicy",
        "core",
        "src/enginekit/policy/engine.py",
        (
            "tests/test_engine_policy.py",
            "tests/test_env_aliases.py",
            "tests/test_engine_env_policy.py",
            "tests/test_plugin_env_floor.py",
        ),
    ),
    Target(
        "core.speccheck",
        "core",
        "src/enginekit/spec/rules.py",
        (
            "tests/test_speccheck.py",
            "tests/test_placement_rules_pinned.py",
            "tests/test_spec_limits_pinned.py",
            "tests/test_disaggregated.py",
            *_trust(
                "an_ipv6_zone_is_an_interface_name", "an_ipv6_zone_that_is_an_interface_name_is_accepted"
            ),
            *_trust("the_api_key_is_never_echoed_whatever_its_type", "a_short_key_is_refused_as_guessable"),
            *_trust(
                "invisible_characters_are_refused",
                "numeric_forms_resolvers_read_as_addresses_are_no_host_names",
            ),
            *_trust(
                "integers_are_bounded_by_their_domain",
                "strings_bound_for_a_process_hold_no_hidden_characters",
            ),
        ),
    ),
    Target(
        "core.checks",
        "core",
        "src/enginekit/policy/checks.py",
        (
            "tests/test_checks.py",
            "tests/test_profile_rules_pinned.py",
            *_trust("a_compute_capability_is_digits_dot_digits", "a_real_compute_capability_is_compared"),
            *_trust(
                "integers_are_bounded_by_their_domain", "an_oversized_list_is_refused_without_scanning_it"
            ),
        ),
    ),
    Target(
        "core.args",
        "core",
        "src/enginekit/policy/args.py",
        (
            "tests/test_checks.py",
            "tests/test_args_positional.py",
            "tests/test_profile_rules_pinned.py",
            "tests/test_parsed_args.py",
        ),
    ),
    # The plugin platform (issue 11), gated since issue 25.
    Target("core.builder", "core", "src/enginekit/placement/builder.py", ("tests/test_builder.py",)),
    Target("core.versions", "core", "src/enginekit/base/versions.py", ("tests/test_versions.py",)),
    Target("core.fields", "core", "src/enginekit/policy/fields.py", ("tests/test_fields.py",)),
    # The plan and spec formats (issue 12): what a scheduler in another language relies on.
    Target(
        "core.specio",
        "core",
        "src/enginekit/spec/io.py",
        ("tests/test_specio.py", "tests/test_format_attacks.py"),
    ),
    Target(
        "core.planformat",
        "core",
        "src/enginekit/plan/format.py",
        ("tests/test_plan_format.py", "tests/test_format_attacks.py"),
    ),
    Target(
        "core.planreading",
        "core",
        "src/enginekit/plan/reading.py",
        (
            "tests/test_plan_format.py",
            "tests/test_format_attacks.py",
            "tests/test_schemas.py",
            "tests/test_kv_events_wiring.py",
        ),
    ),
    Target(
        "core.formats",
        "core",
        "src/enginekit/plan/formats.py",
        ("tests/test_plan_format.py", "tests/test_schemas.py", "tests/test_format_attacks.py"),
        gated=False,
    ),
    Target(
        "core.layout",
        "core",
        "src/enginekit/layout/compute.py",
        (
            "tests/test_layout.py",
            "tests/test_engine_layout.py",
            "tests/test_replica_layout.py",
            "tests/test_replica.py",
            "tests/test_kv_events_wiring.py",
            "tests/test_disaggregated.py",
        ),
    ),
    Target(
        "core.router",
        "core",
        "src/enginekit/replica/router.py",
        ("tests/test_router.py", "tests/test_router_pd.py"),
    ),
    # Issue 27's disaggregated replica: its instances' ports and GPUs across hosts.
    Target(
        "core.disaggregated",
        "core",
        "src/enginekit/replica/disaggregated.py",
        ("tests/test_disaggregated.py",),
    ),
    Target(
        "core.replica",
        "core",
        "src/enginekit/replica/spec.py",
        (
            "tests/test_replica.py",
            "tests/test_replica_layout.py",
            "tests/test_layout.py",
            "tests/test_export.py",
            "tests/test_replica_kv_events.py",
            "tests/test_disaggregated.py",
        ),
    ),
    Target(
        "core.layoutmodel",
        "core",
        "src/enginekit/layout/model.py",
        ("tests/test_layout.py", "tests/test_engine_layout.py", "tests/test_kv_events_wiring.py"),
    ),
    Target(
        "core.convert",
        "core",
        "src/enginekit/spec/convert.py",
        (
            "tests/test_convert.py",
            "tests/test_documents_pinned.py",
            "tests/test_profile_rules_pinned.py",
            *_trust("a_string_or_table_is_never_a_list", "node_config_lists_take_lists_only"),
            *_trust("an_engine_section_list_takes_a_list_only", "integers_are_bounded_by_their_domain"),
            *_trust(
                "strings_bound_for_a_process_hold_no_hidden_characters",
                "a_lone_surrogate_is_refused_everywhere_the_same",
            ),
            *_trust(
                "only_a_bounded_regular_file_is_read",
                "nesting_is_bounded",
                "a_malformed_gpu_list_is_unusable_input",
            ),
            *_trust(
                "an_oversized_list_is_refused_without_scanning_it", "a_lookalike_spelling_is_not_the_field"
            ),
            # A key in a field of the wrong type is masked in the structuring error itself.
            *_trust(
                "the_api_key_is_never_echoed_whatever_its_type",
                "a_key_pasted_into_another_field_is_never_echoed",
            ),
        ),
        # The longest target: about 250 s on two shared cores.
        budget_s=600,
    ),
    Target(
        "core.engine",
        "core",
        "src/enginekit/platform/engine.py",
        (
            "tests/test_engine.py",
            "tests/test_engine_answers.py",
            "tests/test_registry.py",
            "tests/test_hook_inputs.py",
            "tests/test_engine_env_policy.py",
            "tests/test_engines_check.py",
            "tests/test_platform_attacks.py",
            "tests/test_cli_probe.py",
            "tests/test_cache_attacks.py",
            "tests/test_verify_plan.py",
            "tests/test_key_forms.py",
            "tests/test_plugin_env_floor.py",
            "tests/test_validation_memo.py",
            "tests/test_checks.py",
            "tests/test_engine_layout.py",
            "tests/test_engine_kv_events.py",
            *_CORE_PINNED,
            *_trust(
                "commands_runs_every_check_plan_runs",
                "a_misbehaving_hook_is_one_error_naming_engine_distribution_and_hook",
            ),
            *_trust("argv_and_env_from_a_plugin_are_checked", "a_key_in_a_plugins_exception_is_masked"),
            *_trust("hostile_answers_are_one_message", "a_commands_answer_with_malformed_fields_is_refused"),
            *_trust("device_listing_checks_the_shard_first", "a_plugin_cannot_get_the_key_printed"),
        ),
        # Over 700 mutants since issue 30: 300 s was spent before the end on shared cores.
        budget_s=600,
    ),
    Target(
        "core.registry",
        "core",
        "src/enginekit/platform/registry.py",
        (
            "tests/test_registry.py",
            "tests/test_registry_loading.py",
            "tests/test_engine.py",
            "tests/test_plugin_api.py",
            "tests/test_engines_check.py",
            "tests/test_cli_engines.py",
            "tests/test_platform_attacks.py",
            "tests/test_verify_plan.py",
            *_CORE_PINNED,
        ),
    ),
    # Masking a key, and finding it in argv, in every form that gives it away (issue 30).
    Target(
        "core.secrets",
        "core",
        "src/enginekit/base/secrets.py",
        (
            "tests/test_key_forms.py",
            "tests/test_format_attacks.py",
            "tests/test_engines_check.py",
            "tests/test_run_logs.py",
        ),
    ),
    # Issue 30's check of a received plan against the shard its receiver expected.
    Target("core.verify", "core", "src/enginekit/platform/verify.py", ("tests/test_verify_plan.py",)),
    # Issue 25's modules, gated from their first commit.
    Target("core.api", "core", "src/enginekit/platform/api.py", ("tests/test_plugin_api.py",)),
    # Which distributions provide engines: the one reader of entry points, held to the standard one's.
    Target(
        "core.entrypoints",
        "core",
        "src/enginekit/platform/entrypoints.py",
        ("tests/test_entrypoints.py", "tests/test_registry_loading.py", "tests/test_registry.py"),
    ),
    Target("core.inputs", "core", "src/enginekit/platform/inputs.py", ("tests/test_hook_inputs.py",)),
    Target("core.frozen", "core", "src/enginekit/base/frozen.py", ("tests/test_hook_inputs.py",)),
    Target(
        "core.documents",
        "core",
        "src/enginekit/spec/documents.py",
        ("tests/test_specio.py", "tests/test_format_attacks.py", "tests/test_convert.py"),
    ),
    Target("core.optiongen", "core", "src/enginekit/policy/optiongen.py", ("tests/test_optiongen.py",)),
    Target(
        "core.carriers",
        "core",
        "src/enginekit/policy/carriers.py",
        ("tests/test_carriers.py", "tests/test_run_fromenv.py"),
    ),
    Target(
        "vllm.argpolicy",
        "plugins/vllm",
        "src/enginekit_vllm/argpolicy.py",
        ("tests/test_vllm_validate.py", "tests/test_vllm_host_paths.py", "tests/test_vllm_rules_pinned.py"),
    ),
    Target(
        "vllm.launch",
        "plugins/vllm",
        "src/enginekit_vllm/launch.py",
        (
            "tests/test_vllm_commands.py",
            "tests/test_vllm_rules_pinned.py",
            "tests/test_vllm_dataparallel.py",
            "tests/test_vllm_disaggregated.py",
        ),
    ),
    Target(
        "vllm.dataparallel",
        "plugins/vllm",
        "src/enginekit_vllm/dataparallel.py",
        ("tests/test_vllm_dataparallel.py", "tests/test_vllm_disaggregated.py"),
    ),
    # Issue 27: a prefill or decode instance's NIXL settings (side channel host and port).
    Target(
        "vllm.disaggregated",
        "plugins/vllm",
        "src/enginekit_vllm/disaggregated.py",
        ("tests/test_vllm_disaggregated.py",),
    ),
    # Issue 27: a prefill or decode instance's SGLang flags (bootstrap port, devices).
    Target(
        "sglang.disaggregated",
        "plugins/sglang",
        "src/enginekit_sglang/disaggregated.py",
        ("tests/test_sglang_disaggregated.py", "tests/test_sglang_releases.py"),
    ),
    Target(
        "sglang.policy",
        "plugins/sglang",
        "src/enginekit_sglang/policy.py",
        (
            "tests/test_sglang_validate.py",
            "tests/test_sglang_host_paths.py",
            "tests/test_sglang_rules_pinned.py",
            "tests/test_sglang_env_policy.py",
            "tests/test_sglang_env_aliases.py",
        ),
    ),
    # SGLang's value checks, moved out of its policy module by issue 11.
    Target(
        "sglang.validation",
        "plugins/sglang",
        "src/enginekit_sglang/validation.py",
        (
            "tests/test_sglang_dataparallel.py",
            "tests/test_sglang_validate.py",
            "tests/test_sglang_host_paths.py",
            "tests/test_sglang_rules_pinned.py",
        ),
    ),
    Target(
        "sglang.build",
        "plugins/sglang",
        "src/enginekit_sglang/build.py",
        (
            "tests/test_sglang_commands.py",
            "tests/test_sglang_rules_pinned.py",
            "tests/test_sglang_dataparallel.py",
            "tests/test_sglang_disaggregated.py",
        ),
    ),
    Target(
        "sglang.dataparallel",
        "plugins/sglang",
        "src/enginekit_sglang/dataparallel.py",
        ("tests/test_sglang_dataparallel.py",),
    ),
    Target(
        "vllm.known",
        "plugins/vllm",
        "src/enginekit_vllm/known.py",
        ("tests/test_vllm_validate.py", "tests/test_vllm_rules_pinned.py"),
    ),
    Target(
        "llamacpp.validation",
        "plugins/llamacpp",
        "src/enginekit_llamacpp/validation.py",
        (
            "tests/test_llamacpp_validate.py",
            "tests/test_llamacpp_host_paths.py",
            "tests/test_llamacpp_cpu_binding.py",
            "tests/test_llamacpp_rules_pinned.py",
        ),
    ),
    Target(
        "llamacpp.flags",
        "plugins/llamacpp",
        "src/enginekit_llamacpp/flags.py",
        (
            "tests/test_llamacpp_validate.py",
            "tests/test_llamacpp_cpu_binding.py",
            "tests/test_llamacpp_rules_pinned.py",
            "tests/test_llamacpp_policy.py",
        ),
    ),
    Target(
        "llamacpp.command",
        "plugins/llamacpp",
        "src/enginekit_llamacpp/command.py",
        ("tests/test_llamacpp_commands.py", "tests/test_llamacpp_rules_pinned.py"),
    ),
    Target(
        "trtllm.validation",
        "plugins/trtllm",
        "src/enginekit_trtllm/validation.py",
        (
            "tests/test_trtllm_validate.py",
            "tests/test_trtllm_host_paths.py",
            "tests/test_trtllm_rules_pinned.py",
        ),
    ),
    Target(
        "trtllm.clickargs",
        "plugins/trtllm",
        "src/enginekit_trtllm/clickargs.py",
        (
            "tests/test_trtllm_validate.py",
            "tests/test_trtllm_host_paths.py",
            "tests/test_trtllm_rules_pinned.py",
            "tests/test_trtllm_policy.py",
            "tests/test_trtllm_platform_attacks.py",
            "tests/test_trtllm_click_reading.py",
        ),
    ),
    Target(
        "trtllm.plugin",
        "plugins/trtllm",
        "src/enginekit_trtllm/plugin.py",
        ("tests/test_trtllm_commands.py", "tests/test_trtllm_rules_pinned.py"),
    ),
)


@dataclass(frozen=True)
class Hand:
    """One of issue 17's hand-written mutants: a change no test noticed, kept as a regression."""

    name: str
    #: Which target's tests must catch it (its narrow selection, not the whole suite).
    target: str
    #: The file, relative to the target's distribution, and the exact text to change.
    path: str
    old: str
    new: str


HAND: tuple[Hand, ...] = (
    Hand("gid_index 0 tested by truth", "core.ncclenv", "src/enginekit/placement/env.py",
         "if spec.gid_index is not None:", "if spec.gid_index:"),
    Hand("site deny_prefixes ignored", "core.envpolicy", "src/enginekit/policy/env.py",
         " or upper.startswith(self.deny_prefixes)", ""),
    Hand("_PLUGIN not a risky suffix", "core.envpolicy", "src/enginekit/policy/env.py",
         '    "_PLUGIN",\n', ""),
    Hand("'%' needs no path key", "core.envpolicy", "src/enginekit/policy/env.py",
         '("/" in value or "%" in value)', '("/" in value)'),
    Hand("value length limit moved by one", "core.envpolicy", "src/enginekit/policy/env.py",
         "> MAX_VALUE_LENGTH", ">= MAX_VALUE_LENGTH"),
    Hand("VLLM_ALLOW_INSECURE_SERIALIZATION allowed", "core.envpolicy", "src/enginekit/policy/env.py",
         "VLLM_ALLOW_INSECURE_SERIALIZATION ", ""),
    Hand("NCCL_COMM_ID allowed", "core.envpolicy", "src/enginekit/policy/env.py", "NCCL_COMM_ID ", ""),
    Hand("DEL allowed in values", "core.envpolicy", "src/enginekit/base/text.py", r"\x7f-\x9f", r"\x80-\x9f"),
    Hand("control scan skips env values", "core.speccheck", "src/enginekit/spec/rules.py",
         "out.extend(item.values())", "pass"),
    Hand("control scan skips adapters", "core.speccheck", "src/enginekit/spec/rules.py",
         "_collect(element, out)", "pass"),
    Hand("single-node leader_port unchecked", "core.speccheck", "src/enginekit/spec/rules.py",
         "elif spec.leader_port:", "elif False:"),
    Hand("GPU UUID without end anchor", "core.speccheck", "src/enginekit/spec/rules.py",
         'rf"GPU-{_UUID}\\Z"', 'rf"GPU-{_UUID}"'),
    Hand("MIG shard of several GPUs per node", "core.speccheck", "src/enginekit/spec/rules.py",
         "if migs and spec.profile.per_node != 1:", "if False:"),
    Hand("negative pp accepted", "core.checks", "src/enginekit/policy/checks.py",
         "if profile.pp < 0:", "if profile.pp < -1:"),
    Hand("compute-capability floor moved by one", "core.checks", "src/enginekit/policy/checks.py",
         "if cap < min_cap:", "if cap <= min_cap:"),
    Hand("no unknown-key check inside lists", "core.convert", "src/enginekit/spec/convert.py",
         'f"{where}[{i}]", unknown,', 'f"{where}[{i}]", [],'),
    Hand("prefix wins over an exact option", "core.args", "src/enginekit/policy/args.py",
         "if name in self.known or not", "if not"),
    Hand("an ambiguous prefix means one option", "core.args", "src/enginekit/policy/args.py",
         "                return matches", "                return frozenset(sorted(matches)[:1])"),
    Hand("serves_http ignores the engine", "core.engine", "src/enginekit/platform/engine.py",
         "        if answer is not None:\n            return answer\n        if _lays_out",
         "        if _lays_out"),
    Hand("placement overrides the listing's env", "core.engine", "src/enginekit/platform/engine.py",
         "env={**placed.env, **listing.env}", "env={**listing.env, **placed.env}"),
    Hand("stale hook callers after add()", "core.registry", "src/enginekit/platform/registry.py",
         '            self._providers[name] = ()\n        self._forget()\n',
         '            self._providers[name] = ()\n'),
    Hand("UUID release boundary moved by one", "vllm.launch", "src/enginekit_vllm/launch.py",
         "release < UUID_DEVICES_SINCE", "release <= UUID_DEVICES_SINCE"),
    Hand("OMP_NUM_THREADS may be 0", "vllm.launch", "src/enginekit_vllm/launch.py",
         "str(max(1, shard.threads // shard.profile.per_node))",
         "str(shard.threads // shard.profile.per_node)"),
    Hand("\\u-escaped key in a value JSON cannot read", "vllm.argpolicy", "src/enginekit_vllm/argpolicy.py",
         'return key in use.value.replace("-", "_") or "\\\\" in use.value',
         'return key in use.value.replace("-", "_")'),
    Hand("'+' (list append) on a dotted key", "vllm.argpolicy", "src/enginekit_vllm/argpolicy.py",
         'return name.rstrip("+").replace("-", "_")', 'return name.replace("-", "_")'),
)  # fmt: skip


#: Survivors judged equivalent (no test can tell them from the original) or out of a
#: test's reach, each with why: ``mutation-equivalents.json``, keyed by the target and the
#: lines the mutant changes, not by mutmut's numbering, so an entry stays valid when other
#: code moves and goes stale (reported as undocumented) when its line changes.
EQUIVALENTS_FILE = Path(__file__).resolve().parent / "mutation-equivalents.json"


def _equivalents() -> dict[tuple[str, str, str], str]:
    rows = json.loads(EQUIVALENTS_FILE.read_text(encoding="utf-8"))
    return {(row["target"], row["original"], row["mutant"]): row["why"] for row in rows}


#: What each gated target scored, and over which inputs: ``mutation-record.json``, written
#: by ``--record`` after a run and read by ``--changed``. A target whose inputs are the ones
#: recorded, with a recorded score over the line, is verified without running it again.
RECORD_FILE = Path(__file__).resolve().parent / "mutation-record.json"

#: Raised when what a target's digest covers, or how a run scores, changes meaning: every
#: recorded target then runs again.
RECORD_SCHEMA = 1


def _test_files(target: Target) -> list[str]:
    """The files of a target's test selection (``file::test`` names its file), and the conftests."""
    files = {test.split("::")[0] for test in target.tests}
    files.add("tests/conftest.py")
    return sorted(files)


def inputs_digest(target: Target, root: Path = ROOT) -> str:
    """A digest of everything a target's score is a function of, as far as it is its own.

    The module, the files of its test selection and their conftest, its row in the table,
    its documented equivalents and hand-written mutants, mutmut's pin and shared settings.
    Not covered: other modules its tests call. That drift is what ``--rotate`` is for.
    """
    digest = hashlib.sha256()

    def add(label: str, data: bytes) -> None:
        digest.update(f"{label}\0{len(data)}\0".encode())
        digest.update(data)

    add("schema", str(RECORD_SCHEMA).encode())
    row = (target.name, target.dist, target.source, target.tests, target.gated)
    add("row", repr(row).encode())
    dist = root / target.dist
    for relative in [target.source, *_test_files(target)]:
        path = dist / relative
        add(relative, path.read_bytes() if path.is_file() else b"(absent)")
    equivalents = json.loads((root / "tools" / EQUIVALENTS_FILE.name).read_text(encoding="utf-8"))
    mine = sorted((r["original"], r["mutant"], r["why"]) for r in equivalents if r["target"] == target.name)
    add("equivalents", json.dumps(mine).encode())
    add("hand", repr([m for m in HAND if m.target == target.name]).encode())
    add("settings", json.dumps(_root_settings(root), sort_keys=True).encode())
    add("mutmut", json.dumps(_mutmut_pin(root)).encode())
    return digest.hexdigest()


def _mutmut_pin(root: Path) -> list[str]:
    return list(_pyproject(root).get("dependency-groups", {}).get("mutation", []))


def read_record(path: Path = RECORD_FILE) -> dict[str, dict[str, Any]]:
    if not path.exists():
        return {}
    data = json.loads(path.read_text(encoding="utf-8"))
    return dict(data.get("targets", {}))


def write_record(
    scores: Sequence[Score],
    path: Path = RECORD_FILE,
    root: Path = ROOT,
    digests: Mapping[str, str] | None = None,
) -> None:
    """Record each target that ran to the end: its inputs' digest and what it scored.

    ``digests``: each target's, taken before it ran, so that a file edited during a long run
    makes the target run again rather than lending it a score it never had.
    """
    record = read_record(path)
    for s in scores:
        if not s.complete:
            record.pop(s.target.name, None)
            continue
        taken = digests.get(s.target.name) if digests is not None else None
        record[s.target.name] = {
            "inputs": taken or inputs_digest(s.target, root),
            "score": round(s.score_without_equivalents, 2),
            "seconds": round(s.seconds),
        }
    known = {t.name for t in TARGETS}
    targets = {name: record[name] for name in sorted(record) if name in known}
    text = json.dumps({"schema": RECORD_SCHEMA, "targets": targets}, indent=1)
    path.write_text(text + "\n", encoding="utf-8")


@dataclass(frozen=True)
class Selection:
    """Which targets a ``--changed`` run takes, and why; the rest were verified as recorded."""

    changed: tuple[Target, ...]
    rotating: tuple[Target, ...]
    verified: tuple[Target, ...]

    @property
    def chosen(self) -> list[Target]:
        names = {t.name for t in (*self.changed, *self.rotating)}
        return [t for t in TARGETS if t.name in names]


def select(
    targets: Sequence[Target],
    record: dict[str, dict[str, Any]],
    digests: dict[str, str],
    fail_under: float,
    seed: str,
    rotate_s: float,
) -> Selection:
    """The targets whose inputs or score differ from the record, and a rotating few of the rest.

    A target is verified when the record holds its current inputs' digest and a score at
    or over ``fail_under``. Of the verified, an order drawn from ``seed`` (the commit under
    test, so every commit draws another) picks targets by their recorded time until
    ``rotate_s`` is spent, the first always: across commits each target runs again, and a
    score that drifted through a module its tests only call is caught.
    """
    changed: list[Target] = []
    verified: list[Target] = []
    for target in targets:
        entry = record.get(target.name)
        current = (
            entry is not None
            and entry.get("inputs") == digests[target.name]
            and float(entry.get("score", -1.0)) >= fail_under
        )
        (verified if current else changed).append(target)
    order = sorted(verified, key=lambda t: hashlib.sha256(f"{seed}\0{t.name}".encode()).hexdigest())
    rotating: list[Target] = []
    spent = 0.0
    for target in order if rotate_s > 0 else ():
        seconds = float(record[target.name].get("seconds", 0))
        if rotating and spent + seconds > rotate_s:
            continue
        rotating.append(target)
        spent += seconds
    rest = tuple(t for t in verified if t not in rotating)
    return Selection(tuple(changed), tuple(rotating), rest)


def _head(root: Path = ROOT) -> str:
    """The commit under test, the rotation's seed; empty outside a git checkout."""
    try:
        done = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, check=False, timeout=30
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout.strip() if done.returncode == 0 else ""


#: The exit codes mutmut records, by what they mean for the score.
_KILLED = {1, 3, 36, 37, 24, -24, 152, 255}  # failed, pytest error, timeouts, type check
_SURVIVED = {0}
_NO_TESTS = {5, 33}


# --- the pytest plugin ---------------------------------------------------------------------------


def _mutant() -> str:
    return os.environ.get("MUTANT_UNDER_TEST", "")


def _clear_caches() -> None:
    for name, module in list(sys.modules.items()):
        if name.startswith("enginekit") and module is not None:
            for value in list(vars(module).values()):
                clear = getattr(value, "cache_clear", None)
                if callable(clear):
                    clear()


#: The functions the code under test calls while it is imported (the deny groups'
#: ``_group``, ``_make_converter``…), as mutmut names them; filled while it records
#: which test calls what, and inherited by every worker it forks.
_CALLED_AT_IMPORT: set[str] = set()


def pytest_load_initial_conftests(early_config: object, parser: object, args: list[str]) -> None:
    """Make the mutant the code under test really runs, before any conftest is imported.

    mutmut forks each mutant's worker from a process that has imported everything and
    run the tests once, and picks the mutant when a function is called. So a worker starts
    with ``functools`` caches full of the original code's answers: they are emptied. And
    a mutant of code that runs at import would never run at all: for those, ``enginekit*``
    and every module loaded from the working directory (the copied tests, conftests and
    helpers) are dropped, so the session imports them again with the mutant in place.
    """
    mutant = _mutant()
    if "__mutmut_" not in mutant:
        return  # mutmut's own runs (stats, clean, forced failure) are left as they are
    if mutant.partition("__mutmut_")[0] not in _CALLED_AT_IMPORT:
        _clear_caches()
        return
    here = os.getcwd() + os.sep
    for name, module in list(sys.modules.items()):
        path = getattr(module, "__file__", None) or ""
        if name.startswith("enginekit") or path.startswith(here):
            del sys.modules[name]


def pytest_configure(config: Any) -> None:
    """Property tests look for a failure, never shrink one: a mutant needs a verdict, not a minimal case."""
    try:
        from hypothesis import Phase, settings
    except ImportError:  # pragma: no cover - hypothesis is in the dev group
        return
    settings.register_profile(
        "mutation",
        max_examples=25,
        phases=(Phase.explicit, Phase.reuse, Phase.generate),
        deadline=None,
        database=None,
    )
    settings.load_profile("mutation")


def pytest_collection_modifyitems(session: Any, config: Any, items: list[Any]) -> None:
    """Fastest tests first: mutmut stops at the first failure, so a kill comes sooner."""
    if "__mutmut_" not in _mutant():
        return
    from mutmut.state import state

    durations = state().duration_by_test
    items.sort(key=lambda item: durations.get(item.nodeid, 0.0))


def pytest_runtest_setup(item: Any) -> None:
    """While mutmut records which test calls what, start every test with empty caches.

    A function behind ``functools.cache`` (``_fields_of``, the env verdicts) is called only
    by the first test that needs its answer; every later one would go uncredited, and a
    mutant of it would be run against that one test alone.
    """
    if _mutant() == "stats":
        _clear_caches()


def pytest_collection_finish(session: Any) -> None:
    """Note the functions called while the tests were imported (deny groups, converter)."""
    if _mutant() == "stats":
        from mutmut.state import state

        _CALLED_AT_IMPORT.update(state()._stats)


def pytest_sessionfinish(session: Any, exitstatus: int) -> None:
    """Give a function called at import every selected test, not just the first one run.

    mutmut credits a call to the test running at the time; calls made at import would
    all go to whichever test happened to run first, which may not look at them at all.
    """
    if _mutant() != "stats" or not _CALLED_AT_IMPORT:
        return
    from mutmut.state import state

    tests = {item.nodeid for item in session.items}
    for function in _CALLED_AT_IMPORT:
        state().tests_by_mangled_function_name[function] |= tests


# --- one target, in its own process ---------------------------------------------------------------


def _pyproject(root: Path = ROOT) -> dict[str, Any]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on 3.10 only
        import tomli as tomllib
    data: dict[str, Any] = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    return data


def _root_settings(root: Path = ROOT) -> dict[str, Any]:
    settings: dict[str, Any] = _pyproject(root).get("tool", {}).get("mutmut", {})
    return settings


def _worker(target: Target, max_children: int, out: Path) -> int:
    """Run mutmut on ``target`` in this process; the working directory is its distribution."""
    import mutmut.configuration as configuration

    dist = ROOT / target.dist
    os.chdir(dist)
    shutil.rmtree(dist / "mutants", ignore_errors=True)
    tests = [t for t in target.tests if (dist / t.split("::")[0]).exists()]
    settings = _root_settings()
    configuration._config = configuration.Config(
        also_copy=[Path("tests"), Path("pyproject.toml")],
        only_mutate=[target.source],
        do_not_mutate=[],
        do_not_mutate_patterns=list(settings.get("do_not_mutate_patterns", [])),
        max_stack_depth=-1,
        debug=bool(settings.get("debug", False)),
        source_paths=[Path("src")],
        resolved_mutated_source_paths=[dist / "mutants" / "src"],
        pytest_add_cli_args=[*settings.get("pytest_add_cli_args", []), "-p", "mutation"],
        pytest_add_cli_args_test_selection=tests,
        mutate_only_covered_lines=False,
        timeout_multiplier=float(settings.get("timeout_multiplier", 15.0)),
        timeout_constant=float(settings.get("timeout_constant", 1.0)),
        type_check_command=[],
        use_setproctitle=False,
        track_dependencies=True,
        dependency_tracking_depth=-1,
        cache_invalidation_files=[],
        cache_invalidation_exclude=[],
        on_dependency_change="ignore",
        use_git_change_detection=False,
        process_isolation=configuration.ProcessIsolation(settings.get("process_isolation", "fork")),
        forkserver_warmup=configuration.ForkServerWarmup.COLLECT,
        max_forkserver_restarts=3,
        preload_modules_file=None,
        log_to_file=False,
        log_file_path="mutants/mutmut-debug.log",
    )
    sys.path.insert(0, str(Path(__file__).resolve().parent))  # for ``-p mutation``
    # Imported only now: mutmut reads its configuration when imported.
    from mutmut import __main__ as mutmut_main
    from mutmut.mutation.data import SourceFileMutationData
    from mutmut.mutation.diff_apply import get_diff_for_mutant

    try:
        mutmut_main._run([], max_children)
    except SystemExit as stop:
        if stop.code not in (0, None):
            return int(stop.code) if isinstance(stop.code, int) else 1
    data = SourceFileMutationData(path=Path(target.source))
    data.load()
    survivors = []
    for key, code in sorted(data.exit_code_by_key.items()):
        if code in _KILLED:
            continue
        try:
            diff = get_diff_for_mutant(key, path=target.source)
        except Exception as exc:  # a report without one diff beats no report
            diff = f"(no diff: {type(exc).__name__}: {exc})"
        survivors.append({"mutant": key, "exit_code": code, "diff": diff})
    out.write_text(
        json.dumps({"codes": data.exit_code_by_key, "survivors": survivors}, indent=1), encoding="utf-8"
    )
    return 0


# --- the table ------------------------------------------------------------------------------------


@dataclass
class Score:
    target: Target
    total: int = 0
    killed: int = 0
    survived: int = 0
    no_tests: int = 0
    other: int = 0
    equivalent: int = 0
    seconds: float = 0.0
    complete: bool = True
    survivors: tuple[dict[str, Any], ...] = ()

    @property
    def score(self) -> float:
        return 100.0 * self.killed / self.total if self.total else 0.0

    @property
    def score_without_equivalents(self) -> float:
        real = self.total - self.equivalent
        return 100.0 * self.killed / real if real else 0.0


def _changed_lines(diff: str) -> tuple[str, str]:
    removed = [
        line[1:].strip() for line in diff.splitlines() if line.startswith("-") and not line.startswith("---")
    ]
    added = [
        line[1:].strip() for line in diff.splitlines() if line.startswith("+") and not line.startswith("+++")
    ]
    return " / ".join(removed), " / ".join(added)


def _why_equivalent(target: Target, diff: str) -> str | None:
    old, new = _changed_lines(diff)
    return _equivalents().get((target.name, old, new))


def _score(target: Target, result: dict[str, Any], seconds: float, complete: bool) -> Score:
    codes = list(result["codes"].values())
    score = Score(target, total=len(codes), seconds=seconds, complete=complete)
    score.killed = sum(code in _KILLED for code in codes)
    score.survived = sum(code in _SURVIVED for code in codes)
    score.no_tests = sum(code in _NO_TESTS for code in codes)
    score.other = score.total - score.killed - score.survived - score.no_tests
    survivors = []
    for survivor in result["survivors"]:
        why = _why_equivalent(target, survivor["diff"])
        survivors.append({**survivor, "equivalent": why})
        score.equivalent += why is not None
    score.survivors = tuple(survivors)
    return score


def run_target(target: Target, max_children: int, log: Path) -> Score:
    """Run one target in a child process within its budget, and score what it recorded."""
    out = RESULTS / f"{target.name}.json"
    out.unlink(missing_ok=True)
    command = [sys.executable, __file__, "--worker", target.name, "--max-children", str(max_children)]
    start = time.monotonic()
    complete = True
    with log.open("w", encoding="utf-8") as sink:
        try:
            code = subprocess.run(
                command, stdout=sink, stderr=subprocess.STDOUT, timeout=target.budget_s
            ).returncode
        except subprocess.TimeoutExpired:
            complete, code = False, 0
    seconds = time.monotonic() - start
    if not out.exists():
        if complete:
            sys.exit(f"{target.name}: mutmut failed (exit {code}); see {log}")
        # Stopped at its budget: collect what it recorded so far.
        subprocess.run([*command, "--collect-only"], stdout=subprocess.DEVNULL, check=False)
    if not out.exists():
        return Score(target, seconds=seconds, complete=False)
    return _score(target, json.loads(out.read_text(encoding="utf-8")), seconds, complete)


def _collect_only(target: Target, out: Path) -> int:
    from mutmut.mutation.data import SourceFileMutationData

    os.chdir(ROOT / target.dist)
    data = SourceFileMutationData(path=Path(target.source))
    data.load()
    out.write_text(json.dumps({"codes": data.exit_code_by_key, "survivors": []}), encoding="utf-8")
    return 0


def _pytest(dist: Path, tests: Sequence[str]) -> int:
    command = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "-p", "mutation"]
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(dist / "src"), str(Path(__file__).resolve().parent)]),
    }
    env.pop("MUTANT_UNDER_TEST", None)
    return subprocess.run(
        [*command, "--import-mode=importlib", *tests], cwd=dist, env=env, capture_output=True, check=False
    ).returncode


def run_hand(mutants: Sequence[Hand]) -> list[tuple[Hand, str]]:
    """Apply each hand-written mutant to a copy of its distribution and run its target's tests."""
    import tempfile

    by_name = {t.name: t for t in TARGETS}
    results = []
    with tempfile.TemporaryDirectory(prefix="ek-hand-") as scratch:
        clean: dict[str, int] = {}
        for mutant in mutants:
            target = by_name[mutant.target]
            source = ROOT / target.dist
            tests = [t for t in target.tests if (source / t.split("::")[0]).exists()]
            copy = Path(scratch) / target.dist
            if target.dist not in clean:
                shutil.copytree(source / "src", copy / "src", ignore=shutil.ignore_patterns("__pycache__"))
                shutil.copytree(
                    source / "tests", copy / "tests", ignore=shutil.ignore_patterns("__pycache__")
                )
                clean[target.dist] = _pytest(copy, tests)
            if clean[target.dist] != 0:
                results.append((mutant, "not run: the unmutated tests fail"))
                continue
            path = copy / mutant.path
            original = path.read_text(encoding="utf-8") if path.exists() else ""
            if mutant.old not in original:
                results.append((mutant, "stale: the code it changes is gone"))
                continue
            path.write_text(original.replace(mutant.old, mutant.new, 1), encoding="utf-8")
            try:
                code = _pytest(copy, tests)
            finally:
                path.write_text(original, encoding="utf-8")
            results.append((mutant, "killed" if code == 1 else f"SURVIVED (pytest exit {code})"))
    return results


def table(scores: Sequence[Score]) -> str:
    """The score table, as Markdown."""
    lines = [
        "| module | mutants | killed | survived | no tests | score | without equivalents | time |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for s in scores:
        flag = "" if s.complete else " (stopped at budget)"
        gate = "" if s.target.gated else " (info)"
        lines.append(
            f"| {s.target.name}{gate} | {s.total} | {s.killed} | {s.survived} | {s.no_tests} | "
            f"{s.score:.1f}% | {s.score_without_equivalents:.1f}% | {s.seconds:.0f}s{flag} |"
        )
    return "\n".join(lines)


def survivors_report(scores: Sequence[Score]) -> str:
    """Every mutant no test killed, with its diff and, when documented, why it is equivalent."""
    parts = []
    for s in scores:
        for survivor in s.survivors:
            verdict = (
                survivor["equivalent"] or "NOT DOCUMENTED: add a test, or an EQUIVALENT entry saying why"
            )
            title = f"### {survivor['mutant']} (exit {survivor['exit_code']})"
            parts.append(f"{title}\n\n{verdict}\n\n```diff\n{survivor['diff']}\n```\n")
    return "\n".join(parts) or "No survivors.\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("targets", nargs="*", help="target names (default: all); see --list")
    parser.add_argument("--list", action="store_true", help="list the targets and their tests")
    parser.add_argument("--max-children", type=int, default=2, help="parallel mutants (default: 2)")
    parser.add_argument("--gated", action="store_true", help="only the targets with a score target")
    parser.add_argument("--no-hand", action="store_true", help="skip issue 17's hand-written mutants")
    parser.add_argument(
        "--fail-under",
        type=float,
        metavar="PERCENT",
        help="exit 1 when a gated target scores less, documented equivalents set aside (release: 95)",
    )
    parser.add_argument(
        "--record",
        action="store_true",
        help=f"write each finished target's inputs digest and score to {RECORD_FILE.name}",
    )
    parser.add_argument(
        "--changed",
        action="store_true",
        help="only the gated targets whose inputs or score differ from the record (needs --fail-under)",
    )
    parser.add_argument(
        "--rotate",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="with --changed: also rerun verified targets, drawn by --seed, for about this long",
    )
    parser.add_argument("--seed", help="the rotation's draw (default: the checkout's HEAD commit)")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--collect-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    by_name = {t.name: t for t in TARGETS}
    if args.worker:
        target = by_name[args.worker]
        out = RESULTS / f"{target.name}.json"
        return _collect_only(target, out) if args.collect_only else _worker(target, args.max_children, out)
    if args.list:
        for t in TARGETS:
            print(f"{t.name:22} {t.dist}/{t.source}  budget {t.budget_s}s{'' if t.gated else '  (info)'}")
            for test in t.tests:
                print(f"{'':22}   {t.dist}/{test}")
        return 0
    unknown = [name for name in args.targets if name not in by_name]
    if unknown:
        parser.error(f"unknown targets {unknown}; have {sorted(by_name)}")
    chosen = [by_name[n] for n in args.targets] if args.targets else list(TARGETS)
    if args.gated or args.changed:
        chosen = [t for t in chosen if t.gated]
    if args.changed:
        if args.fail_under is None:
            parser.error("--changed needs --fail-under: a recorded score under it is run again")
        seed = _head() if args.seed is None else args.seed
        digests = {t.name: inputs_digest(t) for t in chosen}
        selection = select(chosen, read_record(), digests, args.fail_under, seed, args.rotate)
        groups = (("changed since the record", selection.changed), ("rotating", selection.rotating))
        for label, group in groups:
            print(f"{label}: {', '.join(t.name for t in group) or 'none'}")
        verified = ", ".join(t.name for t in selection.verified) or "none"
        print(f"verified as recorded, inputs unchanged (seed {seed[:12] or 'none'}): {verified}", flush=True)
        chosen = selection.chosen

    RESULTS.mkdir(exist_ok=True)
    scores = []
    taken: dict[str, str] = {}
    start = time.monotonic()
    for target in chosen:
        taken[target.name] = inputs_digest(target)
        print(f"== {target.name}: {target.dist}/{target.source}", flush=True)
        score = run_target(target, args.max_children, RESULTS / f"{target.name}.log")
        scores.append(score)
        print(
            f"   {score.killed}/{score.total} killed ({score.score:.1f}%) in {score.seconds:.0f}s", flush=True
        )
    report = table(scores)
    if not args.no_hand:
        chosen_names = {t.name for t in chosen}
        hand = run_hand([m for m in HAND if m.target in chosen_names])
        report += "\n\nIssue 17's hand-written mutants, each against its module's tests:\n\n"
        report += "\n".join(f"- {m.target}: {m.name}: {verdict}" for m, verdict in hand)
    if args.record:
        write_record(scores, digests=taken)
    survivors = survivors_report(scores)
    (RESULTS / "report.md").write_text(f"{report}\n\n## Survivors\n\n{survivors}", encoding="utf-8")
    print()
    print(report)
    print(f"\ntotal {time.monotonic() - start:.0f}s; survivors with diffs: {RESULTS / 'report.md'}")
    if args.fail_under is not None:
        low = [
            s
            for s in scores
            if s.target.gated and (s.score_without_equivalents < args.fail_under or not s.complete)
        ]
        for s in low:
            print(
                f"FAIL {s.target.name}: {s.score_without_equivalents:.1f}% < {args.fail_under}%",
                file=sys.stderr,
            )
        return 1 if low else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
