"""BISON-style items: test images paired by averaged caption word vectors, captions chosen
and verified by the oracle (BISON stages 1-3)."""


from vlcomp.benchmarks.bison import bison_items, similar_images
from vlcomp.data.world import read_scenes
from vlcomp.io import read_parquet, write_parquet
from vlcomp.jobs import job_log
from vlcomp.models.checkpoint import load_checkpoint
from vlcomp.models.world_clip import world_tokenizer
from vlcomp.text.word_vectors import clip_token_embedder, image_text_vectors, train_word2vec
from vlcomp.world.config import WorldConfig
from vlcomp.world.oracle import Oracle

with job_log(snakemake.log[0]) as log:
    opts = snakemake.params.bison
    vectors = opts.get("vectors", {})
    cfg = WorldConfig.from_dict(snakemake.params.world)
    captions = read_parquet(snakemake.input.captions)
    scenes = {k: s for k, s in read_scenes(snakemake.input.scenes).items() if s.split == "test"}
    if vectors.get("source", "word2vec") == "word2vec":
        train = captions[captions.split == "train"].text
        wv = train_word2vec(train, dim=vectors.get("dim", 64), epochs=vectors.get("epochs", 20),
                            seed=vectors.get("seed", 0))
        embed = wv.embed
        log.info("word2vec on %d train captions: %d words", len(train), len(wv.vocab))
    else:
        model, model_cfg = load_checkpoint(snakemake.input.model)
        embed = clip_token_embedder(model, world_tokenizer(model_cfg))
        log.info("caption vectors from the token table of %s", snakemake.input.model)
    test = captions[captions.split == "test"]
    groups = {str(k): list(g.text) for k, g in test.groupby("image_id", sort=True)}
    ids = sorted(groups)
    image_vectors = image_text_vectors(ids, [groups[i] for i in ids], embed)
    neighbours = similar_images(ids, image_vectors, k=opts.get("neighbours", 3))
    items = bison_items(scenes, test, neighbours, Oracle(cfg), seed=opts.get("seed", 0))
    write_parquet(items, snakemake.output[0])
    log.info("%d items from %d images (%d without a distinguishing caption); "
             "partner rank counts %s", len(items), len(ids), len(ids) - len(items),
             items.neighbour_rank.value_counts().sort_index().to_dict())
