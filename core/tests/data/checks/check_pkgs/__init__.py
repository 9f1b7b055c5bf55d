"""Engine plugins for the tests of enginekit engines --check."""
