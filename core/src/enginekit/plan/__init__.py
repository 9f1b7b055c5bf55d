"""The launch plan.

What a shard will be started with, its JSON format and schemas, and what a worker does when its leader goes.
"""
