"""The shard spec.

The frozen model hooks receive, converting documents to it, reading and writing it, its rules.
"""
