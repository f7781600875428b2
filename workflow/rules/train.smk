rule train_clip:
    input:
        images="results/data/world/images.parquet",
        captions="results/data/world/captions.parquet",
    output:
        model="results/checkpoints/{run}/model.pt",
        log_csv="results/checkpoints/{run}/train_log.csv",
        val="results/checkpoints/{run}/val.json",
    log:
        "logs/train/{run}.log",
    benchmark:
        "benchmarks/train_{run}.tsv"
    conda:
        "../../envs/torch.yaml"
    threads: config["compute"]["threads"]
    resources:
        gpu=config["compute"]["gpus"],
        mem_mb=8000,
        runtime=120,
    params:
        run=lambda wc: config["train"][wc.run],
        # Not an output: it must survive a killed job so that a rerun resumes from it.
        resume=lambda wc: f"results/checkpoints/{wc.run}/resume_state.pt",
        threads=config["compute"]["threads"],
        device=config["compute"]["device"],
    script:
        "../scripts/train_clip.py"
