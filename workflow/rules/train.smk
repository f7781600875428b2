# what every job of a run reads besides its inputs (rules train_clip_segment, train_clip)
TRAIN_PARAMS = {
    "run": lambda wc: RUNS[wc.run],
    # released hard negatives: the run trains on the release's rows only
    "released": lambda wc: released_negatives(config, RUNS[wc.run]),
    # BiVLC's released TROHN rows (trohn_text | trohn_img): one instance per row
    "release": lambda wc: released_rows(config, RUNS[wc.run]),
    "init_entry": lambda wc: (
        model_entry(RUNS[wc.run]["init_model"]) if "init_model" in RUNS[wc.run] else {}
    ),
    "segment": train_segment,
    # Not outputs: they must survive a killed job so that a rerun resumes from them.
    "resume": lambda wc: f"results/checkpoints/{wc.run}/resume/{train_segment(wc)}.pt",
    "epoch_dir": lambda wc: f"results/checkpoints/{wc.run}/epochs",
    "threads": TRAIN_THREADS,
    "device": config["compute"]["device"],
    "deterministic": COMPUTE["deterministic"],
}


# A long run is cut into segments of its optimisation steps, each a job that continues from
# the state its predecessor left; rule train_clip runs the last segment and writes the model.
# The weights equal one unbroken job's.
rule train_clip:
    input:
        unpack(train_segment_inputs),
    output:
        model="results/checkpoints/{run}/model.pt",
        log_csv="results/checkpoints/{run}/train_log.csv",
        val="results/checkpoints/{run}/val.json",
    log:
        "logs/train/{run}.log",
    benchmark:
        "benchmarks/train_clip/{run}.tsv"
    wildcard_constraints:
        run=RUN_PATTERN,
    priority: TRAIN_PRIORITY
    conda:
        TORCH_ENV
    threads: TRAIN_THREADS
    resources:
        gpu=GPUS,
        gpu_model=HEAVY_GPU_MODEL,
        mem_mb=lambda wc, attempt: by_attempt(train_resources(wc)["mem_mb"], attempt),
        runtime=lambda wc, attempt: runtime_by_attempt(
            train_resources(wc)["runtime"], attempt
        ),
    params:
        **TRAIN_PARAMS,
    script:
        "../scripts/train_clip.py"


# The segments before the last: their hand-over states are temporary (gone once the next
# segment has read them).
use rule train_clip as train_clip_segment with:
    output:
        state=temp("results/checkpoints/{run}/segments/{segment}.pt"),
    log:
        "logs/train/{run}/{segment}.log",
    benchmark:
        "benchmarks/train_clip_segment/{run}/{segment}.tsv"
    wildcard_constraints:
        run=RUN_PATTERN,
        segment=SHARD_PATTERN,


if CAPTIONERS:

    rule train_captioner:
        input:
            images=lambda wc: f"results/data/{CAPTIONERS[wc.captioner].get('dataset', 'world')}/images.parquet",
            captions=lambda wc: f"results/data/{CAPTIONERS[wc.captioner].get('dataset', 'world')}/captions.parquet",
        output:
            model=directory("results/checkpoints/{captioner}/hf"),
            log_csv="results/checkpoints/{captioner}/train_log.csv",
            val="results/checkpoints/{captioner}/val.json",
        log:
            "logs/train/{captioner}.log",
        benchmark:
            "benchmarks/train_captioner/{captioner}.tsv"
        wildcard_constraints:
            captioner=CAPTIONER_PATTERN,
        priority: TRAIN_PRIORITY
        conda:
            TORCH_ENV
        threads: TRAIN_THREADS
        resources:
            gpu=GPUS,
            mem_mb=lambda wc, attempt: by_attempt(8000, attempt),
            runtime=lambda wc, attempt: runtime_by_attempt(240, attempt),
        params:
            spec=lambda wc: CAPTIONERS[wc.captioner],
            threads=TRAIN_THREADS,
            deterministic=COMPUTE["deterministic"],
        script:
            "../scripts/train_captioner.py"
