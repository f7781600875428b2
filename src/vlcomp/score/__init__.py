"""Embedding caches and score matrices."""
