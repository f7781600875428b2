# VisualGPTScore's other benchmarks (Lin et al. Tables 1, 2, 4): CREPE's productivity set (one
# benchmark per negative type), VL-CheckList Relation, EqBen and Winoground's No-Tag subset.
# Each comes from its release or, where the world can say it, from the world's test scenes;
# both write the same targets, scored by the generic rules of score.smk.


if CREPE_RELEASE:

    rule crepe_release:
        input:
            release="resources/crepe/prod",
            images="resources/vg/images",
        output:
            benchmark="results/benchmarks/{benchmark}.parquet",
            imageset="results/imagesets/{benchmark}.parquet",
        log:
            "logs/benchmarks/{benchmark}.log",
        benchmark:
            "benchmarks/crepe_release/{benchmark}.tsv"
        wildcard_constraints:
            benchmark=union(CREPE_RELEASE),
        conda:
            "../../envs/core.yaml"
        threads: 1
        resources:
            mem_mb=2000,
            runtime=30,
        params:
            negatives=crepe_negatives,
            complexities=lambda wc: BENCHMARK_SPECS[wc.benchmark].get(
                "complexities", list(range(4, 13))
            ),
            tie_policy=lambda wc: BENCHMARK_SPECS[wc.benchmark].get(
                "tie_policy", "lenient"
            ),
        script:
            "../scripts/crepe_release.py"


if CREPE_WORLD:

    rule crepe_world:
        input:
            scenes="results/data/world/scenes.jsonl",
        output:
            "results/benchmarks/{benchmark}.parquet",
        log:
            "logs/benchmarks/{benchmark}.log",
        benchmark:
            "benchmarks/crepe_world/{benchmark}.tsv"
        wildcard_constraints:
            benchmark=union(CREPE_WORLD),
        conda:
            "../../envs/core.yaml"
        threads: 1
        resources:
            mem_mb=2000,
            runtime=30,
        params:
            world=WORLD,
            negatives=crepe_negatives,
            complexities=lambda wc: BENCHMARK_SPECS[wc.benchmark].get("complexities"),
            seed=lambda wc: BENCHMARK_SPECS[wc.benchmark].get("seed", 0),
        script:
            "../scripts/crepe_world.py"


if "vl_checklist" in BENCHMARKS and source_of("vl_checklist") == "release":

    rule vl_checklist_release:
        input:
            unpack(vl_checklist_inputs),
        output:
            benchmark="results/benchmarks/vl_checklist.parquet",
            imageset="results/imagesets/vl_checklist.parquet",
            report="results/benchmarks/vl_checklist_sampling.json",
        log:
            "logs/benchmarks/vl_checklist.log",
        benchmark:
            "benchmarks/vl_checklist_release.tsv"
        conda:
            "../../envs/core.yaml"
        threads: 1
        resources:
            mem_mb=4000,
            runtime=30,
        params:
            release="resources/vl_checklist/release",
            corpora=VL_CHECKLIST_CORPORA,
            image_roots={c: VL_CHECKLIST_IMAGES[c] for c in VL_CHECKLIST_CORPORA},
            missing=BENCHMARK_SPECS["vl_checklist"].get("missing_images", "skip"),
            max_missing=BENCHMARK_SPECS["vl_checklist"].get("max_missing", 0.01),
            max_per_corpus=BENCHMARK_SPECS["vl_checklist"].get("max_per_corpus", 1000),
        script:
            "../scripts/vl_checklist_release.py"

elif "vl_checklist" in BENCHMARKS:

    rule vl_checklist_world:
        input:
            scenes="results/data/world/scenes.jsonl",
        output:
            "results/benchmarks/vl_checklist.parquet",
        log:
            "logs/benchmarks/vl_checklist.log",
        benchmark:
            "benchmarks/vl_checklist_world.tsv"
        conda:
            "../../envs/core.yaml"
        threads: 1
        resources:
            mem_mb=2000,
            runtime=30,
        params:
            world=WORLD,
            seed=BENCHMARK_SPECS["vl_checklist"].get("seed", 0),
        script:
            "../scripts/vl_checklist_world.py"


if "eqben" in BENCHMARKS and source_of("eqben") == "release":

    rule eqben_release:
        input:
            annotation="resources/eqben/val/eqben_subset_10percent_final.json",
            images="resources/eqben/val/images",
        output:
            benchmark="results/benchmarks/eqben.parquet",
            imageset="results/imagesets/eqben.parquet",
            frames=directory("results/images/eqben_frames"),
        log:
            "logs/benchmarks/eqben.log",
        benchmark:
            "benchmarks/eqben_release.tsv"
        conda:
            "../../envs/core.yaml"
        threads: 1
        resources:
            mem_mb=lambda wc, attempt: by_attempt(8000, attempt),
            runtime=lambda wc, attempt: runtime_by_attempt(120, attempt),
        params:
            expected_items=BENCHMARK_SPECS["eqben"].get("expected_items"),
        script:
            "../scripts/eqben_release.py"

elif "eqben" in BENCHMARKS:

    rule eqben_world:
        input:
            captions="results/data/world/captions.parquet",
            scenes="results/data/world/scenes.jsonl",
        output:
            benchmark="results/benchmarks/eqben.parquet",
            images=directory("results/images/eqben_world"),
            imageset="results/imagesets/eqben_world.parquet",
        log:
            "logs/benchmarks/eqben.log",
        benchmark:
            "benchmarks/eqben_world.tsv"
        conda:
            "../../envs/core.yaml"
        threads: 1
        resources:
            mem_mb=4000,
            runtime=60,
        params:
            world=WORLD,
            seed=BENCHMARK_SPECS["eqben"].get("seed", 0),
        script:
            "../scripts/eqben_world.py"


if "winoground_no_tag" in BENCHMARKS:

    rule winoground_no_tag:
        input:
            winoground="results/benchmarks/winoground.parquet",
            images="results/imagesets/winoground.parquet",
            tags="resources/winoground/new_tag_assignments.json",
        output:
            benchmark="results/benchmarks/winoground_no_tag.parquet",
            imageset="results/imagesets/winoground_no_tag.parquet",
        log:
            "logs/benchmarks/winoground_no_tag.log",
        benchmark:
            "benchmarks/winoground_no_tag.tsv"
        conda:
            "../../envs/core.yaml"
        threads: 1
        resources:
            mem_mb=1000,
            runtime=10,
        params:
            exclude=BENCHMARK_SPECS["winoground_no_tag"].get("exclude", []),
        script:
            "../scripts/winoground_no_tag.py"
