"""Printing benchmark tables and writing their JSON, with the machine they ran on."""

from __future__ import annotations

import os
import platform
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from vlcomp.io import write_json


def cpu_model() -> str:
    """The CPU's model name (from /proc/cpuinfo), or the platform's processor string."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def machine() -> dict[str, Any]:
    """What the numbers depend on: CPU, cores, torch build and thread count, accelerator."""
    import torch

    info: dict[str, Any] = {
        "cpu": cpu_model(),
        "logical_cores": os.cpu_count(),
        "python": platform.python_version(),
        "torch": torch.__version__,
        "torch_threads": torch.get_num_threads(),
        "mkldnn": bool(torch.backends.mkldnn.is_available()),
        "cuda": torch.cuda.get_device_name(0) if torch.cuda.is_available() else None,
    }
    return info


def format_table(rows: Sequence[dict[str, Any]], columns: Sequence[str]) -> str:
    """A Markdown table of ``rows`` (floats with up to 3 significant decimals)."""

    def cell(value: Any) -> str:
        if isinstance(value, float):
            return f"{value:,.1f}" if abs(value) >= 100 else f"{value:.3g}"
        if isinstance(value, int) and not isinstance(value, bool):
            return f"{value:,}"
        return "" if value is None else str(value)

    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(cell(row.get(c)) for c in columns) + " |" for row in rows]
    return "\n".join(lines)


def emit(name: str, rows: Sequence[dict[str, Any]], columns: Sequence[str], out: Path | None,
         **extra: Any) -> dict[str, Any]:
    """Print the table and write ``out/<name>.json`` (rows, extra fields and the machine)."""
    print(f"\n## {name}\n\n{format_table(rows, columns)}\n", flush=True)
    payload = {"benchmark": name, "machine": machine(), **extra, "rows": list(rows)}
    if out is not None:
        write_json(payload, Path(out) / f"{name}.json")
        print(f"(written {Path(out) / f'{name}.json'})", flush=True)
    return payload
