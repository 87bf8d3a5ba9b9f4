"""The real-model suite shares the test harness (tests/harness): its machine-load measure above all."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
