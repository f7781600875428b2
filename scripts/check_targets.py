"""Measure the walking-skeleton targets (`vlcomp check-targets`; `vlcomp.check_targets`):
demo wall time, byte-identical tables across two fresh runs, the world CLIP's signature.

    .venv/bin/python scripts/check_targets.py [--config config/config.yaml] [--workdir DIR]
"""

from vlcomp.check_targets import main

if __name__ == "__main__":
    raise SystemExit(main())
