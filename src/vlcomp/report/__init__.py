"""Reports: paper-layout tables (csv + markdown) built from per-model metric dicts."""
