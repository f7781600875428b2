"""Model registry and scorers: dual encoders (open_clip, our checkpoints) behind one interface."""
