"""Image-side tools: nearest-neighbour pairing (and image perturbations later)."""
