"""Drivers: each runs one existing tool (or library) and returns its numbers."""
