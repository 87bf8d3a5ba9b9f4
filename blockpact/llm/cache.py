"""On-disk response cache, so re-running an experiment costs nothing and reproduces it.

An entry is keyed on everything that determines a reply: model, messages and every sampling
parameter sent (temperature, seed, max_tokens, stop, ...). Not the base URL: the same server on
another port or host, or behind a proxy, answers the same model the same way. The API key is not part of the
request and is never stored. Writes go to a temporary file renamed into place, so concurrent
writers (several agents, several processes) never leave a torn entry.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

# Bump when the entry layout or the key recipe changes, so old entries are simply missed.
CACHE_FORMAT = 2


def request_key(request: dict[str, Any]) -> str:
    """Stable hash of a request (canonical JSON: sorted keys, no whitespace)."""
    canonical = json.dumps({"format": CACHE_FORMAT, **request}, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode()).hexdigest()


class ResponseCache:
    """A directory of JSON entries, two hex digits of fan-out."""

    def __init__(self, directory: Path) -> None:
        self.directory = Path(directory)

    def _path(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    def get(self, request: dict[str, Any]) -> dict[str, Any] | None:
        """The stored reply for `request`, or None."""
        path = self._path(request_key(request))
        try:
            entry = json.loads(path.read_text(encoding="utf-8"))
        except (FileNotFoundError, json.JSONDecodeError):
            return None
        return entry.get("reply") if entry.get("request") == request else None

    def put(self, request: dict[str, Any], reply: dict[str, Any]) -> None:
        path = self._path(request_key(request))
        path.parent.mkdir(parents=True, exist_ok=True)
        data = json.dumps({"request": request, "reply": reply}, ensure_ascii=False, indent=1)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
