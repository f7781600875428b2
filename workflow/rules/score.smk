rule embed_images:
    input:
        imageset="results/imagesets/{imageset}.parquet",
        model=model_inputs,
    output:
        npy="results/embeddings/{model}/images/{imageset}.npy",
        ids="results/embeddings/{model}/images/{imageset}.ids.json",
    log:
        "logs/embed/{model}/images_{imageset}.log",
    conda:
        "../../envs/torch.yaml"
    threads: config["compute"]["threads"]
    resources:
        gpu=config["compute"]["gpus"],
    params:
        entry=lambda wc: model_entry(wc.model),
        batch_size=config["embed"].get("batch_size", 256),
        threads=config["compute"]["threads"],
        device=config["compute"]["device"],
    script:
        "../scripts/embed_images.py"


rule embed_texts:
    input:
        benchmark="results/benchmarks/{benchmark}.parquet",
        model=model_inputs,
    output:
        npy="results/embeddings/{model}/texts/{benchmark}.npy",
        ids="results/embeddings/{model}/texts/{benchmark}.ids.json",
    log:
        "logs/embed/{model}/texts_{benchmark}.log",
    conda:
        "../../envs/torch.yaml"
    threads: config["compute"]["threads"]
    resources:
        gpu=config["compute"]["gpus"],
    params:
        entry=lambda wc: model_entry(wc.model),
        batch_size=config["embed"].get("batch_size", 256),
        threads=config["compute"]["threads"],
        device=config["compute"]["device"],
    script:
        "../scripts/embed_texts.py"


rule score:
    input:
        benchmark="results/benchmarks/{benchmark}.parquet",
        images=benchmark_image_embeddings,
        texts="results/embeddings/{model}/texts/{benchmark}.npy",
    output:
        "results/scores/{model}/{benchmark}.parquet",
    log:
        "logs/score/{model}/{benchmark}.log",
    conda:
        "../../envs/core.yaml"
    script:
        "../scripts/score.py"


rule metrics:
    input:
        benchmark="results/benchmarks/{benchmark}.parquet",
        scores="results/scores/{model}/{benchmark}.parquet",
    output:
        json="results/metrics/{model}/{benchmark}.json",
        csv="results/metrics/{model}/{benchmark}.csv",
    log:
        "logs/metrics/{model}/{benchmark}.log",
    conda:
        "../../envs/core.yaml"
    params:
        kind=lambda wc: BENCHMARK_KIND[wc.benchmark],
        options=lambda wc: metric_options(wc.benchmark),
    script:
        "../scripts/metrics.py"
