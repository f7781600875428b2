"""VisualGPTScore Table 6's "Null Images": a captioner's log P(t|null) of every test and
validation query of a retrieval benchmark, from a few Gaussian null images
(`vlcomp.score.text_prior.retrieval_null_priors`)."""

from vlcomp.io import write_npz
from vlcomp.jobs import job_log
from vlcomp.models.auto_batch import job_batch
from vlcomp.models.precision import job_scorer
from vlcomp.score.pair_jobs import read_galleries
from vlcomp.score.retrieval_files import SPLITS
from vlcomp.score.text_prior import retrieval_null_priors

with job_log(snakemake.log[0]) as log:
    p, inp = snakemake.params, snakemake.input
    galleries = read_galleries(inp.gallery, inp.queries, inp.test_images, inp.val_images,
                               inp.captions, p.queries, p.gallery_images)
    scorer = job_scorer(snakemake.wildcards.model, p.entry, p.device, p.threads, p.autocast)
    batch = job_batch(scorer, p.batch_size, "pairs", p.device, say=log.info)
    arrays = retrieval_null_priors(scorer, {s: galleries[s].texts for s in SPLITS}, p.null,
                                   p.n, batch)
    write_npz(arrays, snakemake.output[0])
    log.info("%d null images; %s", p.n, ", ".join(
        f"{s}: {len(arrays[s])} queries, mean log P(t|null) {arrays[s].mean():.3f}"
        for s in SPLITS))
