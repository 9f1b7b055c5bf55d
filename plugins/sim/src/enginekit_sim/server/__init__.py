"""The server a plan starts: an OpenAI-compatible API, a latency model, a prefix cache and KV-cache events."""
