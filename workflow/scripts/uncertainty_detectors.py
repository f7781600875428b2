"""Bootstrap CIs of the detector-based numbers (BiVLC Table 4) and paired tests between the
encoders' detectors (`vlcomp.metrics.detection.detector_uncertainty`)."""

from vlcomp.io import read_parquet
from vlcomp.jobs import job_log
from vlcomp.metrics.detection import detector_uncertainty
from vlcomp.report.tables import write_csv

with job_log(snakemake.log[0]) as log:
    p, out = snakemake.params, snakemake.output
    probabilities = {e: read_parquet(f) for e, f in zip(p.encoders, snakemake.input,
                                                        strict=True)}
    intervals, comparisons = detector_uncertainty(
        probabilities, n_resamples=p.resamples, seed=p.seed, confidence=p.confidence,
        method=p.method)
    write_csv(intervals, out.intervals, index=False)
    write_csv(comparisons, out.comparisons, index=False)
    log.info("%d encoders: %d intervals, %d comparisons; %d resamples (seed %d, %s)",
             len(probabilities), len(intervals), len(comparisons), p.resamples, p.seed,
             p.method)
