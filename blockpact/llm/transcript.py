"""Append-only JSONL record of every LLM call, flushed per call, for the run directory."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any


class Transcript:
    """One JSON object per line; a crash loses at most the call in progress."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()

    def append(self, record: dict[str, Any]) -> None:
        line = json.dumps(record, ensure_ascii=False, default=str) + "\n"
        with self._lock, open(self.path, "a", encoding="utf-8") as f:
            f.write(line)
            f.flush()
            os.fsync(f.fileno())


def read_transcript(path: str | Path) -> list[dict[str, Any]]:
    """All records of a transcript, oldest first."""
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]
