"""vlcomp: reproducible vision-language compositionality benchmarks."""

__version__ = "0.1.0"
