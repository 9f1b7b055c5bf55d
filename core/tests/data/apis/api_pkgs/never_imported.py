"""A plugin the registry must refuse from its metadata alone: importing it is the bug."""

raise AssertionError("api_pkgs.never_imported was imported: a refused plugin must never be")
