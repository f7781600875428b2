"""One's own models through the papers' benchmarks (``vlcomp evaluate``): the configuration
that runs only their jobs beside the models a results folder has evaluated."""
