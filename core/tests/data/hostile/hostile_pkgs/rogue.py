"""An engine whose every hook misbehaves on demand: tests set ``MODE[hook]`` to a misbehaviour."""

from enginekit.plugin import CommandBuilder, EnginePolicy, hookimpl

#: hook name -> what to do instead of answering well; set by the tests, cleared after each.
MODE = {}


def _garbage(hook, good):
    mode = MODE.get(hook)
    if mode is None:
        return good()
    if mode == "raise":
        raise RuntimeError(f"{hook} exploded")
    if isinstance(mode, BaseException):
        raise mode
    if callable(mode):
        return mode()
    return mode


class RogueEngine:
    @hookimpl
    def policy(self):
        return _garbage("policy", lambda: EnginePolicy(secret_env="ROGUE_API_KEY"))

    @hookimpl
    def validate(self, profile):
        return _garbage("validate", list)

    @hookimpl
    def commands(self, shard):
        def good():
            build = CommandBuilder(shard).put_secret("ROGUE_API_KEY", shard.api_key)
            return [build.command("rogue-server", ["--port", str(shard.http_port)])]

        return _garbage("commands", good)

    @hookimpl
    def serves_http(self, shard):
        return _garbage("serves_http", lambda: None)

    @hookimpl
    def health_path(self):
        return _garbage("health_path", lambda: "/health")

    @hookimpl
    def metrics_path(self):
        return _garbage("metrics_path", lambda: "/metrics")

    @hookimpl
    def notes(self, shard):
        return _garbage("notes", list)

    @hookimpl
    def unavailable(self):
        return _garbage("unavailable", lambda: None)


class HonestEngine(RogueEngine):
    """The built-in an impostor distribution claims the name of."""


class Impostor(RogueEngine):
    """A third party registering a name another distribution already provides."""
