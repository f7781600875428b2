"""Score SugarCrepe-style caption pairs of the training captions and select TROHN-Img's."""


from vlcomp.io import read_parquet, write_json, write_parquet
from vlcomp.jobs import job_log
from vlcomp.models.registry import build_scorer
from vlcomp.models.vision_count import count_vision_passes
from vlcomp.text.text_scorers import build_text_scorer
from vlcomp.text.trohn_img import preference_rate, score_pairs, select_negatives
from vlcomp.torch_threads import set_torch_threads
from vlcomp.world.config import WorldConfig
from vlcomp.world.grammar import CaptionParser

with job_log(snakemake.log[0]) as log:
    set_torch_threads(snakemake.params.threads)
    opts = snakemake.params.options
    pairs = read_parquet(snakemake.input.negatives)
    captions = read_parquet(snakemake.input.captions)
    if opts.get("caption_templates"):
        allowed = set(captions[captions.template.isin(opts["caption_templates"])].caption_id)
        pairs = pairs[pairs.caption_id.isin(allowed)]
    corpus = captions[captions.split == "train"].text.tolist()
    cfg = WorldConfig.from_dict(snakemake.params.world)
    parser = CaptionParser(cfg.shapes, cfg.colors, cfg.sizes)
    device = snakemake.params.device
    plausibility = build_text_scorer(opts.get("plausibility", {"kind": "bigram"}), corpus,
                                     parser, device)
    acceptability = build_text_scorer(opts.get("acceptability", {"kind": "grammar"}), corpus,
                                      parser, device)
    scorer = build_scorer(opts["similarity_model"], snakemake.params.entry, device)
    passes = count_vision_passes(scorer)
    scored = score_pairs(pairs.reset_index(drop=True),
                         lambda texts: scorer.embed_texts(texts, batch_size=256),
                         plausibility, acceptability)
    selected = select_negatives(scored, opts.get("quantile", 0.645),
                                opts.get("max_similarity", 0.999), seed=opts.get("seed", 0))
    selected = selected.assign(key=selected.caption_id + "-" + selected.subset)
    write_parquet(selected.reset_index(drop=True), snakemake.output.selected)
    report = {
        "pairs": len(scored), "selected": len(selected),
        "selected_per_subset": selected.subset.value_counts().sort_index().to_dict(),
        "images": int(selected.image_id.nunique()),
        "plausibility_prefers_positive": {
            "before": preference_rate(scored.pos_plausibility - scored.neg_plausibility),
            "after": preference_rate(selected.plausibility_gap)},
        "acceptability_prefers_positive": {
            "before": preference_rate(scored.pos_acceptability - scored.neg_acceptability),
            "after": preference_rate(selected.acceptability_gap)},
    }
    write_json(report, snakemake.output.report)
    log.info("TROHN-Img selection: %s", report)
    log.info(passes.summary())
