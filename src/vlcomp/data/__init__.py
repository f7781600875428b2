"""Dataset builders and loaders that produce the common image/caption tables."""
