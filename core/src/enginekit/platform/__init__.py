"""The plugin platform.

Hook specifications, the contract every answer is checked against, the engine facade, the registry.
"""
