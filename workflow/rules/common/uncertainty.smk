# Uncertainty: the models each benchmark's bootstrap compares, the blind baselines' sources
# (rules in uncertainty.smk).


def uncertainty_models(benchmark):
    """The models of a benchmark's uncertainty tables: every model, and the blind baselines
    where image->text choices exist (P(t|null) only where the text prior is computed).
    """
    if benchmark not in BLIND_BENCHMARKS:
        return list(MODELS)
    blind = [
        b for b in BLIND_MODELS if b == "blind_ngram" or benchmark in ALPHA_BENCHMARKS
    ]
    return list(MODELS) + blind


def blind_sources(wildcards):
    """A blind baseline's inputs: the training captions, or a captioner's text prior of
    each blind benchmark (in `BLIND_BENCHMARKS` order)."""
    if wildcards.blind == "blind_ngram":
        return [f"results/data/{BLIND['dataset']}/captions.parquet"]
    model = wildcards.blind.removeprefix("blind_null_")
    return [f"results/priors/{model}/{b}.parquet" for b in BLIND_BENCHMARKS]
