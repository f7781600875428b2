rule embed_images:
    input:
        imageset="results/imagesets/{imageset}.parquet",
        model=model_inputs,
    output:
        npy="results/embeddings/{model}/images/{imageset}.npy",
        ids="results/embeddings/{model}/images/{imageset}.ids.json",
    params:
        entry=lambda wc: model_entry(wc.model),
        batch_size=config["embed"].get("batch_size", 256),
        threads=config["compute"]["threads"],
        device=config["compute"]["device"],
    threads: config["compute"]["threads"]
    resources:
        gpu=config["compute"]["gpus"],
    log:
        "logs/embed/{model}/images_{imageset}.log",
    script:
        "../scripts/embed_images.py"


rule embed_texts:
    input:
        benchmark="results/benchmarks/{benchmark}.parquet",
        model=model_inputs,
    output:
        npy="results/embeddings/{model}/texts/{benchmark}.npy",
        ids="results/embeddings/{model}/texts/{benchmark}.ids.json",
    params:
        entry=lambda wc: model_entry(wc.model),
        batch_size=config["embed"].get("batch_size", 256),
        threads=config["compute"]["threads"],
        device=config["compute"]["device"],
    threads: config["compute"]["threads"]
    resources:
        gpu=config["compute"]["gpus"],
    log:
        "logs/embed/{model}/texts_{benchmark}.log",
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
    script:
        "../scripts/score.py"


rule metrics:
    input:
        benchmark="results/benchmarks/{benchmark}.parquet",
        scores="results/scores/{model}/{benchmark}.parquet",
    output:
        json="results/metrics/{model}/{benchmark}.json",
        csv="results/metrics/{model}/{benchmark}.csv",
    params:
        kind=lambda wc: BENCHMARK_KIND[wc.benchmark],
        options=lambda wc: metric_options(wc.benchmark),
    log:
        "logs/metrics/{model}/{benchmark}.log",
    script:
        "../scripts/metrics.py"
