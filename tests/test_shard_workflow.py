"""Sharded jobs in the workflow runs: a model's embeddings and a generated set's candidate
images in 3 shards are byte-identical to one job's (the real-format run's CLIP and the tiny
run's BiVLC-style set, made again here unsharded through the same code), and so is a run
trained in 3 segments; a shard killed before its gather reruns alone."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml

from vlcomp.config import model_threads

from .workflow_runs import snakemake

pytestmark = pytest.mark.slow


@contextmanager
def torch_threads(n: int) -> Iterator[None]:
    """torch on ``n`` threads, as the run's jobs (``compute.threads``): float reductions
    split over another number of threads may differ in their last bits."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def test_sharded_embeddings_equal_one_jobs_on_the_real_format_run(real_run, monkeypatch):
    """tiny_clip's embed_model ran in 3 shards (tests/paper_run.py); the same scorer embeds
    the same sets in one pass here, and every file matches byte for byte."""
    from vlcomp.config import expand_models
    from vlcomp.io import read_parquet
    from vlcomp.models.registry import build_scorer
    from vlcomp.score.embeddings import embed_image_sets, embed_text_sets, save_embeddings

    work, config_file = real_run
    monkeypatch.chdir(work)  # image paths are relative to the run's folder
    config = yaml.safe_load(Path(config_file).read_text())
    folder = work / "results" / "embeddings" / "tiny_clip"
    assert sorted(p.name for p in (folder / "shards").iterdir()) == [
        "0-of-3.npz", "1-of-3.npz", "2-of-3.npz"]
    logs = [(work / "logs" / "embed" / "tiny_clip" / f"{k}-of-3.log").read_text()
            for k in range(3)]
    blocks = [re.search(r"images (\d+):(\d+) of (\d+)", log).groups() for log in logs]
    assert all(int(stop) > int(start) for start, stop, _ in blocks), blocks  # none idle

    entry = expand_models(config)["tiny_clip"]
    scorer = build_scorer("tiny_clip", entry, "cpu")
    # the gather's log names the image sets of the job (embed_images embeds the others)
    gathered = (work / "logs" / "embed" / "tiny_clip.log").read_text()
    sets = re.findall(r"results/imagesets/([\w-]+)\.parquet: \d+ images", gathered)
    images = [folder / "images" / f"{name}.npy" for name in sets]
    tables = [read_parquet(work / "results" / "imagesets" / f"{name}.parquet")
              for name in sets]
    batch = config["embed"]["batch_size"]
    with torch_threads(model_threads(config)):
        arrays, _ = embed_image_sets(scorer, tables, batch_size=batch)
    texts = sorted((folder / "texts").glob("*.npy"))
    assert images and texts
    out = Path(work / "unsharded")
    for path, table, array in zip(images, tables, arrays, strict=True):
        save_embeddings(array, table.image_id.tolist(), out / path.name,
                        out / f"{path.stem}.ids.json")
        assert (out / path.name).read_bytes() == path.read_bytes(), path.name
    sources = [text_source(work / "results" / "benchmarks", p.stem) for p in texts]
    with torch_threads(model_threads(config)):
        embed_text_sets(scorer, [read_parquet(s) for s in sources],
                        [out / p.name for p in texts], [out / f"{p.stem}.ids.json" for p in texts],
                        batch_size=config["embed"].get("text_batch_size", 32))
    for path in texts:
        assert (out / path.name).read_bytes() == path.read_bytes(), path.name
        assert ((out / f"{path.stem}.ids.json").read_bytes()
                == path.with_name(f"{path.stem}.ids.json").read_bytes())


def test_sharded_retrieval_galleries_equal_one_shards_on_the_real_format_run(real_run,
                                                                          monkeypatch):
    """BLIP's log P(t|i) galleries of COCO retrieval ran in 3 shards (tests/paper_run.py);
    the same scorer over the whole galleries as one shard gives the same file, byte for
    byte."""
    from vlcomp.config import expand_models
    from vlcomp.io import write_npz
    from vlcomp.models.auto_batch import job_batch, vision_batch
    from vlcomp.models.registry import build_scorer
    from vlcomp.score.pair_jobs import read_galleries
    from vlcomp.score.retrieval_files import retrieval_arrays
    from vlcomp.score.retrieval_shards import score_retrieval_shard

    work, config_file = real_run
    monkeypatch.chdir(work)
    config = yaml.safe_load(Path(config_file).read_text())
    logs = sorted((work / "logs" / "score_pairs" / "blip_lm" / "coco_retrieval").glob("*.log"))
    assert [p.stem for p in logs] == ["0-of-3", "1-of-3", "2-of-3"]
    chunks = [re.search(r"chunks (\d+):(\d+) of (\d+)", p.read_text()).groups() for p in logs]
    assert sum(int(stop) > int(start) for start, stop, _ in chunks) >= 2, chunks  # really split
    spec = config["benchmarks"]["coco_retrieval"]
    results = work / "results"
    galleries = read_galleries(
        results / "benchmarks" / "coco_retrieval" / "gallery.parquet",
        results / "benchmarks" / "coco_retrieval" / "queries.parquet",
        results / "imagesets" / "coco_test.parquet", results / "imagesets" / "coco_val.parquet",
        results / "data" / "coco" / "captions.parquet", spec["queries"],
        config["visualgptscore"].get("retrieval", {}).get("images"))
    scorer = build_scorer("blip_lm", expand_models(config)["blip_lm"], "cpu")
    pairs = job_batch(scorer, config["embed"]["pair_batch_size"], "pairs", "cpu")
    with torch_threads(model_threads(config)):
        whole = score_retrieval_shard(scorer, galleries, "0-of-1", batch_size=pairs,
                                      image_batch=vision_batch(config["embed"]))
    write_npz(retrieval_arrays(galleries, {s: whole[s] for s in ("test", "val")}),
              work / "one_shard.npz")
    joined = results / "scores" / "blip_lm" / "coco_retrieval.npz"
    assert (work / "one_shard.npz").read_bytes() == joined.read_bytes()


def text_source(benchmarks: Path, name: str) -> Path:
    """The table a benchmark's texts are embedded from (the rules' text_source)."""
    for candidate in (benchmarks / name / "queries.parquet", benchmarks / name / "texts.parquet"):
        if candidate.exists():
            return candidate
    return benchmarks / f"{name}.parquet"


def test_a_shard_killed_before_its_gather_reruns_alone(cut_run, cut_config_file, tmp_path):
    """A run killed while the flaky model's shard 1 ran leaves shards 0 and 2 and no gathered
    files (Snakemake removes a killed job's outputs); its gather must run again
    (``--forcerun``, as nothing after it ran either), and takes shard 1 alone with it, not the
    finished shards."""
    reference, _, _ = cut_run
    work = tmp_path / "work"
    shutil.copytree(reference, work, symlinks=True)
    flaky = work / "results" / "embeddings" / "flaky"
    (flaky / "shards" / "1-of-3.npz").unlink()
    for gathered in [*flaky.glob("images/*"), *flaky.glob("texts/*")]:
        gathered.unlink()
    plan = snakemake("-n", "--forcerun", "embed_model_gather", "--configfile",
                     str(cut_config_file), cwd=work)
    assert plan.returncode == 0, plan.stderr[-3000:]
    shards = re.findall(r"wildcards: model=(\w+), shard=([\w-]+)", plan.stdout + plan.stderr)
    assert shards == [("flaky", "1-of-3")]
    assert re.search(r"^embed_model_gather\s+1$", plan.stdout + plan.stderr, re.M)


def test_sharded_generation_equals_one_job_on_the_tiny_run(tiny_run, tmp_path):
    """The tiny run's BiVLC-style candidates came from 3 shards (tests/data/tiny_config.yaml);
    one unsharded pass of the same backend gives the same manifest and image bytes."""
    from vlcomp.generate.backends import build_backend
    from vlcomp.generate.candidates import generate_candidates, generation_items
    from vlcomp.io import read_parquet, write_parquet

    from .workflow_runs import TINY

    config = yaml.safe_load(TINY.read_text())
    generated = tiny_run / "results" / "generated" / "bivlc"
    logs = sorted((tiny_run / "logs" / "generate" / "bivlc_candidates").glob("*.log"))
    assert [p.stem for p in logs] == ["0-of-3", "1-of-3", "2-of-3"]
    assert all("with backend world" in p.read_text() for p in logs)
    items = generation_items(read_parquet(tiny_run / "results" / "benchmarks" /
                                          "sugarcrepe.parquet"))
    assert len(items) > 2 * 64  # every shard had whole chunks to make
    options = config["generation"]["bivlc"]
    backend = build_backend(options, config["world"], "cpu")
    alone = generate_candidates(items.item_id.tolist(), [t[1] for t in items.texts], backend,
                                tmp_path / "images", int(options.get("seed", 0)),
                                image_format=options.get("image_format", "png"))
    write_parquet(alone, tmp_path / "alone.parquet")  # the job's dtypes, as the job wrote them
    alone = read_parquet(tmp_path / "alone.parquet")
    joined = read_parquet(generated / "candidates.parquet")
    assert joined.drop(columns="path").equals(alone.drop(columns="path"))
    assert [Path(p).name for p in joined.path] == [Path(p).name for p in alone.path]
    for ours, theirs in zip(joined.path, alone.path, strict=True):
        assert (tiny_run / ours).read_bytes() == Path(theirs).read_bytes(), ours


def test_a_run_trained_in_segments_equals_one_job_on_the_tiny_run(tiny_run, tmp_path,
                                                                 monkeypatch):
    """The tiny run trained world_clip in 3 segments (8 steps: two of them end inside an
    epoch); the same script run as one job here gives the same weights and losses."""
    import pandas as pd
    import torch
    from snakemake.iocontainers import Namedlist

    from vlcomp.config import expand_runs
    from vlcomp.models.checkpoint import load_checkpoint

    from .test_trohn_release import run_script
    from .workflow_runs import TINY

    config = yaml.safe_load(TINY.read_text())
    logs = tiny_run / "logs" / "train"
    assert [p.stem for p in sorted((logs / "world_clip").glob("*.log"))] == ["0-of-3", "1-of-3"]
    assert "segment 2 of 3, continuing from" in (logs / "world_clip" / "1-of-3.log").read_text()
    assert "segment 3 of 3, continuing from" in (logs / "world_clip.log").read_text()
    checkpoints = tiny_run / "results" / "checkpoints" / "world_clip"
    assert not list(checkpoints.glob("segments/*.pt"))  # temporary hand-overs, gone
    assert not list(checkpoints.glob("resume/*.pt"))
    monkeypatch.chdir(tiny_run)  # image paths are relative to the run's folder
    data = tiny_run / "results" / "data" / "world"
    out = tmp_path / "alone"
    with torch_threads(config["compute"]["threads"]):
        run_script("train_clip.py", SimpleNamespace(
            input=Namedlist(fromdict={"images": str(data / "images.parquet"),
                                      "captions": str(data / "captions.parquet")}),
            output=SimpleNamespace(model=str(out / "model.pt"), log_csv=str(out / "log.csv"),
                                   val=str(out / "val.json")),
            log=[str(out / "train.log")],
            params=SimpleNamespace(run=expand_runs(config)["world_clip"], released=False,
                                   release=None, init_entry={}, segment="0-of-1",
                                   resume=str(out / "resume.pt"), epoch_dir=str(out / "epochs"),
                                   threads=config["compute"]["threads"], device="cpu",
                                   deterministic="strict")))
    segmented, _ = load_checkpoint(checkpoints / "model.pt")
    alone, _ = load_checkpoint(out / "model.pt")
    a, b = segmented.state_dict(), alone.state_dict()
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
    columns = ["epoch", "train_loss", "lr", "val_mean_r1"]
    assert pd.read_csv(checkpoints / "train_log.csv")[columns].equals(
        pd.read_csv(out / "log.csv")[columns])
    assert (checkpoints / "val.json").read_text() == (out / "val.json").read_text()


def test_sharded_choice_pairs_equal_one_jobs_on_the_real_format_run(real_run, tmp_path):
    """BLIP-2 FLAN-T5's choice pairs and text priors ran in 3 shards (tests/paper_run.py);
    rule score_generative_choice, run as one job on a copy of the run, writes the same
    files byte for byte."""
    work, config_file = real_run
    logs = sorted((work / "logs" / "score_pairs" / "blip2_t5" / "choice").glob("*.log"))
    assert [p.stem for p in logs] == ["0-of-3", "1-of-3", "2-of-3"]
    spans = [re.search(r"chunks (\d+):(\d+) of (\d+) .*calls (\d+):(\d+) of (\d+)",
                       p.read_text()).groups() for p in logs]
    assert sum(int(s[1]) > int(s[0]) for s in spans) >= 2, spans  # pairs really split
    assert sum(int(s[4]) > int(s[3]) for s in spans) >= 2, spans  # and prior calls
    copy = tmp_path / "work"
    shutil.copytree(work, copy, symlinks=True)
    outputs = sorted(p.relative_to(work) for folder in ("scores", "priors")
                     for p in (work / "results" / folder / "blip2_t5").glob("*.*"))
    assert len(outputs) > 10 and any(p.name == "prior_images.json" for p in outputs)
    for path in outputs:
        (copy / path).unlink()
    config = yaml.safe_load(Path(config_file).read_text())
    config["shards"]["counts"]["pairs"] = {"blip2_t5": 1}
    one_job = tmp_path / "one_job.yaml"
    one_job.write_text(yaml.safe_dump(config))
    done = snakemake(*map(str, outputs), "--cores", "2", "--configfile", str(one_job),
                     "--allowed-rules", "score_generative_choice", cwd=copy)
    assert done.returncode == 0, done.stderr[-3000:]
    for path in outputs:
        assert (copy / path).read_bytes() == (work / path).read_bytes(), path


def test_the_tiny_runs_embedding_jobs_sized_their_batch_and_said_so(tiny_run):
    """tests/data/tiny_config.yaml asks for ``auto``: every embedding job ran the CPU batch
    and its log says how it was found."""
    logs = sorted((tiny_run / "logs" / "embed").glob("*.log"))
    assert logs
    for log in logs:
        assert "embed.batch_size: 64 (auto on cpu: the CPU batch)" in log.read_text(), log

