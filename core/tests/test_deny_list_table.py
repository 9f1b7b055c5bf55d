"""Every entry of the env deny list, with the reason it is there: removing one fails a row that says what was lost.

This file holds its OWN copy of the deny list on purpose. A test that iterates
``envpolicy.DENY_GROUPS`` cannot notice an entry disappearing from it; these rows can.
Each row is checked two ways:

- by behaviour: a profile setting the variable is refused *for the deny list's reason*
  (not merely as "unknown" or by the suffix heuristic, which a site can open);
- by listing: the entry is still in the deny list, so an entry that another one happens
  to cover today (``OMPI_MCA_`` under ``OMPI_``) cannot vanish silently either;
- by floor: a site's ``allow`` list cannot open it (only ``allow_unsafe``, with a reason,
  can), except for the few groups marked as not a floor here (``NOT_FLOOR``).

Adding an entry to the deny list? Add its row here, with its reason: the completeness
test at the bottom fails until you do.

These are the engine-neutral entries. The names one engine would misuse are declared in
that engine's ``policy()`` (``denied_env``) and pinned in the plugin's own tests;
test_engine_env_policy.py pins how the core applies them.
"""

from __future__ import annotations

import pytest
from enginekit.policy.env import DENY_GROUPS, EnvPolicy, unsafe_env

# The group each entry belongs to, by a phrase of the reason the policy gives for it.
LOADER = "the dynamic loader or libc"
ALLOCATOR = "glibc's allocator would take its tuning"
OPENMP = "the OpenMP runtime would load the tool libraries"
SHELL = "a shell or another interpreter"
PYTHON = "the Python interpreter"
CUDA = "CUDA or its compilers"
NCCL = "NCCL would"
NVSHMEM = "NVSHMEM or DeepEP would"
MPI = "MPI would"
TORCH = "PyTorch, Triton or a JIT compiler"
TORCH_NCCL_DUMP = "PyTorch would dump NCCL traces as root"
HUB = "the model hub client"
CREDENTIAL = "it is a credential"
PROXY = "a proxy or trust store"
RAY = "Ray would"

#: The groups a site's plain ``allow`` may open: they load nothing and redirect no trust.
NOT_FLOOR = frozenset({ALLOCATOR})

_CREDENTIAL = (
    "a credential in a profile is published with the profile; keys reach engines by the secret channel only"
)
_PROXY = "every download goes through a proxy the profile's author runs"
_TRUST = "TLS would trust a CA the profile's author controls, so any download can be swapped"
_REMOTE_CODE = "turns on running code shipped in a model repository, around the --trust-remote-code refusal"
_WRITES = "a root process writes files where it names"
_KERNEL_CACHE = "compiled kernels (code) are loaded from the cache it names"

#: (exact name, group, why it is denied)
EXACT: tuple[tuple[str, str, str], ...] = (
    # the dynamic loader and libc
    ("LIBPATH", LOADER, "AIX's library search path: libraries are loaded from the directories it names"),
    ("SHLIB_PATH", LOADER, "HP-UX's library search path: libraries are loaded from the directories it names"),
    ("GLIBC_TUNABLES", LOADER, "ld.so parses it in every process (CVE-2023-4911 gave root through it)"),
    ("GCONV_PATH", LOADER, "iconv loads conversion modules (shared objects) from the directory it names"),
    ("GETCONF_DIR", LOADER, "getconf runs helper programs from the directory it names"),
    ("LOCPATH", LOADER, "libc reads locale data, parsed in every process, from the directory it names"),
    ("NLSPATH", LOADER, "catopen reads message catalogs, format strings included, from the files it names"),
    ("PATH_LOCALE", LOADER, "BSD libc reads locale data from the directory it names"),
    ("TZDIR", LOADER, "libc reads time zone files from the directory it names"),
    ("HOSTALIASES", LOADER, "the resolver maps names through a file it names: the leader resolves elsewhere"),
    ("LOCALDOMAIN", LOADER, "the resolver's search domain: short host names resolve elsewhere"),
    ("RES_OPTIONS", LOADER, "overrides resolver options, changing where names resolve"),
    ("RESOLV_HOST_CONF", LOADER, "the resolver reads a host.conf it names"),
    ("NIS_PATH", LOADER, "NIS+ lookups go through the tables it names"),
    ("TZ", LOADER, "a ':'-prefixed value makes libc read any file as a time zone"),
    # glibc's numeric allocator tunables: load nothing, so not a floor, but not open by default
    ("MALLOC_ARENA_MAX", ALLOCATOR, "allocator tuning outside every open namespace; a site may open it"),
    ("MALLOC_ARENA_TEST", ALLOCATOR, "allocator tuning outside every open namespace; a site may open it"),
    ("MALLOC_MMAP_MAX_", ALLOCATOR, "allocator tuning outside every open namespace; a site may open it"),
    ("MALLOC_MMAP_THRESHOLD_", ALLOCATOR, "allocator tuning outside every open namespace; a site may open it"),
    ("MALLOC_TOP_PAD_", ALLOCATOR, "allocator tuning outside every open namespace; a site may open it"),
    ("MALLOC_TRIM_THRESHOLD_", ALLOCATOR, "allocator tuning outside every open namespace; a site may open it"),
    # OpenMP tools (OMP_ is an open namespace, so each is named)
    ("OMP_TOOL", OPENMP, "turns on loading OpenMP tool libraries into the process"),
    ("OMP_TOOL_LIBRARIES", OPENMP, "the OpenMP runtime loads the tool libraries it lists"),
    ("OMP_TOOL_VERBOSE_INIT", OPENMP, "the OpenMP runtime writes its tool log, as root, to the file it names"),
    # PyTorch's NCCL watchdog (TORCH_NCCL_ is an open namespace, so it is named)
    ("TORCH_NCCL_DUMP_ON_TIMEOUT", TORCH_NCCL_DUMP, "root dumps NCCL traces to a predictable /tmp file a local user can link"),
    # shells and other interpreters
    ("BASH_ENV", SHELL, "bash sources the file it names before every non-interactive script"),
    ("ENV", SHELL, "sh (and bash in POSIX mode) sources the file it names"),
    ("SHELLOPTS", SHELL, "bash turns on the options it lists (xtrace, …) in every child shell"),
    ("BASHOPTS", SHELL, "bash turns on the shopt options it lists in every child shell"),
    ("PS4", SHELL, "bash expands it, command substitution included, for every traced line"),
    ("IFS", SHELL, "changes how every shell script the engine runs splits words"),
    ("CDPATH", SHELL, "cd in a script lands in a directory of the author's choice"),
    ("GLOBIGNORE", SHELL, "changes which files a script's globs match"),
    ("PROMPT_COMMAND", SHELL, "bash runs it as a command"),
    ("FPATH", SHELL, "ksh and zsh autoload functions from the directories it names"),
    ("ZDOTDIR", SHELL, "zsh reads its start-up files from the directory it names"),
    ("NULLCMD", SHELL, "zsh runs the command it names for a bare redirection"),
    ("READNULLCMD", SHELL, "zsh runs the command it names for a bare input redirection"),
    ("TMPPREFIX", SHELL, "zsh creates its temporary files under the prefix it names"),
    ("NODE_OPTIONS", SHELL, "Node.js takes --require from it: code loaded into every node process"),
    ("NODE_PATH", SHELL, "Node.js resolves modules from the directories it names"),
    ("JAVA_TOOL_OPTIONS", SHELL, "every JVM takes -javaagent from it: code loaded into every java process"),
    ("_JAVA_OPTIONS", SHELL, "HotSpot takes options from it, -javaagent included"),
    ("JDK_JAVA_OPTIONS", SHELL, "the java launcher takes options from it, -javaagent included"),
    ("CLASSPATH", SHELL, "the JVM loads classes from the places it names"),
    ("BROWSER", SHELL, "webbrowser and similar helpers run the program it names"),
    ("EDITOR", SHELL, "tools that open an editor run the program it names"),
    ("VISUAL", SHELL, "tools that open an editor run the program it names"),
    ("PAGER", SHELL, "tools that page output (git, man, pydoc) run the program it names"),
    ("TERMPATH", SHELL, "termcap entries are read from the files it names"),
    ("TERMCAP", SHELL, "a termcap entry, or the file holding it, parsed by curses"),
    # CUDA
    ("CUDA_INJECTION64_PATH", CUDA, "CUDA loads the library it names into every process that initialises it"),
    ("CUDA_INJECTION32_PATH", CUDA, "CUDA loads the library it names (32-bit processes)"),
    ("NVTX_INJECTION64_PATH", CUDA, "NVTX loads the tool library it names at the first range"),
    ("NVTX_INJECTION32_PATH", CUDA, "NVTX loads the tool library it names (32-bit processes)"),
    ("CUDA_HOME", CUDA, "extension and JIT builds run nvcc from the toolkit it names"),
    ("CUDA_PATH", CUDA, "the toolkit, nvcc included, is taken from the directory it names"),
    ("CUDA_ROOT", CUDA, "the toolkit, nvcc included, is taken from the directory it names"),
    ("CUDACXX", CUDA, "JIT builds run the CUDA compiler it names"),
    ("NVCC_CCBIN", CUDA, "nvcc runs the host compiler it names"),
    ("NVCC_PREPEND_FLAGS", CUDA, "nvcc takes flags from it, -ccbin (the compiler to run) included"),
    ("NVCC_APPEND_FLAGS", CUDA, "nvcc takes flags from it, -ccbin (the compiler to run) included"),
    ("CUDA_CACHE_PATH", CUDA, "the driver loads JIT-compiled kernels from the cache it names"),
    ("CUDA_MPS_PIPE_DIRECTORY", CUDA, "the process joins whatever MPS server listens in the directory it names"),
    ("CUDA_MPS_LOG_DIRECTORY", CUDA, "MPS writes its logs where it names"),
    # NCCL and the transports beside it
    ("NCCL_NET_PLUGIN", NCCL, "NCCL loads the network plugin library it names"),
    ("NCCL_TUNER_PLUGIN", NCCL, "NCCL loads the tuner plugin library it names"),
    ("NCCL_PROFILER_PLUGIN", NCCL, "NCCL loads the profiler plugin library it names"),
    ("NCCL_ENV_PLUGIN", NCCL, "NCCL loads the env plugin library it names, which sets every NCCL variable"),
    ("NCCL_GIN_PLUGIN", NCCL, "NCCL loads the GIN plugin library it names"),
    ("NCCL_RMA_PLUGIN", NCCL, "NCCL loads the RMA plugin library it names"),
    ("NCCL_IBVERBS_LIB", NCCL, "NCCL dlopens the verbs library it names"),
    ("NCCL_CONF_FILE", NCCL, "NCCL reads NCCL_* settings, refused ones included, from the file it names"),
    ("NCCL_DEBUG_FILE", NCCL, "NCCL writes its debug log, as root, to the file it names"),
    ("NCCL_TOPO_FILE", NCCL, "NCCL reads the node's topology from it: traffic routed over the wrong NIC"),
    ("NCCL_TOPO_DUMP_FILE", NCCL, "NCCL writes the topology, as root, to the file it names"),
    ("NCCL_GRAPH_FILE", NCCL, "NCCL reads its communication graphs from the file it names"),
    ("NCCL_GRAPH_DUMP_FILE", NCCL, "NCCL writes its graphs, as root, to the file it names"),
    ("NCCL_COMM_ID", NCCL, "the rendezvous address: the ranks join a communicator at a host the author picks"),
    ("NCCL_RAS_ADDR", NCCL, "NCCL's RAS service listens on the address it names"),
    ("UCX_MODULE_DIR", NCCL, "UCX loads transport modules from the directory it names"),
    ("NVSHMEM_BOOTSTRAP_PLUGIN", NCCL, "NVSHMEM loads the bootstrap plugin library it names"),
    ("NIXL_PLUGIN_DIR", NCCL, "NIXL loads transfer backends from the directory it names"),
    # NVSHMEM and DeepEP, which expert parallel across nodes runs on
    *(
        (f"NVSHMEM_BOOTSTRAP_{kind}_PLUGIN", NVSHMEM, f"NVSHMEM loads its {kind} bootstrap plugin from the path it names")
        for kind in ("MPI", "SHMEM", "PMI", "PMI2", "PMIX", "UID")
    ),
    ("NVSHMEM_CUDA_PATH", NVSHMEM, "NVSHMEM loads libcuda.so from the directory it names"),
    ("NVSHMEM_DEBUG_FILE", NVSHMEM, "NVSHMEM writes its debug log to the file it names"),
    ("EP_JIT_NVCC_COMPILER", NVSHMEM, "DeepEP compiles its kernels with the program it names"),
    ("EP_JIT_CACHE_DIR", NVSHMEM, "DeepEP loads compiled kernels from the directory it names"),
    ("EP_NCCL_ROOT_DIR", NVSHMEM, "DeepEP builds against and loads the NCCL it names"),
    ("EP_NVSHMEM_ROOT_DIR", NVSHMEM, "DeepEP builds against and loads the NVSHMEM it names"),
    # PyTorch, Triton and the compilers they run
    ("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", TORCH, "torch.load unpickles checkpoints fully: a model file runs code"),
    ("TORCHINDUCTOR_CACHE_DIR", TORCH, _KERNEL_CACHE),
    ("TORCH_EXTENSIONS_DIR", TORCH, "C++ extensions are built in and loaded from the directory it names"),
    ("TORCH_HOME", TORCH, "torch.hub loads models and their code from the directory it names"),
    ("PYTORCH_KERNEL_CACHE_PATH", TORCH, _KERNEL_CACHE),
    ("TORCH_COMPILE_DEBUG_DIR", TORCH, _WRITES),
    ("PTXAS_OPTIONS", TORCH, "ptxas takes flags from it when Triton compiles"),
    ("CC", TORCH, "JIT builds run the C compiler it names"),
    ("CXX", TORCH, "JIT builds run the C++ compiler it names"),
    ("CFLAGS", TORCH, "compiler flags: -wrapper, -B or -fplugin make the compiler run a program"),
    ("CXXFLAGS", TORCH, "compiler flags: -wrapper, -B or -fplugin make the compiler run a program"),
    ("CPPFLAGS", TORCH, "preprocessor flags: -include pulls a file of the author's choice into a build"),
    ("LDFLAGS", TORCH, "linker flags: libraries of the author's choice linked into a kernel"),
    ("CPATH", TORCH, "JIT builds take headers from the directories it names"),
    ("C_INCLUDE_PATH", TORCH, "JIT builds take C headers from the directories it names"),
    ("CPLUS_INCLUDE_PATH", TORCH, "JIT builds take C++ headers from the directories it names"),
    ("LIBRARY_PATH", TORCH, "JIT builds link libraries from the directories it names"),
    ("COMPILER_PATH", TORCH, "gcc runs its subprograms (cc1, as, ld) from the directories it names"),
    ("GCC_EXEC_PREFIX", TORCH, "gcc runs its subprograms from the prefix it names"),
    ("DG_JIT_NVCC_COMPILER", TORCH, "DeepGEMM's JIT runs the nvcc it names"),
    ("DG_JIT_CACHE_DIR", TORCH, _KERNEL_CACHE),
    # the model hub
    ("HF_ENDPOINT", HUB, "models and their code are downloaded from a hub server the author runs"),
    ("HF_HOME", HUB, "models, code and the token are read from the directory it names"),
    ("HF_HUB_CACHE", HUB, "models, remote code included, are loaded from the cache it names"),
    ("HUGGINGFACE_HUB_CACHE", HUB, "models, remote code included, are loaded from the cache it names"),
    ("TRANSFORMERS_CACHE", HUB, "models, remote code included, are loaded from the cache it names"),
    ("HF_MODULES_CACHE", HUB, "remote code is imported from the modules cache it names"),
    ("TRUST_REMOTE_CODE", HUB, _REMOTE_CODE),
    ("HF_TRUST_REMOTE_CODE", HUB, _REMOTE_CODE),
    ("HF_DATASETS_TRUST_REMOTE_CODE", HUB, _REMOTE_CODE),
    ("MLX_LM_TRUST_REMOTE_CODE", HUB, _REMOTE_CODE),
    # credentials
    ("HF_TOKEN", CREDENTIAL, _CREDENTIAL),
    ("HUGGING_FACE_HUB_TOKEN", CREDENTIAL, _CREDENTIAL),
    ("HF_TOKEN_PATH", CREDENTIAL, "the hub token is read from the file it names"),
    ("S3_ACCESS_KEY_ID", CREDENTIAL, _CREDENTIAL),
    ("S3_SECRET_ACCESS_KEY", CREDENTIAL, _CREDENTIAL),
    ("S3_ENDPOINT_URL", CREDENTIAL, "the node's S3 credentials are sent to the endpoint it names"),
    # proxies and trust stores
    ("HTTP_PROXY", PROXY, _PROXY),
    ("HTTPS_PROXY", PROXY, _PROXY),
    ("ALL_PROXY", PROXY, _PROXY),
    ("NO_PROXY", PROXY, "traffic the site sends through its proxy goes direct instead"),
    ("SSL_CERT_FILE", PROXY, _TRUST),
    ("SSL_CERT_DIR", PROXY, _TRUST),
    ("REQUESTS_CA_BUNDLE", PROXY, _TRUST),
    ("CURL_CA_BUNDLE", PROXY, _TRUST),
    ("OPENSSL_CONF", PROXY, "OpenSSL reads a config that can load engines and providers (shared objects)"),
    ("OPENSSL_CONF_INCLUDE", PROXY, "OpenSSL includes config files, engines and providers, from where it names"),
    ("OPENSSL_ENGINES", PROXY, "OpenSSL loads engines (shared objects) from the directory it names"),
    ("OPENSSL_MODULES", PROXY, "OpenSSL 3 loads providers (shared objects) from the directory it names"),
    ("NETRC", PROXY, "download credentials are read from the file it names"),
)  # fmt: skip

#: (prefix, an example name under it, group, why it is denied)
PREFIXES: tuple[tuple[str, str, str, str], ...] = (
    ("LD_", "LD_PRELOAD", LOADER, "the loader preloads the library it names into the root process"),
    ("LD_", "LD_LIBRARY_PATH", LOADER, "the loader takes every library from the directories it names first"),
    ("LD_", "LD_AUDIT", LOADER, "the loader runs the audit library it names"),
    ("_RLD", "_RLD_LIST", LOADER, "IRIX and Tru64's runtime linker preloads the libraries it names"),
    ("DYLD_", "DYLD_INSERT_LIBRARIES", LOADER, "dyld inserts the libraries it names"),
    ("LDR_", "LDR_PRELOAD", LOADER, "AIX's loader preloads the libraries it names"),
    ("MALLOC_", "MALLOC_TRACE", LOADER, "glibc's malloc writes a trace to the file it names"),
    ("BASH_FUNC_", "BASH_FUNC_ls", SHELL, "bash imports a function from it: a command replaced by the author's code"),
    ("__BASH_FUNC", "__BASH_FUNC_ls", SHELL, "patched bash's spelling of an exported function"),
    ("PERL", "PERL5OPT", SHELL, "perl takes -M (load a module) from it"),
    ("PERL", "PERL5LIB", SHELL, "perl loads modules from the directories it names"),
    ("RUBY", "RUBYOPT", SHELL, "ruby takes -r (require a file) from it"),
    ("GIT_", "GIT_SSH_COMMAND", SHELL, "git runs the program it names to fetch"),
    ("GIT_", "GIT_CONFIG_GLOBAL", SHELL, "git reads a config, core.fsmonitor (a program) included, from the file it names"),
    ("TERMINFO", "TERMINFO_DIRS", SHELL, "curses reads terminal descriptions from the directories it names"),
    ("KRB5", "KRB5_CONFIG", SHELL, "Kerberos reads its configuration, plugins included, from the file it names"),
    ("PYTHON", "PYTHONPATH", PYTHON, "Python imports modules from the directories it names first"),
    ("PYTHON", "PYTHONSTARTUP", PYTHON, "Python runs the file it names"),
    ("PYTHON", "PYTHONWARNINGS", PYTHON, "Python imports the warning categories it names"),
    ("PYTHON", "PYTHONBREAKPOINT", PYTHON, "breakpoint() imports and calls what it names"),
    ("PYTHON", "PYTHONHOME", PYTHON, "Python takes its standard library from the directory it names"),
    ("PYTHON", "PYTHONINSPECT", PYTHON, "Python drops into an interactive prompt on the server's stdin"),
    ("OMPI_MCA_", "OMPI_MCA_plm_rsh_agent", MPI, "Open MPI runs the command it names to start daemons"),
    ("PRTE_MCA_", "PRTE_MCA_plm_ssh_agent", MPI, "PRRTE runs the command it names to start daemons"),
    ("PMIX_MCA_", "PMIX_MCA_mca_base_component_path", MPI, "PMIx loads components from the paths it names"),
    ("OMPI_", "OMPI_ALLOW_RUN_AS_ROOT", MPI, "Open MPI's own switches, running everything as root among them"),
    ("TRITON_", "TRITON_CACHE_MANAGER", TORCH, "Triton imports the cache manager class it names"),
    ("TRITON_", "TRITON_LIBCUDA_PATH", TORCH, "Triton loads libcuda from the path it names"),
    ("AWS_", "AWS_SECRET_ACCESS_KEY", CREDENTIAL, _CREDENTIAL),
    ("AWS_", "AWS_SESSION_TOKEN", CREDENTIAL, _CREDENTIAL),
    ("AWS_", "AWS_PROFILE", CREDENTIAL, "picks which of the node's cloud credentials a client uses"),
    ("AWS_", "AWS_ENDPOINT_URL", CREDENTIAL, "the node's cloud credentials are sent to the endpoint it names"),
    # Ray: the cluster runtime several engines span nodes with, so the core's
    ("RAY_", "RAY_RUNTIME_ENV_HOOK", RAY, "Ray imports and calls the hook it names"),
    ("RAY_", "RAY_ADDRESS", RAY, "the server joins the Ray cluster it names instead of its own"),
)  # fmt: skip

#: (suffix, an example name ending so, group, why it is denied). A suffix applies in every
#: namespace, open ones included: a credential is a credential whatever reads it.
SUFFIXES: tuple[tuple[str, str, str, str], ...] = (
    ("_TOKEN", "NCCL_HUB_TOKEN", CREDENTIAL, _CREDENTIAL),
    ("_API_KEY", "MKL_SEARCH_API_KEY", CREDENTIAL, _CREDENTIAL),
    ("_SECRET", "OMP_WEBHOOK_SECRET", CREDENTIAL, _CREDENTIAL),
    ("_SECRET_KEY", "KMP_S3_SECRET_KEY", CREDENTIAL, _CREDENTIAL),
    ("_ACCESS_KEY", "NCCL_CLOUD_ACCESS_KEY", CREDENTIAL, _CREDENTIAL),
    ("_ACCESS_KEY_ID", "NCCL_STORE_ACCESS_KEY_ID", CREDENTIAL, _CREDENTIAL),
    ("_PRIVATE_KEY", "TORCH_NCCL_SIGNING_PRIVATE_KEY", CREDENTIAL, _CREDENTIAL),
    ("_HMAC_KEY", "MKL_ROUTER_HMAC_KEY", CREDENTIAL, _CREDENTIAL),
    ("_PASSWORD", "NCCL_REDIS_PASSWORD", CREDENTIAL, _CREDENTIAL),
    ("_PASSWD", "OMP_DB_PASSWD", CREDENTIAL, _CREDENTIAL),
    ("_CREDENTIALS", "KMP_GCS_CREDENTIALS", CREDENTIAL, _CREDENTIAL),
)  # fmt: skip


def _verdict_says(name: str, group: str) -> tuple[bool, str]:
    bad, why = unsafe_env(name)
    return bad and why.startswith("denied: ") and group in why, why


@pytest.mark.parametrize(("name", "group", "reason"), EXACT, ids=[row[0] for row in EXACT])
def test_every_denied_name_is_refused_for_its_reason(name: str, group: str, reason: str) -> None:
    for spelling in (name, name.lower()):
        ok, why = _verdict_says(spelling, group)
        assert ok, (
            f"{spelling} is no longer on the deny list ({group}…): {reason}. "
            f"It is now judged {why or 'acceptable'!r}, which a site's allow list or a namespace can open."
        )


@pytest.mark.parametrize(
    ("prefix", "example", "group", "reason"), PREFIXES, ids=[f"{row[0]}:{row[1]}" for row in PREFIXES]
)
def test_every_denied_prefix_is_refused_for_its_reason(
    prefix: str, example: str, group: str, reason: str
) -> None:
    assert example.upper().startswith(prefix.upper())
    for spelling in (example, example.lower()):
        ok, why = _verdict_says(spelling, group)
        assert ok, (
            f"{spelling} (under {prefix}*) is no longer on the deny list ({group}…): {reason}. "
            f"It is now judged {why or 'acceptable'!r}."
        )


@pytest.mark.parametrize(
    ("suffix", "example", "group", "reason"), SUFFIXES, ids=[f"*{row[0]}:{row[1]}" for row in SUFFIXES]
)
def test_every_denied_suffix_is_refused_for_its_reason(
    suffix: str, example: str, group: str, reason: str
) -> None:
    assert example.upper().endswith(suffix.upper())
    assert unsafe_env(example.replace(suffix, "_LEVEL"))[0] is False, (
        "the example must be in an open namespace"
    )
    for spelling in (example, example.lower()):
        ok, why = _verdict_says(spelling, group)
        assert ok, (
            f"{spelling} (*{suffix}) is no longer on the deny list ({group}…): {reason}. "
            f"It is now judged {why or 'acceptable'!r}."
        )


def _rows() -> list[tuple[str, str, str]]:
    """(a name, its group, why) for every row: exact names, and an example per prefix and suffix."""
    return [
        *EXACT,
        *((example, group, reason) for _, example, group, reason in PREFIXES),
        *((example, group, reason) for _, example, group, reason in SUFFIXES),
    ]


@pytest.mark.parametrize(("name", "group", "reason"), _rows(), ids=[row[0] for row in _rows()])
def test_a_sites_allow_list_cannot_open_a_floor_entry(name: str, group: str, reason: str) -> None:
    # ``allow`` is for tuning a site vouches for; what loads code, redirects trust or
    # carries a credential needs ``allow_unsafe`` with a reason, said in every plan.
    bad, why = EnvPolicy(allow={name}).unsafe_env(name)
    if group in NOT_FLOOR:
        assert (bad, why) == (False, ""), f"{name} is not a floor entry: a site's allow list opens it"
    else:
        assert bad, f"a site's allow list opened {name}, which is a floor entry: {reason}"
        assert group in why, why


def _listed() -> tuple[dict[str, str], dict[str, str], dict[str, str]]:
    exact = {name.upper(): group.why for group in DENY_GROUPS for name in group.names}
    prefixes = {prefix.upper(): group.why for group in DENY_GROUPS for prefix in group.prefixes}
    suffixes = {suffix.upper(): group.why for group in DENY_GROUPS for suffix in group.suffixes}
    return exact, prefixes, suffixes


@pytest.mark.parametrize(("name", "group", "reason"), EXACT, ids=[row[0] for row in EXACT])
def test_every_denied_name_is_still_listed(name: str, group: str, reason: str) -> None:
    exact, prefixes, _ = _listed()
    # A broader prefix may replace an exact entry; nothing else may.
    covered = name in exact or any(name.startswith(prefix) for prefix in prefixes)
    assert covered, f"{name} was removed from the deny list: {reason}"


@pytest.mark.parametrize("prefix", sorted({row[0] for row in PREFIXES}))
def test_every_denied_prefix_is_still_listed(prefix: str) -> None:
    _, prefixes, _ = _listed()
    reasons = "; ".join(row[3] for row in PREFIXES if row[0] == prefix)
    assert any(prefix.startswith(listed) for listed in prefixes), (
        f"the prefix {prefix}* was removed from the deny list: {reasons}"
    )


@pytest.mark.parametrize("suffix", sorted({row[0] for row in SUFFIXES}))
def test_every_denied_suffix_is_still_listed(suffix: str) -> None:
    _, _, suffixes = _listed()
    reasons = "; ".join(row[3] for row in SUFFIXES if row[0] == suffix)
    assert suffix in suffixes, f"the suffix *{suffix} was removed from the deny list: {reasons}"


def test_every_deny_list_entry_has_a_row_with_its_reason_here() -> None:
    exact, prefixes, suffixes = _listed()
    mine = {row[0] for row in EXACT}
    my_prefixes = {row[0] for row in PREFIXES}
    my_suffixes = {row[0] for row in SUFFIXES}
    missing = (
        sorted(set(exact) - mine)
        + sorted(f"{p}*" for p in set(prefixes) - my_prefixes)
        + sorted(f"*{s}" for s in set(suffixes) - my_suffixes)
    )
    assert not missing, f"deny-list entries without a row (and a reason) in this file: {missing}"
