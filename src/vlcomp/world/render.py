"""Rendering scenes to RGB images with anti-aliased shapes."""

from __future__ import annotations

import math

from PIL import Image, ImageDraw

from vlcomp.world.config import WorldConfig
from vlcomp.world.scene import Scene, WorldObject

COLOR_RGB: dict[str, tuple[int, int, int]] = {
    "red": (220, 40, 40),
    "green": (40, 170, 60),
    "blue": (45, 80, 220),
    "yellow": (235, 210, 40),
    "purple": (150, 60, 190),
    "white": (245, 245, 245),
    "orange": (245, 140, 30),
    "cyan": (40, 200, 210),
    "black": (15, 15, 15),
    "pink": (240, 130, 180),
    "brown": (130, 80, 40),
    "gray": (160, 160, 160),
}


def shape_polygon(shape: str, cx: float, cy: float, r: float) -> list[tuple[float, float]]:
    """Polygon vertices of a shape centred at (cx, cy) with half-extent r (pixels)."""
    if shape == "square":
        return [(cx - r, cy - r), (cx + r, cy - r), (cx + r, cy + r), (cx - r, cy + r)]
    if shape == "triangle":
        return [(cx, cy - r), (cx + r, cy + r), (cx - r, cy + r)]
    if shape == "diamond":
        return [(cx, cy - r), (cx + r, cy), (cx, cy + r), (cx - r, cy)]
    if shape == "cross":
        t = r / 3
        pts = [(-t, -r), (t, -r), (t, -t), (r, -t), (r, t), (t, t), (t, r), (-t, r), (-t, t),
               (-r, t), (-r, -t), (-t, -t)]
        return [(cx + px, cy + py) for px, py in pts]
    if shape == "star":
        pts = []
        for k in range(10):
            rad = r if k % 2 == 0 else r * 0.45
            ang = -math.pi / 2 + k * math.pi / 5
            pts.append((cx + rad * math.cos(ang), cy + rad * math.sin(ang)))
        return pts
    if shape == "hexagon":
        return [(cx + r * math.cos(k * math.pi / 3), cy + r * math.sin(k * math.pi / 3))
                for k in range(6)]
    raise ValueError(f"unknown shape {shape!r}: the renderer draws {sorted(DRAWABLE_SHAPES)}")


DRAWABLE_SHAPES = {"circle", "square", "triangle", "diamond", "cross", "star", "hexagon"}


def draw_object(draw: ImageDraw.ImageDraw, obj: WorldObject, side: int) -> None:
    if obj.color not in COLOR_RGB:
        raise ValueError(f"unknown colour {obj.color!r}: the renderer knows {sorted(COLOR_RGB)}")
    fill = COLOR_RGB[obj.color]
    cx, cy, r = obj.x * side, obj.y * side, obj.extent * side
    if obj.shape == "circle":
        draw.ellipse([cx - r, cy - r, cx + r, cy + r], fill=fill)
    else:
        draw.polygon(shape_polygon(obj.shape, cx, cy, r), fill=fill)


def render_scene(scene: Scene, cfg: WorldConfig) -> Image.Image:
    """Draw the scene at ``supersample`` × resolution and downsample (anti-aliasing)."""
    side = cfg.image_size * cfg.supersample
    img = Image.new("RGB", (side, side), tuple(cfg.background))
    draw = ImageDraw.Draw(img)
    for obj in scene.objects:
        draw_object(draw, obj, side)
    if cfg.supersample > 1:
        img = img.resize((cfg.image_size, cfg.image_size), Image.Resampling.BOX)
    return img


def crop_union(
    image: Image.Image, objects: list[WorldObject], margin: float = 0.03
) -> Image.Image:
    """Crop the smallest square box holding all ``objects`` (ARO's union box, made square).

    ARO crops the exact union box and lets CLIP's centre crop cut wide boxes; we widen the
    box to a square (within the image) so no object is cut by the model's preprocessing.
    """
    w, h = image.size
    x0 = min(o.bbox()[0] for o in objects) - margin
    y0 = min(o.bbox()[1] for o in objects) - margin
    x1 = max(o.bbox()[2] for o in objects) + margin
    y1 = max(o.bbox()[3] for o in objects) + margin
    side = min(max(x1 - x0, y1 - y0), 1.0)
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    left = min(max(cx - side / 2, 0.0), 1.0 - side)
    top = min(max(cy - side / 2, 0.0), 1.0 - side)
    box = (round(left * w), round(top * h), round((left + side) * w), round((top + side) * h))
    return image.crop(box)
