"""Parsers of the NAS daemons' configuration formats, shared by collectors and appliers."""
