"""The environment safety policy: which profile variables may reach an engine, and why not.

The tables here are engine-neutral (the loader, interpreters, credentials, proxies, CUDA
and NCCL placement); each engine adds its own through :class:`enginekit.policy.engine.EnginePolicy`.

Engines start as root on the node, and no loader or interpreter protection applies to a
process that is merely started by root (that only covers setuid programs). A profile's
``env`` comes from the control plane, so every key and value is judged here, when the
profile is validated and again when the commands are built, against the rules as they are
at that moment. A name goes through these layers, in order:

1. strict syntax: ASCII letters, digits and ``_``, not starting with a digit, at most
   :data:`MAX_KEY_LENGTH` characters;
2. reserved keys (:data:`RESERVED`, :data:`RESERVED_PREFIXES`, and the engine's own
   ``reserved_env`` and ``secret_env``): set only from the shard spec, by enginekit or by
   the engine; nothing a site writes can open them;
3. the site's own ``deny``/``deny_prefixes``;
4. the deny list (the engine's ``denied_env``, then :data:`DENY_GROUPS`), compared
   case-insensitively, because some consumers read lower-case spellings (``http_proxy``).
   Most groups are a **floor**: they load code, redirect trust or carry credentials, so
   the site's ``allow`` list cannot open them; only an ``allow_unsafe`` entry that names
   the key and gives a reason can, and every plan that relies on one says so
   (:meth:`EnvPolicy.unsafe_allowances`);
5. the site's ``allow`` list, for anything that is not in a floor group;
6. the open namespaces (:data:`OPEN_NAMESPACES`, the engine's ``open_env`` and the site's
   ``allow_prefixes``):
   anything else is refused as unknown;
7. a suffix heuristic (:data:`RISKY_SUFFIXES`) for unknown names that point at a file,
   directory, module or program. ``*_CONF`` names are the exception: in this field a
   ``_CONF`` variable is usually a tuning string (``PYTORCH_CUDA_ALLOC_CONF=
   expandable_segments:True``), so the name is accepted and its *value* is judged instead.

Then the value, for every key, allowed ones included: a string; none of the characters
of :data:`enginekit.base.text.UNSAFE_CHARACTERS` (NUL, controls, bidirectional overrides, line
separators, lone surrogates); not an exported shell function (``() …``); at most
:data:`MAX_VALUE_LENGTH` bytes; no ``/`` or ``%`` unless the site lists the key in
``path_keys``. The value of a ``*_CONF`` key must be a tuning string:

- nothing path-like: no ``/``, ``%``, ``~`` and no ``..``;
- nothing file-like: no dot followed by a letter or ``_`` (``site.conf``, ``x.yaml``,
  ``.hidden``, ``pkg.module``), while numbers such as ``0.6`` stay fine;
- only the characters tuning syntax uses: letters, digits, space and ``_ . , : = + - [ ] >``.

A site that really means a file there lists the key in ``path_keys`` *and* opens it
explicitly (``allow``, or ``allow_unsafe`` for a floor key); the usual value rules then
apply. A bare word (``FOO_CONF=native``) is a tuning string: it holds no directory, and
the engine's working directory is chosen by enginekit, not by the profile.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping
from typing import NamedTuple

import attrs

from enginekit.base.text import unsafe_text
from enginekit.policy.engine import EnginePolicy, EnvAlias, EnvDeny

_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
MAX_KEY_LENGTH = 256
MAX_VALUE_LENGTH = 4096

#: Set only from the shard spec or by the library: overriding them breaks isolation
#: (wrong GPUs, wrong NIC, wrong rendezvous) or leaks a key, rather than tuning.
RESERVED: frozenset[str] = frozenset(
    """
    CUDA_VISIBLE_DEVICES CUDA_DEVICE_ORDER NVIDIA_VISIBLE_DEVICES NVIDIA_DRIVER_CAPABILITIES
    HIP_VISIBLE_DEVICES ROCR_VISIBLE_DEVICES NCCL_SOCKET_IFNAME NCCL_IB_HCA
    NCCL_OOB_NET_IFNAME GLOO_SOCKET_IFNAME NCCL_IB_GID_INDEX UCX_NET_DEVICES UCX_IB_GID_INDEX
    MASTER_ADDR MASTER_PORT RANK WORLD_SIZE LOCAL_RANK LOCAL_WORLD_SIZE PATH
    HOME USER LOGNAME SHELL TMPDIR XDG_CACHE_HOME XDG_CONFIG_HOME XDG_RUNTIME_DIR
    """.split()
)
#: Everything under these belongs to enginekit itself (its launchers' secret channels).
RESERVED_PREFIXES: tuple[str, ...] = ("ENGINEKIT_",)


#: The credentials group: the one floor group an engine's own key variable falls in.
CREDENTIALS = EnvDeny(
    "it is a credential, or picks the credentials or endpoint a cloud client uses: "
    "credentials reach engines through the secret channel only",
    "HF_TOKEN HUGGING_FACE_HUB_TOKEN HF_TOKEN_PATH S3_ACCESS_KEY_ID S3_SECRET_ACCESS_KEY S3_ENDPOINT_URL",
    "AWS_",
    "_TOKEN _API_KEY _SECRET _SECRET_KEY _ACCESS_KEY _ACCESS_KEY_ID _PRIVATE_KEY _HMAC_KEY "
    "_PASSWORD _PASSWD _CREDENTIALS",
)

#: The deny list, by what a profile author would gain. Compared case-insensitively; an
#: exact name wins over a prefix, and a prefix over a suffix. Groups are a floor unless
#: marked otherwise: when in doubt, a group that loads code, redirects trust or carries a
#: credential is a floor.
DENY_GROUPS: tuple[EnvDeny, ...] = (
    EnvDeny(
        "the dynamic loader or libc would load code or data from it",
        "LIBPATH SHLIB_PATH GLIBC_TUNABLES GCONV_PATH GETCONF_DIR LOCPATH NLSPATH PATH_LOCALE "
        "TZDIR HOSTALIASES LOCALDOMAIN RES_OPTIONS RESOLV_HOST_CONF NIS_PATH TZ",
        "LD_ _RLD DYLD_ LDR_ MALLOC_",
    ),
    EnvDeny(
        # The numeric allocator tunables (the rest of MALLOC_ stays in the floor above):
        # they load nothing, so a site that wants them may open them with ``allow``.
        "glibc's allocator would take its tuning from it",
        "MALLOC_ARENA_MAX MALLOC_ARENA_TEST MALLOC_MMAP_MAX_ MALLOC_MMAP_THRESHOLD_ "
        "MALLOC_TOP_PAD_ MALLOC_TRIM_THRESHOLD_",
        floor=False,
    ),
    EnvDeny(
        "a shell or another interpreter would run code from it",
        "BASH_ENV ENV SHELLOPTS BASHOPTS PS4 IFS CDPATH GLOBIGNORE PROMPT_COMMAND FPATH ZDOTDIR "
        "NULLCMD READNULLCMD TMPPREFIX NODE_OPTIONS NODE_PATH JAVA_TOOL_OPTIONS _JAVA_OPTIONS "
        "JDK_JAVA_OPTIONS CLASSPATH BROWSER EDITOR VISUAL PAGER TERMPATH TERMCAP",
        "BASH_FUNC_ __BASH_FUNC PERL RUBY GIT_ TERMINFO KRB5",
    ),
    EnvDeny("the Python interpreter would import or run code from it", prefixes="PYTHON"),
    EnvDeny(
        # OMP_ is an open namespace: these must be named one by one.
        "the OpenMP runtime would load the tool libraries named by it, or write its tool log "
        "to a file named by it",
        "OMP_TOOL OMP_TOOL_LIBRARIES OMP_TOOL_VERBOSE_INIT",
    ),
    EnvDeny(
        # TORCH_NCCL_ is an open namespace: this one must be named.
        "PyTorch would dump NCCL traces as root to a fixed, predictable file under /tmp, where "
        "another local user can plant a link",
        "TORCH_NCCL_DUMP_ON_TIMEOUT",
    ),
    EnvDeny(
        "CUDA or its compilers would load a library or run a program named by it",
        "CUDA_INJECTION64_PATH CUDA_INJECTION32_PATH NVTX_INJECTION64_PATH NVTX_INJECTION32_PATH "
        "CUDA_HOME CUDA_PATH CUDA_ROOT CUDACXX NVCC_CCBIN NVCC_PREPEND_FLAGS NVCC_APPEND_FLAGS "
        "CUDA_CACHE_PATH CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY",
    ),
    EnvDeny(
        "NCCL would load a plugin, read a config file, write a file or rendezvous elsewhere",
        "NCCL_NET_PLUGIN NCCL_TUNER_PLUGIN NCCL_PROFILER_PLUGIN NCCL_ENV_PLUGIN NCCL_GIN_PLUGIN "
        "NCCL_RMA_PLUGIN NCCL_IBVERBS_LIB NCCL_CONF_FILE NCCL_DEBUG_FILE NCCL_TOPO_FILE "
        "NCCL_TOPO_DUMP_FILE NCCL_GRAPH_FILE NCCL_GRAPH_DUMP_FILE NCCL_COMM_ID NCCL_RAS_ADDR "
        "UCX_MODULE_DIR NVSHMEM_BOOTSTRAP_PLUGIN NIXL_PLUGIN_DIR",
    ),
    EnvDeny(
        # NVSHMEM_ and EP_ are namespaces a site may open for expert parallel's tuning:
        # these must be named one by one.
        "NVSHMEM or DeepEP would load a bootstrap plugin, the CUDA driver, a compiler or "
        "kernels from a place named by it, or write a debug file there",
        "NVSHMEM_BOOTSTRAP_MPI_PLUGIN NVSHMEM_BOOTSTRAP_SHMEM_PLUGIN NVSHMEM_BOOTSTRAP_PMI_PLUGIN "
        "NVSHMEM_BOOTSTRAP_PMI2_PLUGIN NVSHMEM_BOOTSTRAP_PMIX_PLUGIN NVSHMEM_BOOTSTRAP_UID_PLUGIN "
        "NVSHMEM_CUDA_PATH NVSHMEM_DEBUG_FILE EP_JIT_NVCC_COMPILER EP_JIT_CACHE_DIR "
        "EP_NCCL_ROOT_DIR EP_NVSHMEM_ROOT_DIR",
    ),
    EnvDeny(
        "MPI would take any MCA parameter from it, including the command that starts daemons",
        prefixes="OMPI_MCA_ PRTE_MCA_ PMIX_MCA_ OMPI_",
    ),
    EnvDeny(
        "PyTorch, Triton or a JIT compiler would load code or kernels chosen by it",
        "TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD TORCHINDUCTOR_CACHE_DIR TORCH_EXTENSIONS_DIR TORCH_HOME "
        "PYTORCH_KERNEL_CACHE_PATH TORCH_COMPILE_DEBUG_DIR PTXAS_OPTIONS CC CXX CFLAGS CXXFLAGS "
        "CPPFLAGS LDFLAGS CPATH C_INCLUDE_PATH CPLUS_INCLUDE_PATH LIBRARY_PATH COMPILER_PATH "
        "GCC_EXEC_PREFIX DG_JIT_NVCC_COMPILER DG_JIT_CACHE_DIR",
        "TRITON_",
    ),
    EnvDeny(
        "the model hub client would fetch or import from a place chosen by it",
        "HF_ENDPOINT HF_HOME HF_HUB_CACHE HUGGINGFACE_HUB_CACHE TRANSFORMERS_CACHE HF_MODULES_CACHE "
        "TRUST_REMOTE_CODE HF_TRUST_REMOTE_CODE HF_DATASETS_TRUST_REMOTE_CODE MLX_LM_TRUST_REMOTE_CODE",
    ),
    CREDENTIALS,
    EnvDeny(
        "traffic would go through a proxy or trust store chosen by it",
        "HTTP_PROXY HTTPS_PROXY ALL_PROXY NO_PROXY SSL_CERT_FILE SSL_CERT_DIR REQUESTS_CA_BUNDLE "
        "CURL_CA_BUNDLE OPENSSL_CONF OPENSSL_CONF_INCLUDE OPENSSL_ENGINES OPENSSL_MODULES NETRC",
    ),
    # Ray is the cluster runtime more than one engine spans nodes with, not an engine.
    EnvDeny("Ray would import a hook or attach to another cluster named by it", prefixes="RAY_"),
)

#: The Python variables that change nothing about what code runs.
PYTHON_ALLOWED: frozenset[str] = frozenset(
    """
    PYTHONUNBUFFERED PYTHONHASHSEED PYTHONFAULTHANDLER PYTHONIOENCODING PYTHONUTF8
    PYTHONDONTWRITEBYTECODE PYTHONNOUSERSITE PYTHONSAFEPATH
    """.split()
)

#: The namespaces open to profiles for every engine; an engine opens its own
#: (:attr:`EnginePolicy.open_env`), and anything else is refused as unknown.
OPEN_NAMESPACES: tuple[str, ...] = (
    "NCCL_",
    "TORCH_NCCL_",
    "TORCH_DISTRIBUTED_DEBUG",
    "PYTORCH_CUDA_ALLOC_CONF",
    "CUDA_LAUNCH_BLOCKING",
    "CUDA_MODULE_LOADING",
    "OMP_",
    "MKL_",
    "KMP_",
    "TOKENIZERS_PARALLELISM",
    "HF_HUB_OFFLINE",
    "HF_HUB_ENABLE_HF_TRANSFER",
    "HF_HUB_DISABLE_",
)

#: Unknown names ending like this point at a file, a directory, a module or a program.
#: ``_CONF`` is judged by its value instead (see the module docstring).
RISKY_SUFFIXES: tuple[str, ...] = (
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
    "_CONF",
    "_CONFIG_PATH",
    "_TEMPLATE",
)

#: Names ending like this are usually a tuning string, not a file: their values decide.
_CONF_SUFFIX = "_CONF"
#: A ``*_CONF`` value that names a place: a directory, a ``%`` expansion, a home, a parent.
_PATH_LIKE = re.compile(r"[/%~]|\.\.")
#: A ``*_CONF`` value that names a file or a module: a dot followed by a letter or ``_``.
_FILE_LIKE = re.compile(r"\.[A-Za-z_]")
#: The characters tuning syntax uses (``expandable_segments:True,max_split_size_mb:512``,
#: ``roundup_power2_divisions:[256:1,>:8]``, ``garbage_collection_threshold:0.6``).
_TUNING = re.compile(r"[A-Za-z0-9_ .,:=+\-\[\]>]*\Z")


def _name_set(names: Iterable[str]) -> frozenset[str]:
    return frozenset(name.upper() for name in names)


def _name_tuple(names: Iterable[str]) -> tuple[str, ...]:
    return tuple(name.upper() for name in names)


def _reasons(entries: Mapping[str, str] | Iterable[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
    # Kept as sorted pairs so the policy stays hashable; a name given twice in two
    # spellings stays twice, for the validator to refuse.
    pairs = entries.items() if isinstance(entries, Mapping) else entries
    return tuple(sorted((key.upper(), reason) for key, reason in pairs))


def _portable(key: object) -> bool:
    return isinstance(key, str) and 0 < len(key) <= MAX_KEY_LENGTH and key.isascii() and bool(_KEY.match(key))


def _shown(key: object) -> str:
    # Names are echoed as they are; anything else is quoted and cut, never shown raw.
    if _portable(key) and len(str(key)) <= 64:
        return str(key)
    text = repr(key)
    return text[:40] + ("…" if len(text) > 40 else "")


#: Names that end like a credential but only switch one off.
_NOT_CREDENTIALS = frozenset({"HF_HUB_DISABLE_IMPLICIT_TOKEN"})


def _deny_group(groups: tuple[EnvDeny, ...], upper: str) -> EnvDeny | None:
    """The deny group ``upper`` falls in: exact names first, then prefixes, then suffixes.

    The engine's own groups come first in ``groups``, so an engine's more particular
    reason wins over the built-in one for the same name.
    """
    for group in groups:
        if upper in group.names:
            return group
    for group in groups:
        if upper.startswith(group.prefixes):
            return group
    if upper in _NOT_CREDENTIALS:
        return None
    for group in groups:
        if upper.endswith(group.suffixes):
            return group
    return None


class _Verdict(NamedTuple):
    bad: bool
    why: str
    #: The site's reason, when the name is accepted only because of ``allow_unsafe``.
    unsafe_reason: str = ""


_OK = _Verdict(False, "")


@attrs.frozen(cache_hash=True)
class EnvPolicy:
    """A site's env policy: the built-in rules plus the node config's additions.

    ``deny``/``deny_prefixes`` add entries. ``allow`` names variables the site accepts
    despite the unknown-namespace rule, the suffix heuristic and the deny groups that are
    not a floor; it never opens a floor group or a reserved key. ``allow_unsafe`` maps a
    name to the site's reason for accepting it although it is in a floor group (the
    loader, interpreters, code loading, credentials, trust…); it never opens a reserved
    key either, and every plan that relies on it says so (:meth:`unsafe_allowances`).
    ``allow_prefixes`` opens more namespaces (never a deny group); ``path_keys`` may hold
    ``/`` and ``%``. Names are compared case-insensitively. Opening a name never opens its
    value: the value rules apply to every key.
    """

    deny: frozenset[str] = attrs.field(default=frozenset(), converter=_name_set)
    deny_prefixes: tuple[str, ...] = attrs.field(default=(), converter=_name_tuple)
    allow: frozenset[str] = attrs.field(default=frozenset(), converter=_name_set)
    allow_prefixes: tuple[str, ...] = attrs.field(default=(), converter=_name_tuple)
    path_keys: frozenset[str] = attrs.field(default=frozenset(), converter=_name_set)
    #: ``(NAME, reason)`` pairs, sorted; given as a mapping of name to reason.
    allow_unsafe: tuple[tuple[str, str], ...] = attrs.field(default=(), converter=_reasons)
    #: The engine's own rules (:meth:`for_engine`): reserved and secret names, the
    #: namespaces it opens, the names it denies. Empty for the site's policy alone.
    engine_reserved: frozenset[str] = attrs.field(default=frozenset(), converter=_name_set)
    engine_open: tuple[str, ...] = attrs.field(default=(), converter=_name_tuple)
    engine_deny: tuple[EnvDeny, ...] = attrs.field(default=(), converter=tuple[EnvDeny, ...])
    #: Names the engine reads as others: each judged as its target too.
    engine_aliases: tuple[EnvAlias, ...] = attrs.field(default=(), converter=tuple[EnvAlias, ...])

    def for_engine(self, engine: EnginePolicy) -> EnvPolicy:
        """This site's policy with one engine's own rules added, for that engine's profiles."""
        return attrs.evolve(
            self,
            engine_reserved=engine.protected_env,
            engine_open=engine.open_env,
            engine_deny=engine.denied_env,
            engine_aliases=engine.env_aliases,
        )

    def read_as(self, key: str) -> tuple[str, EnvAlias] | None:
        """The name the engine reads ``key`` as, and the alias that says so; None when none does."""
        upper = key.upper()
        for alias in self.engine_aliases:
            target = alias.read_as(upper)
            if target is not None and target != upper:
                return target, alias
        return None

    @allow_unsafe.validator
    def _check_allow_unsafe(self, _: object, value: tuple[tuple[str, str], ...]) -> None:
        problems = self.allow_unsafe_problems(value)
        if problems:
            raise ValueError("; ".join(f"allow_unsafe.{key}: {why}" for key, why in problems))

    @staticmethod
    def allow_unsafe_problems(
        entries: Mapping[str, object] | Iterable[tuple[object, object]],
    ) -> list[tuple[str, str]]:
        """What is wrong with ``allow_unsafe`` entries, as ``(name as shown, why)``.

        Each name must be a portable variable name, given once (names are compared
        case-insensitively), and each reason a non-blank string that may reach a log line.
        """
        pairs = entries.items() if isinstance(entries, Mapping) else entries
        found: list[tuple[str, str]] = []
        seen: dict[str, str] = {}
        for key, reason in pairs:
            shown = _shown(key)
            if not _portable(key):
                found.append(
                    (shown, "not a portable name (letters, digits and _ only, not starting with a digit)")
                )
                continue
            upper = str(key).upper()
            if upper in seen:
                found.append((shown, f"same name as {seen[upper]} (names are compared case-insensitively)"))
                continue
            seen[upper] = shown
            if not isinstance(reason, str):
                found.append((shown, f"the reason must be a string, got {type(reason).__name__}"))
            elif not reason.strip():
                found.append((shown, "needs a reason (who asked for it and why); a blank one opens nothing"))
            elif (bad := unsafe_text(reason)) is not None:
                found.append((shown, f"the reason {bad}"))
        return found

    def unsafe_env(self, key: str) -> tuple[bool, str]:
        """Judge a variable name: ``(True, why)`` when a profile may not set it."""
        verdict = _verdict(self, key)
        return verdict.bad, verdict.why

    def _judge(self, key: str) -> _Verdict:
        own = self._judge_spelling(key)
        read = self.read_as(key) if not own.bad else None
        if read is None:
            return own
        # The engine reads this name as another (SGLang's SGL_X as SGLANG_X): it may
        # only set what its target may. An alias never opens anything: both must pass.
        target, alias = read
        theirs = self._judge_spelling(target)
        if theirs.bad:
            because = f" ({alias.why})" if alias.why else ""
            return _Verdict(True, f"the engine reads it as {target}{because}, which is refused: {theirs.why}")
        return own if own.unsafe_reason else theirs

    def _judge_spelling(self, key: str) -> _Verdict:
        if not key:
            return _Verdict(True, "empty name")
        if len(key) > MAX_KEY_LENGTH:
            return _Verdict(True, f"name longer than {MAX_KEY_LENGTH} characters")
        if not key.isascii() or not _KEY.match(key):
            return _Verdict(
                True, "not a portable name (letters, digits and _ only, not starting with a digit)"
            )
        upper = key.upper()
        if upper in RESERVED or upper.startswith(RESERVED_PREFIXES):
            return _Verdict(True, "reserved: derived from the shard spec")
        if upper in self.engine_reserved:
            return _Verdict(True, "reserved by the engine: generated for the shard, or carries its secret")
        if upper in self.deny or upper.startswith(self.deny_prefixes):
            return _Verdict(True, "denied by this site's policy")
        if upper in PYTHON_ALLOWED:
            return _OK
        reason = dict(self.allow_unsafe).get(upper, "")
        group = _deny_group(self.engine_deny, upper)
        built_in = _deny_group(DENY_GROUPS, upper)
        if group is None or (built_in is not None and built_in.floor and not group.floor):
            # An engine's group adds a refusal or a better reason; it never lowers a floor.
            group = built_in
        if group is not None:
            if upper in self.allow and not group.floor:
                return _OK
            if reason:
                return _Verdict(False, "", reason)
            if upper in self.allow:
                return _Verdict(
                    True,
                    f"denied: {group.why}; env_policy.allow cannot open this group: "
                    "the site must name it in env_policy.allow_unsafe with a reason",
                )
            return _Verdict(True, f"denied: {group.why}")
        if upper in self.allow:
            return _OK
        verdict = self._namespaced(upper)
        if verdict.bad and reason:
            return _Verdict(False, "", reason)
        return verdict

    def _namespaced(self, upper: str) -> _Verdict:
        if not upper.startswith(OPEN_NAMESPACES + self.engine_open + self.allow_prefixes):
            return _Verdict(True, "unknown: not in a namespace this site opens to profiles")
        if upper.endswith(_CONF_SUFFIX):
            return _OK  # a tuning string or a file: unsafe_value decides
        if upper.endswith(RISKY_SUFFIXES):
            return _Verdict(True, "denied: its name says it points at a file, directory, module or program")
        return _OK

    def unsafe_value(self, key: str, value: object) -> tuple[bool, str]:
        """Judge a value: ``(True, why)`` when it may not be given to a process.

        A name the engine reads as another is held to that name's value rules too.
        """
        bad, why = self._value_for(key, value)
        read = self.read_as(key) if not bad else None
        if read is not None:
            bad, why = self._value_for(read[0], value)
            if bad:
                return True, f"as {read[0]}, which the engine reads it as: {why}"
        return bad, why

    def _value_for(self, key: str, value: object) -> tuple[bool, str]:
        if not isinstance(value, str):
            return True, f"value must be a string, got {type(value).__name__}"
        bad = unsafe_text(value)
        if bad is not None:
            return True, f"value {bad}"
        if value.startswith("() "):
            return True, "value looks like an exported shell function"
        if len(value.encode("utf-8")) > MAX_VALUE_LENGTH:
            return True, f"value longer than {MAX_VALUE_LENGTH} bytes"
        upper = key.upper()
        if upper.endswith(_CONF_SUFFIX) and not (upper in self.path_keys and self._opened(upper)):
            why = _tuning_problem(value)
            if why:
                return True, why
        if ("/" in value or "%" in value) and upper not in self.path_keys:
            return True, "value contains '/' or '%' and the site has not marked this key as a path"
        return False, ""

    def _opened(self, upper: str) -> bool:
        """Whether the site opened this name itself (``allow`` or ``allow_unsafe``)."""
        return upper in self.allow or any(name == upper for name, _ in self.allow_unsafe)

    def problems(self, env: Mapping[str, object]) -> list[tuple[str, str]]:
        """Every ``(key, why)`` in ``env`` that this policy refuses, in key order."""
        items = tuple(env.items())
        if not all(type(key) is str and type(value) is str for key, value in items):
            return self._problems(env)  # refused below, each saying what it got
        # Judged when the profile is validated and again when its commands are built, for
        # every shard of the profile: the same variables, the same answer.
        return list(_env_problems(self, items))

    def _problems(self, env: Mapping[str, object]) -> list[tuple[str, str]]:
        found = []
        for key in sorted(env, key=str):
            bad, why = self.unsafe_env(key) if isinstance(key, str) else (True, "name not a string")
            if not bad:
                bad, why = self.unsafe_value(key, env[key])
            if bad:
                found.append((key, why))
        return found

    def unsafe_allowances(self, env: Mapping[str, object]) -> list[tuple[str, str]]:
        """Every ``(key, reason)`` in ``env`` accepted only because of ``allow_unsafe``, in key order.

        A key whose value is refused is not listed: it is not accepted at all.
        """
        found = []
        for key in sorted(env, key=str):
            if not isinstance(key, str):
                continue
            verdict = _verdict(self, key)
            if verdict.unsafe_reason and not self.unsafe_value(key, env[key])[0]:
                found.append((key, verdict.unsafe_reason))
        return found


def floor_group(key: str) -> EnvDeny | None:
    """The built-in floor group ``key`` falls in: what loads code, redirects trust or carries
    a credential, whoever sets it; ``None`` for any other name."""
    upper = key.upper()
    if upper in PYTHON_ALLOWED:
        return None
    group = _deny_group(DENY_GROUPS, upper)
    return group if group is not None and group.floor else None


def _tuning_problem(value: str) -> str:
    """Why ``value`` is not a tuning string for a ``*_CONF`` key, or ``""`` when it is one."""
    if _PATH_LIKE.search(value):
        return (
            "value looks like a path ('/', '%', '~' or '..') and a *_CONF key takes a tuning "
            "string (such as 'key:value,key:value') unless the site allows it and marks it as a path"
        )
    if _FILE_LIKE.search(value):
        return (
            "value looks like a file or module name ('name.ext') and a *_CONF key takes a tuning "
            "string (such as 'key:value,key:value') unless the site allows it and marks it as a path"
        )
    if not _TUNING.match(value):
        return (
            "value is not a tuning string: a *_CONF key takes only letters, digits, space "
            "and _ . , : = + - [ ] >"
        )
    return ""


DEFAULT_POLICY = EnvPolicy()


def unsafe_env(key: str, policy: EnvPolicy = DEFAULT_POLICY) -> tuple[bool, str]:
    """Judge a variable name under ``policy`` (the built-in one by default)."""
    return policy.unsafe_env(key)


@functools.lru_cache(maxsize=1024)
def _env_problems(policy: EnvPolicy, items: tuple[tuple[str, str], ...]) -> tuple[tuple[str, str], ...]:
    return tuple(policy._problems(dict(items)))


@functools.lru_cache(maxsize=4096)
def _verdict(policy: EnvPolicy, key: str) -> _Verdict:
    # Pure and asked for the same few names over and over: judged once per policy. The
    # policy is frozen and hashed by every field, allow_unsafe included.
    return policy._judge(key)


def forget_judgements() -> None:
    """Forget the verdicts remembered on names and env tables: memory back, or a test that starts clean."""
    _verdict.cache_clear()
    _env_problems.cache_clear()
