"""Where the benchmark scripts read canonical source files when no DATA_DIR is given."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: The development data set beside the checkout (not part of the repository).
SHARED = ROOT.parent / "shared" / "data"
#: The sample shipped with the repository (examples/sources/README.md).
SAMPLE = ROOT / "examples" / "sources"


def default_sources() -> Path:
    """``../shared/data`` when it exists, else the bundled sample ``examples/sources``."""
    return SHARED if SHARED.is_dir() else SAMPLE
