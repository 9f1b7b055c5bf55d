"""Profile, argument, document and registry rules, each pinned with the reason it exists.

Written against changes that only the whole suite, or nothing, noticed (issue 17): each
test here fails on its own when the rule in its name is broken.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from enginekit import Adapter, Command, GPUInfo, Profile, Registry, ShardSpec, hookimpl
from enginekit.base.errors import SpecError
from enginekit.placement.builder import CommandBuilder
from enginekit.policy.args import (
    ArgSyntax,
    code_loading_problems,
    find_options,
    managed_option_problems,
    option_values,
    positional_problems,
    spelling,
)
from enginekit.policy.checks import (
    MAX_ADAPTERS,
    MAX_ARGS,
    MAX_ENV,
    bounds_problems,
    quantization_of,
    require_compute_capability,
    validate_common,
)
from enginekit.spec.convert import structure
from enginekit.spec.model import MAX_GPU_INDEX, MAX_NODES, MAX_PARALLEL

Make = Callable[..., ShardSpec]


def profile(**fields: object) -> Profile:
    return Profile(**{"name": "llama", "engine": "x", "model_path": "/m", **fields})  # type: ignore[arg-type]


# --- checks: parallel degrees ----------------------------------------------------------------


@pytest.mark.parametrize("pp", [-1, -2, -8])
def test_a_negative_pipeline_degree_is_refused(pp: int) -> None:
    # Read as 1 by pipeline_degree, a negative pp would pass every shape check and reach
    # the engine as --pipeline-parallel-size -1.
    problems = validate_common(profile(pp=pp), [])
    assert f"profile 'llama': pipeline parallel degree must not be negative, got {pp}" in problems


@pytest.mark.parametrize("pp", [0, 1])
def test_pipeline_degree_zero_is_the_go_zero_value_and_means_one(pp: int) -> None:
    assert validate_common(profile(pp=pp), []) == []


@pytest.mark.parametrize("tp", [0, -1])
def test_a_tensor_parallel_degree_below_one_is_refused(tp: int) -> None:
    assert f"profile 'llama': tensor parallel degree must be positive, got {tp}" in validate_common(
        profile(tp=tp), []
    )


# --- checks: the compute-capability floor -----------------------------------------------------


@pytest.mark.parametrize(
    ("capability", "refused"),
    [("7.9", True), ("8.0", False), ("8.9", False), ("9.0", False), ("7.5", True)],
)
def test_a_gpu_exactly_at_the_floor_is_accepted(capability: str, refused: bool) -> None:
    # The floor is the lowest capability that works (vLLM's get_min_capability): a GPU
    # at it runs the method, one below it does not.
    gpu = GPUInfo(index=0, name="GPU", compute_capability=capability)
    problems = require_compute_capability(profile(), [gpu], 8.0, "fp8 quantization")
    assert bool(problems) is refused, problems
    if refused:
        assert problems == [
            f"profile 'llama': fp8 quantization needs compute capability 8.0, GPU 0 (GPU) has {capability}"
        ]


def test_every_gpu_below_the_floor_is_named() -> None:
    gpus = [GPUInfo(index=i, name="T4", compute_capability="7.5") for i in range(2)]
    assert len(require_compute_capability(profile(), gpus, 8.0, "fp8")) == 2


# --- args: how a parser resolves an option ---------------------------------------------------

SYNTAX = ArgSyntax(known={"--port", "--port-range", "--trust-remote-code", "--trust-request-chat-template"})


def test_an_exact_option_wins_over_longer_options_it_prefixes() -> None:
    # argparse takes an exact match even when it is also a prefix of another option:
    # "--port" is --port, not an ambiguous abbreviation of --port-range.
    assert SYNTAX.meanings("--port") == frozenset({"--port"})
    assert SYNTAX.meanings("--port=1") == frozenset({"--port"})
    assert [use.option for use in find_options(["--port", "1"], {"--port-range"}, SYNTAX)] == []


def test_an_ambiguous_prefix_may_mean_every_option_it_prefixes() -> None:
    # argparse refuses an ambiguous prefix today, but a check must not assume which one a
    # future parser would pick: a prefix of a refused option is refused.
    assert SYNTAX.meanings("--trust") == frozenset({"--trust-remote-code", "--trust-request-chat-template"})
    problems = code_loading_problems(
        "p", SYNTAX.parse(["--trust"]), {"--trust-remote-code": "runs code"}, (), config_key="allow"
    )
    assert problems == [
        "profile 'p': args: '--trust' (--trust-remote-code) runs code; refused unless the site "
        'allows it (allow = ["--trust-remote-code"])'
    ]


def test_an_unambiguous_prefix_means_its_option() -> None:
    assert SYNTAX.meanings("--trust-rem") == frozenset({"--trust-remote-code"})
    assert SYNTAX.meanings("--port-r") == frozenset({"--port-range"})


def test_without_abbreviations_a_prefix_is_only_itself() -> None:
    strict = ArgSyntax(known=SYNTAX.known, abbreviations=False)
    assert strict.meanings("--trust-rem") == frozenset({"--trust-rem"})


def test_a_managed_option_set_by_a_prefix_is_refused() -> None:
    problems = managed_option_problems(
        "p", SYNTAX.parse(["--port-r=1-2"]), {"--port-range": "placement picks ports"}
    )
    assert problems == [
        "profile 'p': args: '--port-r' sets --port-range, which enginekit manages; placement picks ports"
    ]


# --- convert: unknown keys everywhere, lists of tables included --------------------------------


@pytest.mark.parametrize(
    ("raw", "where"),
    [
        (
            {"name": "p", "engine": "x", "adapters": [{"name": "a", "path": "/a", "pth": "/b"}]},
            "profile.adapters[0].pth",
        ),
        (
            {
                "name": "p",
                "engine": "x",
                "adapters": [{"name": "a", "path": "/a"}, {"name": "b", "path": "/b", "trust": True}],
            },
            "profile.adapters[1].trust",
        ),
    ],
)
def test_an_unknown_key_inside_a_list_of_tables_is_named_by_its_path(
    raw: dict[str, object], where: str
) -> None:
    # A misspelt key in an adapter is a setting the author believes applies and does not:
    # it must fail as loudly as one at the top.
    with pytest.raises(SpecError) as err:
        structure(raw, Profile, path="profile")
    assert f"{where}: unknown field" in err.value.problems


def test_an_unknown_key_inside_a_list_is_reported_not_fatal_when_lenient() -> None:
    raw = {"name": "p", "engine": "x", "adapters": [{"name": "a", "path": "/a", "pth": "/b"}]}
    value, unknown = structure(raw, Profile, path="profile", lenient=True)
    assert unknown == ["profile.adapters[0].pth: unknown field"]
    assert value.adapters[0].path == "/a"


def test_an_unknown_key_inside_a_nested_table_is_named_by_its_path() -> None:
    raw = {"profile": {"name": "p", "engine": "x", "tp": 1, "tq": 2}, "http_port": 1}
    with pytest.raises(SpecError) as err:
        structure(raw, ShardSpec, path="spec")
    assert "spec.profile.tq: unknown field" in err.value.problems


# --- registry: adding an engine never changes who answers for another --------------------------


class _Speaks:
    def __init__(self, word: str) -> None:
        self.word = word

    @hookimpl
    def validate(self) -> list[str]:
        return []

    @hookimpl
    def notes(self) -> list[str]:
        return [self.word]

    @hookimpl
    def commands(self, shard: ShardSpec) -> list[Command]:
        return [CommandBuilder(shard).command(self.word, [])]

    @hookimpl
    def health_path(self) -> str:
        return f"/{self.word}"


def test_an_engine_added_later_never_answers_for_one_asked_before(make_shard: Make) -> None:
    # Callers are cached per engine; one cached before a second engine was added must not
    # reach the newcomer's hooks, or the wrong engine would validate and launch the shard.
    registry = Registry()
    registry.add(_Speaks("alpha"), name="alpha")
    alpha = registry.engine("alpha")
    spec = make_shard("alpha")
    assert alpha.notes(spec) == ["alpha"]
    assert alpha.health_path() == "/alpha"
    registry.add(_Speaks("beta"), name="beta")
    assert alpha.notes(spec) == ["alpha"], "a hook caller cached before add() reached the new engine"
    assert registry.engine("alpha").notes(spec) == ["alpha"]
    assert [c.path for c in registry.engine("alpha").commands(spec)] == ["alpha"]
    assert registry.engine("beta").notes(make_shard("beta")) == ["beta"]


def test_replacing_an_engine_forgets_its_cached_answers(make_shard: Make) -> None:
    registry = Registry()
    registry.add(_Speaks("old"), name="x")
    assert registry.engine("x").health_path() == "/old"
    registry.add(_Speaks("new"), name="x", replace=True)
    assert registry.engine("x").health_path() == "/new"
    assert registry.engine("x").notes(make_shard("x")) == ["new"]


# --- checks: the shape of a profile ---------------------------------------------------------


@pytest.mark.parametrize(
    "fields",
    [
        {"tp": 4, "pp": 2, "nodes": 2, "gpus_per_node": 4},  # 2 nodes x 4 GPUs = TP 4 x PP 2
        {"tp": 8, "pp": 2, "nodes": 2, "gpus_per_node": 8},
        {"tp": 1, "pp": 2, "nodes": 2, "gpus_per_node": 1},  # one GPU per node is a real shape
        {"tp": 2, "pp": 3, "nodes": 3, "gpus_per_node": 2},
    ],
)
def test_a_multi_node_profile_whose_gpus_match_tp_times_pp_is_valid(fields: dict[str, int]) -> None:
    assert validate_common(profile(**fields), []) == []


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"tp": 1, "gpus_per_node": 2}, "1 nodes x 2 GPUs does not match TP 1 x PP 1"),
        ({"tp": 4, "pp": 2, "nodes": 2, "gpus_per_node": 2}, "2 nodes x 2 GPUs does not match TP 4 x PP 2"),
        ({"tp": 2, "pp": 2, "nodes": 1, "gpus_per_node": 2}, "1 nodes x 2 GPUs does not match TP 2 x PP 2"),
    ],
)
def test_a_profile_whose_gpus_do_not_match_tp_times_pp_is_refused(
    fields: dict[str, int], expected: str
) -> None:
    # The engine would start a group of one size on GPUs of another, and wait forever.
    assert validate_common(profile(**fields), []) == [f"profile 'llama': {expected}"]


def test_a_tensor_parallel_degree_of_zero_is_the_only_problem_reported() -> None:
    # The shape check needs a degree to compare with: it says nothing about TP 0.
    assert validate_common(profile(tp=0, gpus_per_node=2), []) == [
        "profile 'llama': tensor parallel degree must be positive, got 0"
    ]


@pytest.mark.parametrize("fields", [{"nodes": -1}, {"gpus_per_node": -1}, {"nodes": -1, "gpus_per_node": -1}])
def test_negative_nodes_or_gpus_per_node_are_refused(fields: dict[str, int]) -> None:
    assert "profile 'llama': nodes and gpus_per_node must not be negative" in validate_common(
        profile(**fields), []
    )


@pytest.mark.parametrize(
    ("name", "ok"), [("a..b", False), ("a.b", True), ("v1.2-lora_x", True), ("a...", False)]
)
def test_an_adapter_name_may_hold_dots_but_never_two_in_a_row(name: str, ok: bool) -> None:
    # ".." is a parent directory wherever an engine joins the name into a path.
    problems = validate_common(profile(adapters=(Adapter(name=name, path="/a"),)), [])
    assert (problems == []) is ok, problems


def test_a_bare_double_dash_is_reported_once_with_its_reason() -> None:
    assert validate_common(profile(args=("--x", "--", "y")), []) == [
        "profile 'llama': args: a bare '--' ends option parsing, so what follows would be read as "
        "positional arguments"
    ]
    assert validate_common(profile(args=("--x", "y")), []) == []


@pytest.mark.parametrize(
    ("field", "value"),
    [("tp", MAX_PARALLEL), ("pp", MAX_PARALLEL), ("gpus_per_node", MAX_PARALLEL), ("nodes", MAX_NODES)],
)
def test_a_degree_may_be_its_limit_and_no_more(field: str, value: int) -> None:
    assert bounds_problems(profile(**{field: value})) == []
    assert bounds_problems(profile(**{field: value + 1})) == [
        f"profile 'llama': {field}: expected at most {value}, got {value + 1}"
    ]


@pytest.mark.parametrize(
    ("field", "limit", "make"),
    [
        ("args", MAX_ARGS, lambda n: {"args": ("--x",) * n}),
        ("env", MAX_ENV, lambda n: {"env": {f"NCCL_X{i}": "1" for i in range(n)}}),
        (
            "adapters",
            MAX_ADAPTERS,
            lambda n: {"adapters": tuple(Adapter(name=f"a{i}", path="/a") for i in range(n))},
        ),
    ],
)
def test_a_list_may_hold_its_limit_and_no_more(
    field: str, limit: int, make: Callable[[int], dict[str, object]]
) -> None:
    assert bounds_problems(profile(**make(limit))) == []
    assert bounds_problems(profile(**make(limit + 1))) == [
        f"profile 'llama': {field}: more than {limit} entries ({limit + 1})"
    ]


def test_the_highest_gpu_index_is_accepted() -> None:
    gpu = GPUInfo(index=MAX_GPU_INDEX, name="H100", compute_capability="9.0")
    assert validate_common(profile(), [gpu]) == []
    assert validate_common(profile(), [GPUInfo(index=MAX_GPU_INDEX + 1, name="H100")]) == [
        f"profile 'llama': GPU index {MAX_GPU_INDEX + 1} is outside 0-{MAX_GPU_INDEX}"
    ]


def test_a_malformed_capability_skips_that_gpu_only() -> None:
    gpus = [
        GPUInfo(index=0, name="?", compute_capability="x"),
        GPUInfo(index=1, name="T4", compute_capability="7.5"),
    ]
    assert require_compute_capability(profile(), gpus, 8.0, "fp8") == [
        "profile 'llama': fp8 needs compute capability 8.0, GPU 1 (T4) has 7.5"
    ]


@pytest.mark.parametrize(
    ("args", "expected"),
    [([], ""), (["--quantization", "awq"], "awq"), (["--quant=fp8"], "fp8"), (["--quantization"], "")],
)
def test_the_quantization_is_read_like_argparse_without_an_engine_syntax(
    args: list[str], expected: str
) -> None:
    assert quantization_of(args) == expected


# --- args: values and spellings ----------------------------------------------------------------

Q = ArgSyntax(known={"--quantization", "--enforce-eager", "--kv-transfer-config"}, dotted=True)


def test_an_attached_value_is_everything_after_the_first_equals_sign() -> None:
    # JSON and key=value settings hold '=' themselves.
    assert option_values(['--kv-transfer-config={"a": "b=c"}'], "--kv-transfer-config", Q) == ['{"a": "b=c"}']
    assert option_values(["--quantization=a=b"], "--quantization", Q) == ["a=b"]


def test_the_value_is_the_token_after_the_option_whatever_came_before() -> None:
    assert option_values(["--enforce-eager", "--quantization", "fp8"], "--quantization", Q) == ["fp8"]
    assert option_values(["--quantization", "--enforce-eager"], "--quantization", Q) == []
    [use] = find_options(
        ["--enforce-eager", "--enforce-eager", "--quantization", "fp8"], {"--quantization"}, Q
    )
    assert (use.index, use.token, use.option, use.value) == (2, "--quantization", "--quantization", "fp8")


def test_a_secret_after_equals_is_never_part_of_the_spelling_shown() -> None:
    assert spelling("--api-key=sk-a=b") == "--api-key"
    assert Q.normalise("--quantization=a=b") == "--quantization"
    assert Q.normalise("--kv-transfer-config.a.b=c") == "--kv-transfer-config"


def test_a_bare_double_dash_and_three_letter_prefixes() -> None:
    assert Q.meanings("--") == frozenset({"--"})  # not a prefix of every option
    assert Q.meanings("--q") == frozenset({"--quantization"})
    assert Q.meanings("--e") == frozenset({"--enforce-eager"})


def test_a_token_after_a_list_option_is_its_value_until_the_next_option() -> None:
    arity = {"--list": None, "--flag": 0}
    syntax = ArgSyntax(known=set(arity))
    assert positional_problems("p", syntax.parse(["--list", "a", "b", "--flag"]), arity=arity) == []
    [problem] = positional_problems("p", syntax.parse(["--list", "a", "--flag", "stray"]), arity=arity)
    assert problem.startswith(
        "profile 'p': args[3]: not an option, and '--flag' (args[2]) before it takes no value"
    )


def test_a_dotted_key_takes_exactly_one_value_whatever_its_option_takes() -> None:
    syntax = ArgSyntax(known={"--cfg"}, dotted=True)
    [problem] = positional_problems("p", syntax.parse(["--cfg.key", "v", "stray"]), arity={"--cfg": None})
    assert problem.startswith(
        "profile 'p': args[2]: not an option, and '--cfg.key' (args[0]) before it takes exactly 1 value"
    )
