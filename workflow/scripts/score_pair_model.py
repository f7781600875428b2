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

from vlcomp.io import read_parquet, write_json, write_npz, write_parquet
from vlcomp.jobs import job_log
from vlcomp.models.precision import job_scorer
from vlcomp.models.vision_count import count_vision_passes
from vlcomp.score.embeddings import embed_text_sets, save_embeddings
from vlcomp.score.pair_jobs import (
    benchmark_texts,
    cosine_item_scores,
    llm_prior_scores,
    prior_table,
    retrieval_galleries,
)
from vlcomp.score.pair_plan import PairPlan, score_plan
from vlcomp.score.pairs import image_index, table_refs
from vlcomp.score.retrieval_files import SPLITS, retrieval_arrays
from vlcomp.score.text_prior import null_counts, null_prior_matrix, sample_image_ids


def named(namespace, name):
    """A named input/output/param list, empty when the rule has none."""
    return list(getattr(namespace, name, None) or [])


with job_log(snakemake.log[0]) as log:
    p, inp, out = snakemake.params, snakemake.input, snakemake.output
    scorer = job_scorer(snakemake.wildcards.model, p.entry, p.device, p.threads, p.autocast)
    passes = count_vision_passes(scorer)
    tables = [read_parquet(path) for path in inp.imagesets]
    images = image_index(tables)
    plan = PairPlan()
    choice = {name: read_parquet(path) for name, path in
              zip(p.choice, inp.benchmarks, strict=True)}
    cosine = dict(getattr(p, "cosine", None) or {})
    for name, items in choice.items():
        if name not in cosine:
            plan.add_items(items, images)
        log.info("%s: %d items (%s)", name, len(items),
                 "cosine of embeddings" if name in cosine else "pair scores")
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
    union = sorted({t for b in named(p, "alpha") for t in benchmark_texts(choice[b])})
    train, train_refs, train_ids = getattr(p, "train_images", None), [], []
    if named(out, "priors") and train:
        pool = read_parquet(inp.train_images)
        train_ids = sample_image_ids(pool.image_id, train["n"], train["seed"])
        pool_index = {str(k): v for k, v in image_index([pool]).items()}
        train_refs = [pool_index[i] for i in train_ids]
        for ref in train_refs:
            plan.want(ref, union)
        log.info("prior: %d training images (seed %d): %s", len(train_ids), train["seed"],
                 train_ids)
    embed_tables = [read_parquet(path) for path in named(inp, "embed_imagesets")]
    for table in embed_tables:
        for ref in table_refs(table):
            plan.embed(ref)
    scored = score_plan(scorer, plan, batch_size=p.batch_size, image_batch=p.image_batch,
                        options=getattr(p, "pair_options", None))
    score_paths = dict(zip(p.choice, out.scores, strict=True))
    for name, path in score_paths.items():
        if name not in cosine:
            write_parquet(scored.item_scores(choice[name], images), path)
    for name, path in zip(named(p, "retrieval"), named(out, "retrieval"), strict=True):
        g = galleries[name]
        write_npz(retrieval_arrays(g, {s: scored.matrix(g[s].refs, g[s].texts)
                                       for s in SPLITS}), path)
    if named(out, "priors"):
        null = p.null
        n_for = null_counts(null, p.alpha)
        states = scorer.null_image_states(max(n_for.values()), mean=null["mean"],
                                          std=null["std"], seed=null["seed"],
                                          space=null["space"])
        null_matrix = null_prior_matrix(scorer, states, union, {
            b: benchmark_texts(choice[b]) for b in p.alpha}, n_for, p.batch_size)
        train_matrix = scored.matrix(train_refs, union).T if train_refs else None
        llm_paths = dict(zip(named(p, "llm"), named(inp, "llm_priors"), strict=True))
        llm_scores = llm_prior_scores({n: read_parquet(f) for n, f in llm_paths.items()},
                                      union, llm_paths)
        if llm_scores:
            log.info("and the text-only LM priors %s", sorted(llm_scores))
        for name, path in zip(p.alpha, out.priors, strict=True):
            write_parquet(prior_table(benchmark_texts(choice[name]), union,
                                      null_matrix[:, : n_for[name]], train_matrix, llm_scores),
                          path)
        write_json({"null": {**null, "n_by_benchmark": n_for, "encoded": len(states)},
                    "train_images": train_ids, "train_paths": [r.path for r in train_refs],
                    "texts": len(union)}, named(out, "prior_images")[0])
        log.info("priors of %d texts: null images per benchmark %s (%s)", len(union), n_for,
                 null)
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
