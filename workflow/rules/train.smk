rule train_clip:
    input:
        images="results/data/world/images.parquet",
        captions="results/data/world/captions.parquet",
    output:
        model="results/checkpoints/{run}/model.pt",
        log_csv="results/checkpoints/{run}/train_log.csv",
        val="results/checkpoints/{run}/val.json",
    params:
        run=lambda wc: config["train"][wc.run],
        threads=config["compute"]["threads"],
        device=config["compute"]["device"],
    threads: config["compute"]["threads"]
    resources:
        gpu=config["compute"]["gpus"],
        mem_mb=8000,
        runtime=120,
    log:
        "logs/train/{run}.log",
    benchmark:
        "benchmarks/train_{run}.tsv"
    script:
        "../scripts/train_clip.py"
