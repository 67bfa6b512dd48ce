"""Tuning: typed plans, knobs as read/write pairs, a journal of original values, and an
executor that applies, verifies and rolls back."""
