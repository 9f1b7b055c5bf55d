"""Stand-in engine packages behind the committed fake distributions."""
