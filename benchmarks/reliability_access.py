"""The access-control probe of benchmarks/reliability.py: reads of a workspace answered for a
read key of another workspace (0 when the grants hold).

The probe is the test's own (tests/unit/test_api_access.py: two workspaces, each with a
document and a job; every read route and the listing tried both ways), so the benchmark and
the test suite count the same thing.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def probe() -> int:
    from tests.unit.test_api_access import count_cross_workspace_reads

    with tempfile.TemporaryDirectory(prefix="gechat-access-") as tmp:
        return count_cross_workspace_reads(Path(tmp))


if __name__ == "__main__":
    print(probe())
