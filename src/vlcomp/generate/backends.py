"""Build the text-to-image backend a generated set names in config."""

from __future__ import annotations

from typing import Any

from vlcomp.generate.base import TextToImage

BACKENDS = ("world", "diffusers")


def build_backend(
    options: dict[str, Any], world: dict[str, Any] | None = None, device: str = "cpu",
    threads: int | None = None,
) -> TextToImage:
    """``options`` is one ``generation.{set}`` block: ``backend``, ``images_per_prompt`` and
    the backend's own block (``world:`` failures and style, or ``diffusers:``). ``threads``
    fixes torch's threads for a backend that runs torch (the world's renderer imports none)."""
    kind = options.get("backend", "world")
    n = int(options.get("images_per_prompt", 4))
    if kind == "world":
        from vlcomp.generate.world_backend import WorldTextToImage
        from vlcomp.world.config import WorldConfig

        if world is None:
            raise ValueError("backend 'world' needs the world: block of the config")
        own = {**options.get("world", {}), "images_per_prompt": n}
        return WorldTextToImage.from_options(WorldConfig.from_dict(world), own)
    if kind == "diffusers":
        from vlcomp.generate.diffusers_backend import DiffusersTextToImage
        from vlcomp.torch_threads import set_torch_threads

        if threads is not None:
            set_torch_threads(threads)
        own = {**options.get("diffusers", {}), "images_per_prompt": n}
        return DiffusersTextToImage.from_options(own, device)
    raise ValueError(f"generation backend {kind!r}: choose one of {BACKENDS}")
