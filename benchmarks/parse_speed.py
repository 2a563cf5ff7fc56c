"""Parse speed: `.sched` text vs importing the raw source file vs msgspec JSON decoding.

For the largest file of every family under DATA_DIR (default: ../shared/data, else
tests/data) it measures, in one run and side by side, the median time of
  import  — reading the canonical source file into the IR (with the semantic pass),
  parse   — parsing the printed `.sched` text into the IR (with the semantic pass),
  json    — msgspec.json.decode of the same IR,
and prints parse/import and parse/json. Target: parse ≤ 2 × import.

    python benchmarks/parse_speed.py [DATA_DIR] [--repeat N]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from schedc.importers import import_paths  # noqa: E402
from schedc.ir import from_json, to_json  # noqa: E402
from schedc.lang.parser import parse_instance_text  # noqa: E402
from schedc.lang.printer import print_instance  # noqa: E402
from tests.sources import source_files  # noqa: E402


def median_seconds(func: Callable[[], object], repeat: int) -> float:
    func()  # warm caches (grammar, family specs)
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def largest_per_format(root: Path) -> list[tuple[str, Path, tuple[Path, ...]]]:
    best: dict[str, tuple[str, Path, tuple[Path, ...]]] = {}
    for item in source_files(root):
        fmt, path, _ = item
        if fmt not in best or path.stat().st_size > best[fmt][1].stat().st_size:
            best[fmt] = item
    return list(best.values())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default = ROOT.parent / "shared" / "data"
    parser.add_argument("data", nargs="?", type=Path, default=default if default.exists() else ROOT / "tests" / "data")
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    print(f"{'instance':<22}{'source KB':>10}{'.sched KB':>10}{'import ms':>11}{'parse ms':>10}{'json ms':>9}"
          f"{'parse/import':>14}{'parse/json':>12}")
    ratios = []
    for fmt, path, cases in largest_per_format(args.data):
        [instance] = import_paths(fmt, [path], cases=cases)
        text = print_instance(instance)
        blob = to_json(instance)
        t_import = median_seconds(lambda fmt=fmt, path=path, cases=cases: import_paths(fmt, [path], cases=cases),
                                  args.repeat)
        t_parse = median_seconds(lambda text=text: parse_instance_text(text), args.repeat)
        t_json = median_seconds(lambda blob=blob: from_json(blob), args.repeat)
        size = path.stat().st_size + sum(c.stat().st_size for c in cases)
        ratios.append(t_parse / t_import)
        print(f"{instance.name:<22}{size / 1024:>10.1f}{len(text) / 1024:>10.1f}{t_import * 1e3:>11.2f}"
              f"{t_parse * 1e3:>10.2f}{t_json * 1e3:>9.2f}{t_parse / t_import:>14.2f}{t_parse / t_json:>12.1f}")
    print(f"max parse/import ratio: {max(ratios):.2f} (target <= 2.0)")


if __name__ == "__main__":
    main()
