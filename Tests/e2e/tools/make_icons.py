"""Draws the app icon once: Public/icons/icon.svg and its PNG sizes (run by hand, output committed).

A football on the pitch's green: a white ball, a dark centre pentagon and five seams. The ball
stays inside the central 80 % circle, so the same image serves as a maskable icon. Pure Python
(zlib + struct, anti-aliased by 4×4 supersampling), so no imaging library is needed.

    python3 Tests/e2e/tools/make_icons.py
"""
from __future__ import annotations

import math
import struct
import zlib
from pathlib import Path

ICONS = Path(__file__).resolve().parents[3] / "Public" / "icons"
GREEN, WHITE, DARK = (0x1A, 0x7A, 0x43), (0xFF, 0xFF, 0xFF), (0x0F, 0x1F, 0x17)
BALL_RADIUS, PENTAGON_RADIUS, SEAM_WIDTH = 0.30, 0.11, 0.022   # fractions of the icon's side
SIZES = {"icon-512.png": 512, "icon-192.png": 192, "apple-touch-icon.png": 180}


def pentagon(radius: float) -> list[tuple[float, float]]:
    return [(0.5 + radius * math.sin(2 * math.pi * k / 5), 0.5 - radius * math.cos(2 * math.pi * k / 5)) for k in range(5)]


CORNERS = pentagon(PENTAGON_RADIUS)
SEAMS = list(zip(CORNERS, pentagon(BALL_RADIUS)))


def inside_polygon(x: float, y: float, polygon) -> bool:
    inside = False
    for (x1, y1), (x2, y2) in zip(polygon, polygon[1:] + polygon[:1]):
        if (y1 > y) != (y2 > y) and x < x1 + (y - y1) * (x2 - x1) / (y2 - y1):
            inside = not inside
    return inside


def near_segment(x: float, y: float, a, b, width: float) -> bool:
    (ax, ay), (bx, by) = a, b
    t = max(0.0, min(1.0, ((x - ax) * (bx - ax) + (y - ay) * (by - ay)) / ((bx - ax) ** 2 + (by - ay) ** 2)))
    return math.hypot(x - ax - t * (bx - ax), y - ay - t * (by - ay)) <= width / 2


def colour_at(x: float, y: float):
    if math.hypot(x - 0.5, y - 0.5) > BALL_RADIUS:
        return GREEN
    if inside_polygon(x, y, CORNERS) or any(near_segment(x, y, a, b, SEAM_WIDTH) for a, b in SEAMS):
        return DARK
    return WHITE


def render(size: int, samples: int = 4) -> bytes:
    rows = []
    for py in range(size):
        row = bytearray([0])  # PNG filter: none
        for px in range(size):
            total = [0, 0, 0]
            for sy in range(samples):
                for sx in range(samples):
                    colour = colour_at((px + (sx + 0.5) / samples) / size, (py + (sy + 0.5) / samples) / size)
                    for channel in range(3):
                        total[channel] += colour[channel]
            row.extend(round(value / samples ** 2) for value in total)
        rows.append(bytes(row))
    return png(size, b"".join(rows))


def png(size: int, raw: bytes) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    header = struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0)  # 8-bit RGB
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")


def svg() -> str:
    def hex_colour(rgb):
        return "#%02x%02x%02x" % rgb
    points = " ".join(f"{x * 512:.1f},{y * 512:.1f}" for x, y in CORNERS)
    seams = "".join(f'<line x1="{a[0] * 512:.1f}" y1="{a[1] * 512:.1f}" x2="{b[0] * 512:.1f}" y2="{b[1] * 512:.1f}"/>'
                    for a, b in SEAMS)
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 512 512">'
            f'<rect width="512" height="512" fill="{hex_colour(GREEN)}"/>'
            f'<circle cx="256" cy="256" r="{BALL_RADIUS * 512:.1f}" fill="{hex_colour(WHITE)}"/>'
            f'<g stroke="{hex_colour(DARK)}" stroke-width="{SEAM_WIDTH * 512:.1f}">{seams}</g>'
            f'<polygon points="{points}" fill="{hex_colour(DARK)}"/></svg>\n')


def main():
    ICONS.mkdir(parents=True, exist_ok=True)
    (ICONS / "icon.svg").write_text(svg())
    for name, size in SIZES.items():
        (ICONS / name).write_bytes(render(size))
        print(f"wrote {ICONS / name}")


if __name__ == "__main__":
    main()
