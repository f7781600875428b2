"""NegCLIP's released train_neg_clip.tsv as a negatives table and a neighbour-pairs table
over the caption dataset's split (the rows it was trained on)."""

from vlcomp.data.negclip_release import read_negclip_tsv, release_tables
from vlcomp.io import read_parquet, write_parquet
from vlcomp.jobs import job_log

with job_log(snakemake.log[0]) as log:
    release = read_negclip_tsv(snakemake.input.tsv)
    captions = read_parquet(snakemake.input.captions)
    captions = captions[captions.split == snakemake.params.split]
    tables = release_tables(release, captions, snakemake.input.tsv)
    write_parquet(tables.negatives, snakemake.output.negatives)
    write_parquet(tables.pairs, snakemake.output.pairs)
    log.info("%d released rows: %d matched a %s caption, %d did not%s", len(release),
             len(tables.negatives), snakemake.params.split, len(tables.unmatched),
             f" (e.g. {tables.unmatched.filepath.iloc[0]})" if len(tables.unmatched) else "")
