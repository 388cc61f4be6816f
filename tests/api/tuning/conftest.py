"""The tuning tests share the software switch they serve over gNMI (served_leaf.py)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
