"""nastune: inspect, diagnose, measure and tune a Linux NAS."""

__version__ = "0.1.0"
