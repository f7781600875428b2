"""BiVLC's released TROHN-Text or TROHN-Img (imirandam/TROHN-*, via datasets) as instance
rows over the caption dataset's images: one row per released row (BiVLC's epoch), train and
validation splits; TROHN-Img's negative images are written to disk once."""

from vlcomp.data.trohn_release import HUB_IDS, SPLITS, load_release, release_instances
from vlcomp.io import read_parquet, write_json, write_parquet
from vlcomp.jobs import job_log

with job_log(snakemake.log[0]) as log:
    name, opts = snakemake.params.name, snakemake.params.options
    images = read_parquet(snakemake.input.images)
    captions = read_parquet(snakemake.input.captions)
    image_dir = getattr(snakemake.output, "images", None)
    report = {"hub_id": opts.get("hub_path") or HUB_IDS[name], "revision": opts.get("revision")}
    for ours, theirs in SPLITS.items():
        rows = load_release(name, theirs, opts.get("revision"), snakemake.params.cache_dir,
                            opts.get("hub_path"))
        out = release_instances(rows, images, captions, f"{name} {theirs}",
                                opts.get("max_missing", 0.01), image_dir)
        write_parquet(out.instances, getattr(snakemake.output, ours))
        named = out.instances.caption_id.notna().sum() if len(out.instances) else 0
        report[ours] = {"rows": len(out.instances) + len(out.missing),
                        "kept": len(out.instances), "caption_matched": int(named),
                        "missing_images": len(out.missing),
                        "missing_examples": [f"row {r}: image {i}" for r, i in
                                             out.missing.head(10).itertuples(index=False)]}
        log.info("%s %s: %d rows kept, %d name an image the dataset lacks%s; %d captions "
                 "matched a dataset caption", name, theirs, len(out.instances), len(out.missing),
                 f" (e.g. {out.missing.image_id.iloc[0]})" if len(out.missing) else "", named)
    write_json(report, snakemake.output.report)
