"""Engine plugins written for different plugin APIs, for test_plugin_api.py."""
