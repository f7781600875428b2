# Training runs: each run's inputs, its segments and their requests (rules in train.smk).

# a run's optimisation steps in segments, one job each (config shards; vlcomp.plan.estimates)
TRAIN_JOBS = {r: stage_job(config, "train", r) for r in RUNS}


def train_inputs(wildcards):
    """A run's data, the checkpoint it starts from, and its hard negatives / neighbours."""
    run = RUNS[wildcards.run]
    data = run.get("dataset", "world")
    inputs = {
        "images": f"results/data/{data}/images.parquet",
        "captions": f"results/data/{data}/captions.parquet",
    }
    if "init" in run:
        inputs["init"] = f"results/checkpoints/{run['init']}/model.pt"
    if "init_model" in run:
        inputs["init_model"] = model_files(run["init_model"])
    release = released_rows(config, run)  # BiVLC's TROHN rows: one instance per row
    if release == "trohn_text":
        inputs["instances"] = f"results/negatives/{data}/sugarcrepe_release.parquet"
        inputs["val_instances"] = (
            f"results/negatives/{data}/sugarcrepe_release_val.parquet"
        )
    elif "negatives" in run:
        inputs["negatives"] = f"results/negatives/{data}/{run['negatives']}.parquet"
    if "generated" in run:
        inputs["instances"] = f"results/generated/{run['generated']}/instances.parquet"
    if release == "trohn_img":
        inputs["val_instances"] = "results/generated/trohn_img/instances_val.parquet"
    if released_negatives(config, run):  # the release's rows, negatives and neighbours
        inputs["pairs"] = f"results/pairs/{data}/{run['negatives']}_release.parquet"
    elif "neighbours" in run:
        nn = run["neighbours"]
        inputs["pairs"] = (
            f"results/pairs/{data}/nn_{nn['model']}_train_k{nn['k']}.parquet"
        )
    return inputs


def train_segment(wildcards) -> str:
    """The segment a train job runs: its wildcard, or the run's last one (rule train_clip)."""
    return getattr(wildcards, "segment", None) or last_train_segment(wildcards.run)


def last_train_segment(run: str) -> str:
    return shard_names(TRAIN_JOBS[run].shards)[-1]


def train_segment_inputs(wildcards):
    """`train_inputs` and, after a run's first segment, the state its predecessor left."""
    inputs = train_inputs(wildcards)
    index, count = parse_shard(train_segment(wildcards))
    if index > 0:
        inputs["start_state"] = (
            f"results/checkpoints/{wildcards.run}/segments/{index - 1}-of-{count}.pt"
        )
    return inputs


def train_resources(wildcards) -> dict:
    """A train segment's runtime (estimate) and memory (the run's ``mem_mb``, else estimate)."""
    job = TRAIN_JOBS[wildcards.run]
    return {
        "runtime": job.runtime,
        "mem_mb": RUNS[wildcards.run].get("mem_mb", job.mem_mb),
    }
