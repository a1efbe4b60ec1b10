#!/usr/bin/env python3
"""Writes the image fixtures of the printing fidelity test and Pillow's decode of each.

    python3 Tests/image-fixtures/make_fixtures.py [--check]

Every fixture shows one picture: 64x48 pixels (as displayed), a 4x3 grid of 16x16 blocks in
twelve distinct colours, so that a turned, mirrored or miscoloured rendering cannot pass. Each is
stored in one of the layouts uploads accept: BMPs of 1, 4, 8, 16, 24 and 32 bits (palettes,
BI_BITFIELDS, bottom-up and top-down, written here byte by byte), PNGs with a palette, grey, 16
bits per channel and transparency, and progressive, CMYK and EXIF-rotated JPEGs (written by
Pillow). Next to each, `<name>.ref.png` is what Pillow (python3-pil) decodes from it: RGB,
upright (EXIF applied), transparent parts put on white paper as the renderer does.
Tests/SystemTests/ImageFidelityHTTPTests.swift compares the rendered cards with those.

The files are committed; run this again only to change them. --check decodes the committed files
again and fails if a reference differs from what this Pillow makes of them.
"""

import io
import struct
import sys
import zlib
from pathlib import Path

from PIL import Image, ImageOps

HERE = Path(__file__).resolve().parent
WIDTH, HEIGHT, BLOCK = 64, 48, 16

# Twelve colours, row by row; no two alike, no symmetry a turn or a mirror would keep.
COLOURS = [
    (200, 30, 40), (30, 140, 60), (40, 60, 200), (240, 200, 40),
    (250, 130, 20), (120, 40, 160), (20, 180, 190), (250, 250, 250),
    (20, 20, 20), (150, 100, 60), (240, 120, 170), (110, 200, 90),
]
# Grey levels for the grey PNG, one a block.
GREYS = [10, 40, 70, 100, 130, 160, 190, 220, 250, 25, 115, 205]


def block(x, y):
    return (y // BLOCK) * (WIDTH // BLOCK) + x // BLOCK


def picture():
    """The upright RGB picture."""
    image = Image.new("RGB", (WIDTH, HEIGHT))
    image.putdata([COLOURS[block(x, y)] for y in range(HEIGHT) for x in range(WIDTH)])
    return image


def bmp(bits, rows, *, top_down=False, palette=None, masks=None, header=40, compression=0):
    """A BMP file: `rows` are lists of pixel values (palette indices, or packed pixels)."""
    height = len(rows)
    width = len(rows[0])
    stride = (width * bits + 31) // 32 * 4
    data = bytearray()
    stored = rows if top_down else list(reversed(rows))
    for row in stored:
        line = bytearray()
        if bits < 8:
            per = 8 // bits
            for start in range(0, width, per):
                byte = 0
                for offset, value in enumerate(row[start:start + per]):
                    byte |= value << (8 - bits * (offset + 1))
                line.append(byte)
        else:
            for value in row:
                line += value.to_bytes(bits // 8, "little")
        data += line + bytes(stride - len(line))
    extra = b""
    if palette:
        extra += b"".join(bytes((b, g, r, 0)) for r, g, b in palette)
    info = struct.pack(
        "<IiiHHIIiiII", header, width, -height if top_down else height, 1, bits, compression, len(data),
        2835, 2835, len(palette or []), 0)
    if header == 40:
        if masks:
            extra = b"".join(struct.pack("<I", mask) for mask in masks[:3]) + extra
    else:
        fields = list(masks or (0, 0, 0, 0)) + [0] * 4
        info += struct.pack("<IIII", *fields[:4])
        info += bytes(header - len(info))
        if header >= 108:
            # LCS_sRGB: no calibration data follows.
            info = info[:56] + struct.pack("<I", 0x73524742) + info[60:]
    offset = 14 + len(info) + len(extra)
    return b"BM" + struct.pack("<IHHI", offset + len(data), 0, 0, offset) + info + extra + bytes(data)


def indexed_rows(count):
    """Palette indices of the picture, colours beyond `count` folded onto the ones before."""
    return [[block(x, y) % count for x in range(WIDTH)] for y in range(HEIGHT)]


def packed_rows(pack):
    return [[pack(*COLOURS[block(x, y)]) for x in range(WIDTH)] for y in range(HEIGHT)]


def png(width, height, colour_type, depth, rows, palette=None, transparency=None):
    """A PNG written chunk by chunk (Pillow writes no 16-bit RGB); `rows` are raw scanlines."""
    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    raw = b"".join(b"\x00" + row for row in rows)
    out = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, depth, colour_type, 0, 0, 0))
    if palette:
        out += chunk(b"PLTE", b"".join(bytes(colour) for colour in palette))
    if transparency:
        out += chunk(b"tRNS", transparency)
    return out + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")


def fixtures():
    """(file name, bytes) of every fixture."""
    upright = picture()
    files = []
    two = [COLOURS[2], COLOURS[3]]
    # 1 bit: two colours, in a pattern that no turn or mirror of the grid keeps.
    one_bit = [[(1 if block(x, y) in (0, 3, 5, 6, 11) else 0) for x in range(WIDTH)] for y in range(HEIGHT)]
    files.append(("bmp-1bit.bmp", bmp(1, one_bit, palette=two)))
    files.append(("bmp-4bit.bmp", bmp(4, indexed_rows(12), palette=COLOURS + [(0, 0, 0)] * 4)))
    files.append(("bmp-8bit-topdown.bmp", bmp(8, indexed_rows(12), palette=COLOURS, top_down=True)))
    files.append(("bmp-16bit-555.bmp", bmp(16, packed_rows(lambda r, g, b: (r >> 3) << 10 | (g >> 3) << 5 | b >> 3))))
    files.append((
        "bmp-16bit-565-bitfields-topdown.bmp",
        bmp(16, packed_rows(lambda r, g, b: (r >> 3) << 11 | (g >> 2) << 5 | b >> 3),
            masks=(0xF800, 0x07E0, 0x001F), compression=3, top_down=True)))
    files.append(("bmp-24bit.bmp", bmp(24, packed_rows(lambda r, g, b: b | g << 8 | r << 16))))
    files.append(("bmp-32bit-topdown.bmp", bmp(32, packed_rows(lambda r, g, b: b | g << 8 | r << 16), top_down=True)))
    files.append((
        "bmp-32bit-bitfields.bmp",
        bmp(32, packed_rows(lambda r, g, b: r << 24 | g << 16 | b << 8), masks=(0xFF000000, 0xFF0000, 0xFF00),
            compression=3)))
    # V5 header with an alpha mask: two blocks half and fully transparent.
    alpha = {5: 128, 10: 0}
    rows = [[(lambda r, g, b, a: b | g << 8 | r << 16 | a << 24)(*COLOURS[block(x, y)], alpha.get(block(x, y), 255))
             for x in range(WIDTH)] for y in range(HEIGHT)]
    files.append((
        "bmp-32bit-alpha-v5.bmp", bmp(32, rows, masks=(0xFF0000, 0xFF00, 0xFF, 0xFF000000), compression=3, header=124)))

    # PNG: palette (one colour half, one fully transparent), grey, 16-bit RGB, RGBA.
    indices = indexed_rows(12)
    files.append((
        "png-palette.png",
        png(WIDTH, HEIGHT, 3, 8, [bytes(row) for row in indices], palette=COLOURS,
            transparency=bytes({1: 128, 6: 0}.get(index, 255) for index in range(12)))))
    files.append(("png-grey.png", png(WIDTH, HEIGHT, 0, 8, [bytes(GREYS[block(x, y)] for x in range(WIDTH))
                                                          for y in range(HEIGHT)])))
    files.append(("png-16bit.png", png(WIDTH, HEIGHT, 2, 16, [
        b"".join(struct.pack(">HHH", *(channel * 257 + (x * 7 + y) % 200 for channel in COLOURS[block(x, y)]))
                 for x in range(WIDTH)) for y in range(HEIGHT)])))
    alpha = {1: 0, 4: 96, 9: 200}
    files.append(("png-alpha.png", png(WIDTH, HEIGHT, 6, 8, [
        b"".join(bytes(COLOURS[block(x, y)] + (alpha.get(block(x, y), 255),)) for x in range(WIDTH))
        for y in range(HEIGHT)])))

    # JPEG by Pillow (libjpeg-turbo): progressive, CMYK (Adobe, inverted), turned by EXIF.
    def jpeg(image, **options):
        out = io.BytesIO()
        image.save(out, "JPEG", quality=95, subsampling=0, **options)
        return out.getvalue()

    files.append(("jpeg-progressive.jpg", jpeg(upright, progressive=True)))
    files.append(("jpeg-cmyk.jpg", jpeg(upright.convert("CMYK"))))
    for orientation, stored in [(6, upright.transpose(Image.Transpose.ROTATE_90)),
                                (8, upright.transpose(Image.Transpose.ROTATE_270)),
                                (3, upright.transpose(Image.Transpose.ROTATE_180))]:
        exif = Image.Exif()
        exif[0x0112] = orientation
        files.append((f"jpeg-exif-{orientation}.jpg", jpeg(stored, exif=exif.tobytes())))
    return files


def reference(data):
    """What Pillow makes of `data`: RGB, upright, transparency on white."""
    image = Image.open(io.BytesIO(data))
    image.load()
    image = ImageOps.exif_transpose(image)
    if image.mode in ("P", "LA", "PA") or "transparency" in image.info:
        image = image.convert("RGBA")
    if image.mode == "RGBA":
        paper = Image.new("RGBA", image.size, (255, 255, 255, 255))
        image = Image.alpha_composite(paper, image)
    return image.convert("RGB")


def encoded(image):
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


def main():
    check = "--check" in sys.argv[1:]
    failed = 0
    for name, data in fixtures():
        path = HERE / name
        ref_path = HERE / (path.stem + ".ref.png")
        if check:
            expected = Image.open(ref_path).convert("RGB")
            actual = reference(path.read_bytes())
            if expected.size != actual.size or expected.tobytes() != actual.tobytes():
                print(f"{name}: Pillow's decode differs from {ref_path.name}")
                failed += 1
            continue
        path.write_bytes(data)
        decoded = reference(data)
        assert decoded.size == (WIDTH, HEIGHT), (name, decoded.size)
        ref_path.write_bytes(encoded(decoded))
        print(f"{name}: {len(data)} bytes")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
