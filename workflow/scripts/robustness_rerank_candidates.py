"""Each condition's k_test re-ranking candidates by the model's embedding cosine, both
directions, for every re-ranked robustness gallery (`vlcomp.score.robustness_rerank`)."""

from vlcomp.io import read_parquet, write_npz
from vlcomp.jobs import job_log
from vlcomp.models.xvlm_k_test import check_k_test
from vlcomp.score.robustness_rerank import (
    candidate_file,
    gallery_candidates,
    read_embeddings,
    read_galleries,
)

with job_log(snakemake.log[0]) as log:
    p, inp = snakemake.params, snakemake.input
    if inp.model_yaml:  # X-VLM ranks with its YAML's k_test, as ARO's wrapper
        check_k_test(snakemake.wildcards.model, p.k_test, inp.model_yaml[0])
    model = read_embeddings(p.imagesets, inp.images, inp.texts)
    files = {"galleries": inp.galleries, "queries": inp.queries, "t2i_extra": inp.t2i_extra}
    galleries = read_galleries(p.galleries, files, read_parquet(inp.perturbed),
                               p.perturbed_galleries, p.image_conditions, p.gallery_imagesets,
                               p.k_test, p.text_perturbations)
    parts = []
    for gallery in galleries:
        parts.append(gallery_candidates(gallery, model))
        log.info("%s: k_test %d, %d conditions", gallery.name, gallery.k_test,
                 sum(name.endswith(".i2t") for name in parts[-1]))
    write_npz(candidate_file(parts), snakemake.output[0])
