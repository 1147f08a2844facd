"""Example scripts; a package so that ``examples.pump_failures:model`` imports from the root."""
