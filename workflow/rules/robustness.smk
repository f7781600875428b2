# Robustness (ARO Tables 3-4, Hendriksen et al.): WordNet, the galleries, their perturbed
# queries and shuffled images, each model's retrieval over them, and the tables.


rule wordnet:
    input:
        WORDNET_INPUTS,
    output:
        directory("resources/wordnet"),
    log:
        "logs/resources/wordnet.log",
    benchmark:
        "benchmarks/wordnet.tsv"
    conda:
        "../../envs/nlp.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    params:
        source=WORDNET_DICT,
    script:
        "../scripts/build_wordnet.py"


rule imageset_folder:
    input:
        "results/data/{dataset}/images.parquet",
    output:
        "results/imagesets/{dataset}_folder_extra.parquet",
    log:
        "logs/imagesets/{dataset}_folder_extra.log",
    benchmark:
        "benchmarks/imageset_folder/{dataset}.tsv"
    conda:
        "../../envs/core.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    script:
        "../scripts/imageset_folder.py"


rule robustness_gallery:
    input:
        unpack(gallery_inputs),
    output:
        gallery="results/benchmarks/robustness/{gallery}/gallery.parquet",
        queries="results/benchmarks/robustness/{gallery}/queries.parquet",
        t2i_extra="results/benchmarks/robustness/{gallery}/t2i_extra.parquet",
    log:
        "logs/benchmarks/robustness_{gallery}.log",
    benchmark:
        "benchmarks/robustness_gallery/{gallery}.tsv"
    wildcard_constraints:
        gallery="|".join(ROBUSTNESS.get("galleries", {})) or "none",
    conda:
        "../../envs/core.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        spec=lambda wc: ROBUSTNESS["galleries"][wc.gallery],
        imagesets=lambda wc: {
            "test": GALLERY_IMAGESET[wc.gallery],
            "folder": FOLDER_IMAGESET.get(wc.gallery, ""),
        },
        fg=lambda wc: DATASETS[GALLERY_DATASET[wc.gallery]].get("fg", False),
    script:
        "../scripts/robustness_gallery.py"


rule perturb_texts:
    input:
        perturbed_queries=robustness_gallery_files(
            "queries", ROBUSTNESS.get("perturbed_galleries", [])
        ),
        queries=robustness_gallery_files("queries"),
        wordnet=rules.wordnet.output[0],
    output:
        perturbed="results/perturbed/robustness/queries.parquet",
        texts="results/benchmarks/robustness/texts.parquet",
    log:
        "logs/perturb/robustness_queries.log",
    benchmark:
        "benchmarks/perturb_texts.tsv"
    conda:
        "../../envs/nlp.yaml"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=120,
    params:
        galleries=ROBUSTNESS.get("perturbed_galleries", []),
        perturbations=TEXT_PERTURBATIONS,
        order=ROBUSTNESS.get("text_perturbations", []),
        seeds=ROBUSTNESS_SEEDS,
        synonym_k=ROBUSTNESS.get("synonym_k", 1),
        typo_impl=ROBUSTNESS.get("typo_impl", "reference"),
        distraction_wording=ROBUSTNESS.get("distraction_wording", "code"),
        shuffle_tokens=ROBUSTNESS.get("shuffle_tokens", "spacy"),
        spacy_model=config["nlp"]["spacy_model"],
    script:
        "../scripts/perturb_texts.py"


rule perturb_images:
    input:
        "results/imagesets/{dataset}_test.parquet",
    output:
        images=directory("results/images/{dataset}_test_{perturbation}_s{seed}"),
        imageset="results/imagesets/{dataset}_test_{perturbation}_s{seed}.parquet",
    log:
        "logs/perturb/{dataset}_test_{perturbation}_s{seed}.log",
    benchmark:
        "benchmarks/perturb_images/{dataset}/{perturbation}/{seed}.tsv"
    wildcard_constraints:
        perturbation="shuffle_rows|shuffle_columns|shuffle_patches",
    conda:
        "../../envs/core.yaml"
    threads: 1
    resources:
        mem_mb=lambda wc, attempt: by_attempt(8000, attempt),
        runtime=lambda wc, attempt: runtime_by_attempt(120, attempt),
    params:
        where=ROBUSTNESS.get("image_shuffle", "preprocessed"),
    script:
        "../scripts/perturb_images.py"


# Galleries re-ranked by ITM (a gallery's rerank; vlcomp.score.robustness_rerank): each
# condition's k_test candidates by the embedding cosine, scored by ITM + ITC in shards of
# whole conditions.
rule robustness_rerank_candidates:
    input:
        images=lambda wc: robustness_embeddings(wc.model)["model_images"],
        texts=lambda wc: robustness_embeddings(wc.model)["model_texts"],
        galleries=robustness_gallery_files("gallery"),
        queries=robustness_gallery_files("queries"),
        t2i_extra=robustness_gallery_files("t2i_extra"),
        perturbed="results/perturbed/robustness/queries.parquet",
        model_yaml=lambda wc: xvlm_yaml(wc.model),
    output:
        "results/scores/{model}/robustness_rerank/candidates.npz",
    log:
        "logs/rerank/{model}/robustness/candidates.log",
    benchmark:
        "benchmarks/robustness_rerank_candidates/{model}.tsv"
    wildcard_constraints:
        model=union(ROBUSTNESS_RERANK_K),
    conda:
        "../../envs/core.yaml"
    threads: 1
    resources:
        mem_mb=lambda wc, attempt: by_attempt(8000, attempt),
        runtime=lambda wc, attempt: runtime_by_attempt(60, attempt),
    params:
        galleries=list(ROBUSTNESS.get("galleries", {})),
        k_test=lambda wc: ROBUSTNESS_RERANK_K[wc.model],
        perturbed_galleries=ROBUSTNESS.get("perturbed_galleries", []),
        imagesets=BENCHMARK_IMAGESETS.get("robustness", []),
        gallery_imagesets=GALLERY_IMAGESET,
        image_conditions=IMAGE_CONDITIONS,
        text_perturbations=TEXT_PERTURBATIONS,
    script:
        "../scripts/robustness_rerank_candidates.py"


rule robustness_rerank_shard:
    input:
        candidates="results/scores/{model}/robustness_rerank/candidates.npz",
        galleries=robustness_gallery_files("gallery"),
        queries=robustness_gallery_files("queries"),
        t2i_extra=robustness_gallery_files("t2i_extra"),
        perturbed="results/perturbed/robustness/queries.parquet",
        imagesets=expand(
            "results/imagesets/{imageset}.parquet",
            imageset=BENCHMARK_IMAGESETS.get("robustness", []),
        ),
        model=model_inputs,
    output:
        "results/scores/{model}/robustness_rerank/shards/{shard}.npz",
    log:
        "logs/rerank/{model}/robustness/{shard}.log",
    benchmark:
        "benchmarks/robustness_rerank_shard/{model}/{shard}.tsv"
    wildcard_constraints:
        model=union(ROBUSTNESS_RERANK_K),
        shard=SHARD_PATTERN,
    conda:
        TORCH_ENV
    threads: MODEL_THREADS
    resources:
        gpu=lambda wc: GPUS if ROBUSTNESS_RERANK_JOBS[wc.model].device == "gpu" else 0,
        mem_mb=lambda wc, attempt: by_attempt(
            ROBUSTNESS_RERANK_JOBS[wc.model].mem_mb, attempt
        ),
        runtime=lambda wc, attempt: runtime_by_attempt(
            ROBUSTNESS_RERANK_JOBS[wc.model].runtime, attempt
        ),
    params:
        galleries=list(ROBUSTNESS.get("galleries", {})),
        k_test=lambda wc: ROBUSTNESS_RERANK_K[wc.model],
        perturbed_galleries=ROBUSTNESS.get("perturbed_galleries", []),
        imagesets=BENCHMARK_IMAGESETS.get("robustness", []),
        gallery_imagesets=GALLERY_IMAGESET,
        image_conditions=IMAGE_CONDITIONS,
        text_perturbations=TEXT_PERTURBATIONS,
        entry=lambda wc: model_entry(wc.model),
        kind=lambda wc: MODEL_ENTRIES[wc.model]["pair_score"],
        batch_size=EMBED["pair_batch_size"],
        image_batch=VISION_BATCH,
        threads=MODEL_THREADS,
        device=config["compute"]["device"],
        autocast=model_precision("pairs"),
    script:
        "../scripts/robustness_rerank_shard.py"


rule robustness_rerank_gather:
    input:
        candidates="results/scores/{model}/robustness_rerank/candidates.npz",
        shards=robustness_rerank_shards,
    output:
        "results/scores/{model}/robustness_rerank.npz",
    log:
        "logs/rerank/{model}/robustness/gather.log",
    benchmark:
        "benchmarks/robustness_rerank_gather/{model}.tsv"
    wildcard_constraints:
        model=union(ROBUSTNESS_RERANK_K),
    conda:
        "../../envs/core.yaml"
    threads: 1
    resources:
        mem_mb=lambda wc, attempt: by_attempt(16000, attempt),
        runtime=lambda wc, attempt: runtime_by_attempt(60, attempt),
    script:
        "../scripts/robustness_rerank_gather.py"


rule robustness_metrics:
    input:
        unpack(lambda wc: robustness_embeddings(wc.model)),
        galleries=robustness_gallery_files("gallery"),
        queries=robustness_gallery_files("queries"),
        t2i_extra=robustness_gallery_files("t2i_extra"),
        perturbed="results/perturbed/robustness/queries.parquet",
        reranked=robustness_reranked,
    output:
        json="results/metrics/{model}/robustness.json",
        csv="results/metrics/{model}/robustness.csv",
        outcomes="results/metrics/{model}/robustness_items.parquet",
    log:
        "logs/metrics/{model}/robustness.log",
    benchmark:
        "benchmarks/robustness_metrics/{model}.tsv"
    conda:
        "../../envs/core.yaml"
    threads: 1
    resources:
        mem_mb=4000,
        # folder galleries: each COCO condition ranks 25k queries x 40.5k images
        runtime=180 if FOLDER_IMAGESET else 60,
    params:
        galleries=list(ROBUSTNESS.get("galleries", {})),
        gallery_specs=ROBUSTNESS.get("galleries", {}),
        gallery_tables=GALLERY_TABLES,
        perturbed_galleries=ROBUSTNESS.get("perturbed_galleries", []),
        imagesets=BENCHMARK_IMAGESETS.get("robustness", []),
        gallery_imagesets=GALLERY_IMAGESET,
        image_conditions=IMAGE_CONDITIONS,
        text_perturbations=TEXT_PERTURBATIONS,
        relevance_model=RELEVANCE_MODEL,
    script:
        "../scripts/robustness_metrics.py"


rule uncertainty_robustness:
    input:
        expand(
            "results/metrics/{model}/robustness_items.parquet", model=EMBEDDING_MODELS
        ),
    output:
        intervals=report(
            "results/uncertainty/robustness.csv",
            caption="../report/uncertainty_robustness.rst",
            category="Uncertainty",
            subcategory="robustness",
        ),
        comparisons=report(
            "results/uncertainty/robustness_comparisons.csv",
            caption="../report/uncertainty_robustness.rst",
            category="Uncertainty",
            subcategory="robustness",
        ),
    log:
        "logs/uncertainty/robustness.log",
    benchmark:
        "benchmarks/uncertainty_robustness.tsv"
    conda:
        "../../envs/core.yaml"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=30,
    params:
        models=EMBEDDING_MODELS,
        groups=MODEL_GROUPS,
        resamples=UNCERTAINTY["resamples"],
        seed=UNCERTAINTY["seed"],
        confidence=UNCERTAINTY["confidence"],
        method=UNCERTAINTY["method"],
        gallery_tables=GALLERY_TABLES,
    script:
        "../scripts/uncertainty_robustness.py"


rule granularity_statistics:
    input:
        queries=robustness_gallery_files("queries"),
        wordnet=rules.wordnet.output[0],
    output:
        csv=report(
            "results/tables/robustness/granularity_statistics.csv",
            caption="../report/robustness.rst",
            category="Robustness",
        ),
        md="results/tables/robustness/granularity_statistics.md",
        intervals="results/uncertainty/granularity.csv",
    log:
        "logs/report/granularity_statistics.log",
    benchmark:
        "benchmarks/granularity_statistics.tsv"
    conda:
        "../../envs/nlp.yaml"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=120,
    params:
        galleries=list(ROBUSTNESS.get("galleries", {})),
        spacy_model=config["nlp"]["spacy_model"],
        resamples=UNCERTAINTY["resamples"],
        seed=UNCERTAINTY["seed"],
        confidence=UNCERTAINTY["confidence"],
        method=UNCERTAINTY["method"],
    script:
        "../scripts/granularity_statistics.py"


rule table_robustness:
    input:
        metrics_files(["robustness"]),
    output:
        csv=report(
            "results/tables/robustness/{table}.csv",
            caption="../report/robustness.rst",
            category="ITR robustness",
        ),
        md="results/tables/robustness/{table}.md",
    log:
        "logs/report/robustness_{table}.log",
    benchmark:
        "benchmarks/table_robustness/{table}.tsv"
    wildcard_constraints:
        table="aro_table3|aro_table4|hendriksen|granularity",
    conda:
        "../../envs/core.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        table=lambda wc: f"robustness_{wc.table}",
        groups=MODEL_GROUPS,
        options={},
        notes=lambda wc: fg_notes(
            wc.table, ROBUSTNESS.get("galleries", {}), config.get("datasets", {})
        ),
    script:
        "../scripts/report_table.py"


# BISON Table 1 on the world: are text-to-image R@1 "errors" errors? The oracle judges the
# image each model ranks above a missed query's own, on a gallery of COCO-like captions.
rule retrieval_errors:
    input:
        gallery="results/benchmarks/robustness/{gallery}/gallery.parquet",
        queries="results/benchmarks/robustness/{gallery}/queries.parquet",
        images=lambda wc: [
            f"results/embeddings/{m}/images/{GALLERY_IMAGESET[wc.gallery]}.npy"
            for m in EMBEDDING_MODELS
        ],
        texts=expand(
            "results/embeddings/{model}/texts/robustness.npy", model=EMBEDDING_MODELS
        ),
        scenes="results/data/world/scenes.jsonl",
    output:
        "results/uncertainty/retrieval_errors_{gallery}.csv",
    log:
        "logs/uncertainty/retrieval_errors_{gallery}.log",
    benchmark:
        "benchmarks/retrieval_errors/{gallery}.tsv"
    wildcard_constraints:
        gallery=union(JUDGED_GALLERIES) if JUDGED_GALLERIES else "^$",
    conda:
        "../../envs/core.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        models=EMBEDDING_MODELS,
        world=WORLD,
        resamples=UNCERTAINTY["resamples"],
        seed=UNCERTAINTY["seed"],
        confidence=UNCERTAINTY["confidence"],
        method=UNCERTAINTY["method"],
    script:
        "../scripts/retrieval_errors.py"
