"""`vlcomp.bench.process_cpu`: every Python process of a command records its own CPU seconds,
named by its script (Snakemake's temporary copies read as the rule's script), and the summary
adds up to the command's CPU."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from vlcomp.bench.process_cpu import (
    ProcessCpu,
    markdown,
    process_name,
    read_records,
    run_measured,
    summarise,
)

BUSY = "import time\nend = time.process_time() + {s}\nwhile time.process_time() < end:\n    pass\n"


def test_names_read_snakemake_script_copies_as_the_rule_script():
    assert process_name("tmp2albet3_.train_clip.py") == "train_clip.py"
    assert process_name("train_clip.py") == "train_clip.py"
    assert process_name("snakemake") == "snakemake"
    assert process_name("tmpfile") == "tmpfile"  # no second dot: not a Snakemake copy


def test_every_python_process_is_recorded_with_its_own_cpu(tmp_path: Path):
    """A parent script (0.2 s of CPU) runs two children of a rule's script, as Snakemake names
    them (0.3 s each): three lines, the children under one name, and their sum within the
    command's CPU."""
    child = tmp_path / "tmpab12cd.busy_rule.py"
    child.write_text(BUSY.format(s=0.3))
    (tmp_path / "tmpzz99yy.busy_rule.py").write_text(BUSY.format(s=0.3))
    parent = tmp_path / "parent.py"
    parent.write_text(BUSY.format(s=0.2) + "import subprocess, sys\n"
                      f"for c in ({str(child)!r}, {str(tmp_path / 'tmpzz99yy.busy_rule.py')!r}):\n"
                      "    subprocess.run([sys.executable, c], check=True)\n")
    records = tmp_path / "cpu.tsv"
    code, total = run_measured([sys.executable, str(parent)], records)
    assert code == 0
    found = read_records(records)
    by_name = {}
    for record in found:
        by_name.setdefault(record.name, []).append(record.cpu_s)
    assert sorted(by_name) == ["busy_rule.py", "parent.py"]
    assert len(by_name["busy_rule.py"]) == 2 and all(s >= 0.3 for s in by_name["busy_rule.py"])
    assert by_name["parent.py"][0] >= 0.2
    recorded = sum(r.cpu_s for r in found)
    assert 0.8 <= recorded <= total + 0.05
    rows = summarise(found, total)
    assert rows[0]["name"] == "busy_rule.py" and rows[0]["processes"] == 2
    assert rows[-1]["name"].startswith("(no record")
    assert sum(float(r["cpu_s"]) for r in rows) == pytest.approx(total, abs=0.2)


def test_the_command_line_prints_the_table_and_keeps_the_exit_code(tmp_path: Path):
    failing = tmp_path / "fails.py"
    failing.write_text(BUSY.format(s=0.05) + "raise SystemExit(3)\n")
    out = tmp_path / "lines.tsv"
    done = subprocess.run([sys.executable, "-m", "vlcomp.bench.process_cpu", "--out", str(out),
                           "--", sys.executable, str(failing)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 3, done.stderr
    assert "| fails.py | 1 |" in done.stdout
    assert "1 Python processes recorded" in done.stderr
    assert len(out.read_text().splitlines()) == 1


def test_a_malformed_line_names_the_file_and_line(tmp_path: Path):
    bad = tmp_path / "cpu.tsv"
    bad.write_text("1\tx.py\t0.5\n2\ty.py\n")
    with pytest.raises(ValueError, match=r"cpu.tsv:2: expected 3"):
        read_records(bad)


def test_markdown_folds_the_tail_into_one_row():
    records = [ProcessCpu(i, f"s{i}.py", float(10 - i)) for i in range(5)]
    table = markdown(summarise(records, 50.0), top=2)
    assert "| s0.py | 1 | 10.0 | 10.0 | 20.0 % |" in table
    assert "| 3 other names | 3 | 21.0 |  | 42.0 % |" in table
    assert "| (no record: non-Python processes, killed ones) |  | 10.0 |" in table
