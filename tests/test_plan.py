"""The plan command: a dry run's job blocks read back, stage estimates for sharded rules,
requests for the rest, and the closing line."""

from __future__ import annotations

import pytest
import yaml

from vlcomp.plan.__main__ import format_plan, plan_rows
from vlcomp.plan.dry_run import parse_dry_run
from vlcomp.plan.estimates import stage_job
from vlcomp.plan.sizes import RELEASED

from .conftest import REPO

DRY_RUN = """\
Job stats:
job                 count
----------------  -------
embed_model_shard       2
total                   4

[Thu Nov 26 23:00:00 2026]
rule embed_model_shard:
    input: results/imagesets/world_test.parquet
    output: results/embeddings/m/shards/0-of-2.npz
    log: logs/embed/m/0-of-2.log
    jobid: 7
    reason: Missing output files: results/embeddings/m/shards/0-of-2.npz
    wildcards: model=m, shard=0-of-2
    threads: 2
    resources: tmpdir=<TBD>, gpu=1, mem_mb=16000, mem_mib=15259, runtime=70

rule embed_model_shard:
    wildcards: model=m, shard=1-of-2
    threads: 2
    resources: tmpdir=<TBD>, gpu=1, mem_mb=16000, runtime=70

localrule all:
    input: results/summary.md
    jobid: 0
    resources: tmpdir=<TBD>

rule table_aro:
    output: results/tables/aro/aro.csv
    resources: tmpdir=<TBD>, mem_mb=2000, runtime=30
"""


def test_dry_run_blocks_are_read_back():
    jobs = parse_dry_run(DRY_RUN)
    assert [j.rule for j in jobs] == ["embed_model_shard", "embed_model_shard", "all",
                                      "table_aro"]
    first = jobs[0]
    assert first.wildcards == {"model": "m", "shard": "0-of-2"}
    assert (first.threads, first.gpus, first.runtime_min) == (2, 1, 70.0)
    assert jobs[3].gpus == 0 and jobs[3].runtime_min == 30.0


def test_plan_uses_estimates_for_shards_and_requests_for_the_rest():
    config = yaml.safe_load((REPO / "config" / "paper.yaml").read_text())
    config["models"] = {"m": {"family": "open_clip", "arch": "ViT-L-14"}}
    config["shards"] = {"counts": {"embed": {"m": 2}}}
    estimate = stage_job(config, "embed", "m")
    assert estimate.shards == 2 and estimate.device == "gpu"
    rows = {r["rule"]: r for r in plan_rows(config, parse_dry_run(DRY_RUN))}
    shard = rows["embed_model_shard"]
    assert shard["gpu_h"] == pytest.approx(estimate.hours)  # 2 shards of half the job
    assert shard["longest_h"] == pytest.approx(estimate.hours / 2)
    assert shard["items"] == pytest.approx(estimate.items)
    assert rows["table_aro"]["cpu_h"] == pytest.approx(0.5)  # its runtime request
    text = format_plan(list(rows.values()))
    assert text.splitlines()[-1] == (f"longest job: {estimate.hours / 2:.1f} h; total: "
                                     f"{estimate.hours:.1f} GPU-h, 0.5 CPU-h")


def test_released_sizes_cover_the_paper_benchmarks_and_the_world_scales():
    paper = yaml.safe_load((REPO / "config" / "paper.yaml").read_text())
    assert set(paper["benchmarks"]) <= set(RELEASED)
    world = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    small = stage_job(world, "embed", "world_clip")
    assert small.device == "cpu" and small.shards == 1 and small.runtime < 60
    generated = stage_job(paper, "generate", "bivlc")
    # BiVLC App. E: 30,048 SDXL images, ~44 A100-hours: shards of at most 6 h
    assert generated.items == 30_048 and generated.hours == pytest.approx(44, rel=0.05)
    assert generated.shards == 8 and generated.shard_hours <= 6
    probe = stage_job(paper, "embed_images", "openai_clip", imageset="imagenet_train")
    assert probe.items == 1_281_167 and probe.shards == 1 and probe.hours == pytest.approx(0.71,
                                                                                          rel=0.01)
    neighbours = stage_job(paper, "embed_images", "openai_clip", imageset="coco_train")
    assert neighbours.items == 113_287  # Karpathy's train split with restval
    assert stage_job(world, "embed_images", "world_clip", imageset="world_train").items == (
        world["world"]["splits"]["train"])


def test_cluster_page_lists_every_per_item_cost():
    """docs/cluster.md's cost table is vlcomp.plan.costs.COSTS, row for row."""
    from vlcomp.plan.costs import COSTS

    page = (REPO / "docs" / "cluster.md").read_text()
    for (kind, scale), cost in COSTS.items():
        row = f"| `{kind}` | {scale} | {cost.seconds:g} | {cost.device} | {cost.source} |"
        assert row in page, row


def test_generated_image_counts_agree_and_default_to_four_per_prompt():
    from vlcomp.plan.sizes import generation_prompts, imageset_images

    paper = yaml.safe_load((REPO / "config" / "paper.yaml").read_text())
    unset = {**paper, "generation": {**paper["generation"], "bivlc": {
        k: v for k, v in paper["generation"]["bivlc"].items() if k != "images_per_prompt"}}}
    for config in (paper, unset):
        expected = generation_prompts(config, "bivlc") * int(
            config["generation"]["bivlc"].get("images_per_prompt", 4))
        assert imageset_images(config, "bivlc_generated") == expected
        assert stage_job(config, "generate", "bivlc").items == expected


def test_each_table_costs_what_it_needs_and_idle_jobs_are_named():
    """Jobs linked by their files: a table costs every job it needs; a paper's tables their
    union; 'alone' what no other needs; a job no table, figure or finding needs is idle."""
    from vlcomp.plan.dag import format_report_plan, paper_of, report_plan
    from vlcomp.plan.dry_run import DryJob

    def job(rule, inputs, outputs, gpu=0):
        return DryJob(rule, input=inputs, output=outputs, resources={"gpu": str(gpu)})

    jobs = [job("embed", [], ["e.npy"], gpu=1),
            job("score_aro", ["e.npy"], ["m_aro.json"], gpu=1),
            job("score_bison", ["e.npy"], ["m_bison.json"], gpu=1),
            job("table_aro", ["m_aro.json"], ["results/tables/aro/table2.md"]),
            job("table_bison", ["m_bison.json"], ["results/tables/bison/bison.md"]),
            job("orphan", ["e.npy"], ["x.json"], gpu=1),
            # the findings read every paper: not another user of a paper's jobs
            job("findings", ["m_aro.json", "m_bison.json"], ["results/claims.csv"]),
            job("all", ["results/tables/aro/table2.md", "x.json"], [])]
    plan = report_plan(jobs, lambda j: (2.0 * j.gpus, 1.0 - j.gpus))
    tables = {c.name: c for c in plan.tables}
    assert tables["tables/aro/table2"].gpu_h == 4.0  # embed + score_aro
    assert tables["tables/aro/table2"].alone_gpu_h == 2.0  # score_aro; embed is shared
    papers = {c.name: c for c in plan.papers}
    assert {n: c.gpu_h for n, c in papers.items()} == {"ARO": 4.0, "BISON": 4.0,
                                                       "across papers": 6.0}
    assert papers["ARO"].alone_gpu_h == 2.0 and papers["across papers"].alone_gpu_h == 0.0
    assert [j.rule for j in plan.idle] == ["orphan"]
    assert "jobs that feed no table, figure or finding: 1 (orphan)" in format_report_plan(plan)
    assert paper_of("tables/robustness/aro_table3") == "ARO"
    assert paper_of("tables/robustness/hendriksen") == "Hendriksen et al."
    assert paper_of("tables/sugarcrepe/sugarcrepe") == "BiVLC"
    assert paper_of("figures/bison_fig9") == "BISON" and paper_of("claims") == "across papers"
