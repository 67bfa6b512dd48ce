"""The workflows: each takes a Site and a typed spec, runs the stages in order and returns a
result the command line shows (optimize, ab, stress, check, watch, autotune)."""
