"""Contrastive (CLIP) pretraining of the small world model."""
