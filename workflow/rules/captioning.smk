# BISON Tables 4 / 6 (Hu et al.) on the captioners configured here (hf_blip_lm): captions of a
# caption dataset's test images by BLIP's COCO decoding, scored by COCO caption metrics beside
# each captioner's BISON accuracy.


rule generate_captions:
    input:
        images="results/imagesets/{dataset}_test.parquet",
        model=model_inputs,
    output:
        "results/captions/{model}/{dataset}_test.parquet",
    log:
        "logs/captions/{model}/{dataset}_test.log",
    benchmark:
        "benchmarks/generate_captions/{model}/{dataset}_test.tsv"
    wildcard_constraints:
        model=union(CAPTIONING_MODELS),
    conda:
        TORCH_ENV
    threads: MODEL_THREADS
    resources:
        gpu=GPUS,
        # 5,000 COCO test images, beam search 3, 20 new tokens at most
        mem_mb=lambda wc, attempt: by_attempt(
            estimated_job("captions", wc.model).mem_mb, attempt
        ),
        runtime=lambda wc, attempt: runtime_by_attempt(
            estimated_job("captions", wc.model).runtime, attempt
        ),
    params:
        entry=lambda wc: model_entry(wc.model),
        decoding=CAPTION_DECODING,
        batch_size=CAPTIONING_SETTINGS["batch_size"],
        threads=MODEL_THREADS,
        device=config["compute"]["device"],
        autocast=model_precision("generative"),
    script:
        "../scripts/generate_captions.py"


if BISON_CAPTIONING:

    rule table_bison_captioners:
        input:
            captions=expand(
                "results/captions/{model}/{dataset}_test.parquet",
                model=CAPTIONING_MODELS,
                dataset=BISON_CAPTIONING["dataset"],
            ),
            images=f"results/imagesets/{BISON_CAPTIONING['dataset']}_test.parquet",
            references=f"results/data/{BISON_CAPTIONING['dataset']}/captions.parquet",
            bison=expand("results/metrics/{model}/bison.json", model=CAPTIONING_MODELS),
            bison_items="results/benchmarks/bison.parquet",
            bison_scores=expand(
                "results/scores/{model}/bison.parquet", model=CAPTIONING_MODELS
            ),
            spice=spice_inputs(BISON_CAPTIONING["metrics"]),
        output:
            json="results/metrics/bison_table4.json",
            # BISON Figure 8: caption scores of the items predicted right vs wrong
            figure8="results/uncertainty/bison_figure8.csv",
            csv=report(
                "results/tables/bison/table4.csv",
                caption="../report/bison_table4.rst",
                category="BISON",
            ),
            md="results/tables/bison/table4.md",
        log:
            "logs/report/table_bison_captioners.log",
        benchmark:
            "benchmarks/table_bison_captioners.tsv"
        conda:
            "../../envs/core.yaml"
        threads: 1
        resources:
            mem_mb=lambda wc, attempt: by_attempt(8000, attempt),
            runtime=lambda wc, attempt: runtime_by_attempt(120, attempt),  # PTB tokenizer and METEOR (Java) over 5,000 captions per model
        params:
            models=CAPTIONING_MODELS,
            groups=CAPTIONER_GROUPS,
            metrics=BISON_CAPTIONING["metrics"],
            tokenizer=BISON_CAPTIONING["tokenizer"],
            dataset=BISON_CAPTIONING["dataset"],
            decoding=CAPTION_DECODING,
            resamples=UNCERTAINTY["resamples"],
            bootstrap_seed=UNCERTAINTY["seed"],
            confidence=UNCERTAINTY["confidence"],
        script:
            "../scripts/table_bison_captioners.py"
