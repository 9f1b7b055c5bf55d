"""The whole replica.

One document for every shard of a replica, read and checked before any shard is planned.
"""
