"""Everything one pair-scoring model computes, in one job, each picture through its vision
tower once (`vlcomp.score.pair_plan`): the score matrices of every choice benchmark; for a
captioner (log P(t|i)) also the text priors of the image->text benchmarks (null images, and
optionally sampled training images, each over the union of their texts, beside the text-only
LM priors of rule llm_prior) and the retrieval galleries' score matrices (test and
validation); for a model that also embeds (BLIP ITM, FLAVA) its image and text embeddings,
the images from the same vision states, and the cosine score matrices of the choice
benchmarks it does not score pair by pair (params ``cosine``: benchmark -> its ``images``
and ``texts`` embedding files, FLAVA outside ARO's benchmarks).

Inputs: ``benchmarks`` (choice items, named by params ``choice``), ``imagesets`` (theirs);
optional ``embed_imagesets`` and ``texts`` (image sets and text sources to embed),
``train_images``, ``llm_priors`` (text-only LM priors, rule llm_prior, named by params
``llm``), and per retrieval benchmark (params ``retrieval``) ``galleries``,
``queries``, ``test_images``, ``val_images``, ``captions``.
Outputs: ``scores`` (one per choice benchmark); optional ``priors`` (one per params
``alpha``) and ``prior_images``; ``retrieval`` (npz per retrieval benchmark); ``images``,
``image_ids``, ``texts``, ``text_ids`` (embeddings, as embed_model writes them).
"""

from pathlib import Path

from vlcomp.io import read_parquet, write_npz, write_parquet
from vlcomp.jobs import job_log
from vlcomp.models.auto_batch import job_batch
from vlcomp.models.precision import job_scorer
from vlcomp.models.vision_count import count_vision_passes
from vlcomp.score.choice_job import (
    ChoiceJob,
    read_llm_priors,
    score_null_prior,
    write_choice_scores,
    write_priors,
)
from vlcomp.score.embeddings import embed_text_sets, save_embeddings
from vlcomp.score.pair_jobs import cosine_item_scores, retrieval_galleries
from vlcomp.score.pair_plan import score_plan
from vlcomp.score.pairs import table_refs
from vlcomp.score.retrieval_files import SPLITS, retrieval_arrays


def named(namespace, name):
    """A named input/output/param list, empty when the rule has none."""
    return list(getattr(namespace, name, None) or [])


with job_log(snakemake.log[0]) as log:
    p, inp, out = snakemake.params, snakemake.input, snakemake.output
    scorer = job_scorer(snakemake.wildcards.model, p.entry, p.device, p.threads, p.autocast)
    batch = job_batch(scorer, p.batch_size, "pairs", p.device, say=log.info)
    passes = count_vision_passes(scorer)
    choice = {name: read_parquet(path) for name, path in
              zip(p.choice, inp.benchmarks, strict=True)}
    cosine = dict(getattr(p, "cosine", None) or {})
    job = ChoiceJob.plan_items(choice, [read_parquet(path) for path in inp.imagesets],
                               named(p, "alpha"), cosine)
    plan = job.plan
    galleries = {}
    for name, *files in zip(named(p, "retrieval"), named(inp, "galleries"),
                            named(inp, "queries"), named(inp, "test_images"),
                            named(inp, "val_images"), named(inp, "captions"), strict=True):
        gallery_ids, queries, test, val, captions = (read_parquet(f) for f in files)
        galleries[name] = retrieval_galleries(gallery_ids.image_id, queries, test, val,
                                              captions, p.queries[name], p.gallery_images)
        for split, g in galleries[name].items():
            for ref in g.refs:
                plan.want(ref, g.texts)
            log.info("%s %s gallery: %d images, %d texts", name, split, len(g.refs),
                     len(g.texts))
    train = getattr(p, "train_images", None)
    if named(out, "priors") and train:
        job.add_train_priors(read_parquet(inp.train_images), train["n"], train["seed"])
    embed_tables = [read_parquet(path) for path in named(inp, "embed_imagesets")]
    for table in embed_tables:
        for ref in table_refs(table):
            plan.embed(ref)
    scored = score_plan(scorer, plan, batch_size=batch, image_batch=p.image_batch,
                        options=getattr(p, "pair_options", None))
    score_paths = dict(zip(p.choice, out.scores, strict=True))
    write_choice_scores(job, scored, score_paths)
    for name, path in zip(named(p, "retrieval"), named(out, "retrieval"), strict=True):
        g = galleries[name]
        write_npz(retrieval_arrays(g, {s: scored.matrix(g[s].refs, g[s].texts)
                                       for s in SPLITS}), path)
    if named(out, "priors"):
        write_priors(job, p.null, score_null_prior(scorer, job, p.null, batch), scored,
                     read_llm_priors(named(p, "llm"), named(inp, "llm_priors"), job.union),
                     out.priors, named(out, "prior_images")[0])
    if named(out, "images"):
        for table, npy, ids in zip(embed_tables, out.images, out.image_ids, strict=True):
            save_embeddings(scored.embedding(table_refs(table)), table.image_id.tolist(), Path(npy),
                            Path(ids))
        n_texts = embed_text_sets(scorer, [read_parquet(t) for t in inp.texts], out.texts,
                                  out.text_ids, batch_size=p.text_batch_size)
        log.info("embedded %d image sets and %d distinct texts", len(embed_tables), n_texts)
    for name, files in cosine.items():  # from the embeddings just written
        write_parquet(cosine_item_scores(choice[name], files["images"], files["texts"]),
                      score_paths[name])
    log.info(passes.summary())
