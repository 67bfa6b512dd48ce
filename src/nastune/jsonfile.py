"""Reading nastune's versioned JSON files (plans, results) with errors that name the file."""

from __future__ import annotations

import json
from pathlib import Path


def load_versioned(path: Path, schema: str, what: str) -> dict:
    try:
        data = json.loads(path.read_text())
    except OSError as e:
        raise ValueError(f"{path}: {e.strerror}") from e
    except ValueError as e:
        raise ValueError(f"{path}: not JSON ({e})") from e
    if not isinstance(data, dict) or data.get("schema") != schema:
        raise ValueError(f"{path}: not a nastune {what} (expected \"schema\": \"{schema}\")")
    return data
