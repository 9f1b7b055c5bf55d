"""Policy.

What a site and an engine allow in an environment and an argv, and the option tables
that say which flags exist.
"""
