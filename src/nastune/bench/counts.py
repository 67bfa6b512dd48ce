"""How many files the metadata workloads make by default: light, for the command line's options
(bench/params.py's defaults are these)."""

FILES = 500  # small files per repeat
DIR_FILES = 5000  # the files of big-dir's directory
