"""Presentation: console tables, and later the HTML report and CSV export."""
