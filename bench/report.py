"""What every benchmark group shares: percentiles, and reporting a group's numbers."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Report = Callable[[str, str], None]


def percentile(values: list[float], fraction: float) -> float:
    """The value `fraction` of the way up the sorted values (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def print_line(name: str, value: str) -> None:
    """One measurement per line: what `python -m bench` prints."""
    print(f"{name:55} {value}", flush=True)


def report_numbers(group: str, numbers: dict[str, Any], report: Report | None) -> dict[str, Any]:
    """Hand each of a group's numbers to `report` (if any), named after the group."""
    if report is not None:
        for name, value in numbers.items():
            report(f"{group} {name}", str(value))
    return numbers
