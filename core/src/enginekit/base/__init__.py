"""The ground floor.

Errors, exit codes, text and secret handling, versions, logging, lazy exports; imports nothing of enginekit.
"""
