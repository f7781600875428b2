"""Retries' requests (vlcomp.plan.requests) and what the plan says of the time limit."""

from __future__ import annotations

import pytest

from vlcomp.plan.__main__ import format_time_limit
from vlcomp.plan.dry_run import DryJob
from vlcomp.plan.requests import by_attempt, runtime_by_attempt


def test_a_retry_doubles_a_request_and_time_stops_at_the_partition_limit():
    assert [by_attempt(4000, a) for a in (1, 2, 3)] == [4000, 8000, 16000]
    assert [runtime_by_attempt(480, a) for a in (1, 2)] == [480, 960]  # no limit set
    # the ImageNet probe's 8 h on a 12 h partition: its retry asks 12 h, not 16
    assert [runtime_by_attempt(480, a, 720) for a in (1, 2)] == [480, 720]
    assert runtime_by_attempt(900, 1, 720) == 720
    with pytest.raises(ValueError, match="first try is 1"):
        by_attempt(1, 0)


def test_the_plan_names_the_jobs_longer_than_the_limit_or_the_largest_retry():
    jobs = [DryJob(rule="probe", resources={"runtime": "480"}),
            DryJob(rule="table", resources={"runtime": "30"})]
    rows = [{"rule": "probe", "longest_h": 8.0}, {"rule": "table", "longest_h": 0.5}]
    assert format_time_limit(rows, jobs, None, {"probe"}) == (
        "time limit: none set (cluster.max_runtime_min); a retry doubles a job's request, up "
        "to 16.0 h (probe): set your partitions' limit to cap it")
    assert "every job fits" in format_time_limit(rows, jobs, 720, {"probe"})
    assert format_time_limit(rows, jobs, None, set()) == "time limit: none set " \
        "(cluster.max_runtime_min)"
    assert format_time_limit(rows, jobs, 240, {"probe"}).endswith(
        "estimated longer: probe (8.0 h): shard their stage (shards.counts) or give them a "
        "partition that allows them")
