#!/usr/bin/env python3
"""Writes boundaries.geojson: simplified outlines of the jurisdictions PolitiMap starts with.

- San Luis Obispo County, California and the United States come from the outlines in
  `sources/` (exported from the `maps` package by `sources/export_outlines.R`: US Census county
  and state outlines, the World Data Bank II for the country), simplified here with
  Douglas-Peucker to within about a kilometre (the country within about five) and with islands
  under about 200 km² left out, so the file stays small enough for an app to fetch once.
- The City of San Luis Obispo has no outline in that package: it is traced by hand from its
  public outline, to within a few hundred metres.
- The districts that contain San Luis Obispo (Assembly District 30, Senate District 17,
  Congressional District CA-24) are approximated by the county outline they share there.

Coordinates are [longitude, latitude]; each ring is closed. Rerun after editing:
    python3 make_boundaries.py > boundaries.geojson
"""
import csv
import json
import math
import os

CITY = "ocd-jurisdiction/country:us/state:ca/place:san_luis_obispo/government"
COUNTY = "ocd-jurisdiction/country:us/state:ca/county:san_luis_obispo/government"
STATE = "ocd-jurisdiction/country:us/state:ca/government"
FEDERAL = "ocd-jurisdiction/country:us/government"
HERE = os.path.dirname(os.path.abspath(__file__))

city = [(-120.705, 35.305), (-120.655, 35.325), (-120.615, 35.300), (-120.625, 35.245), (-120.690, 35.240)]


def outlines(name):
    """The polygons of sources/<name>.csv, each a list of (lon, lat), unclosed."""
    polygons = {}
    with open(os.path.join(HERE, "sources", name + ".csv")) as f:
        for row in csv.DictReader(f):
            polygons.setdefault(int(row["polygon"]), []).append((float(row["lon"]), float(row["lat"])))
    result = []
    for points in polygons.values():
        if len(points) > 1 and points[0] == points[-1]:
            points = points[:-1]
        result.append(points)
    return result


def distance_to_segment(p, a, b):
    (x, y), (x1, y1), (x2, y2) = p, a, b
    dx, dy = x2 - x1, y2 - y1
    if dx == 0 and dy == 0:
        return math.hypot(x - x1, y - y1)
    t = max(0.0, min(1.0, ((x - x1) * dx + (y - y1) * dy) / (dx * dx + dy * dy)))
    return math.hypot(x - (x1 + t * dx), y - (y1 + t * dy))


def simplify(points, tolerance):
    """Douglas-Peucker on an open path (iterative, so long outlines do not recurse deeply)."""
    keep = [False] * len(points)
    keep[0] = keep[-1] = True
    stack = [(0, len(points) - 1)]
    while stack:
        first, last = stack.pop()
        worst, index = 0.0, None
        for i in range(first + 1, last):
            d = distance_to_segment(points[i], points[first], points[last])
            if d > worst:
                worst, index = d, i
        if index is not None and worst > tolerance:
            keep[index] = True
            stack += [(first, index), (index, last)]
    return [p for p, k in zip(points, keep) if k]


def simplified_ring(points, tolerance):
    # Split the ring at its farthest point from the first, so both halves are open paths.
    far = max(range(len(points)), key=lambda i: math.hypot(points[i][0] - points[0][0], points[i][1] - points[0][1]))
    first = simplify(points[: far + 1], tolerance)
    second = simplify(points[far:] + [points[0]], tolerance)
    return first[:-1] + second[:-1]


def area(points):
    return abs(sum(x1 * y2 - x2 * y1 for (x1, y1), (x2, y2) in zip(points, points[1:] + points[:1]))) / 2


def prepared(name, tolerance, smallest=0.0):
    """The outlines of `name`, simplified, without polygons under `smallest` square degrees."""
    rings = [simplified_ring(p, tolerance) for p in outlines(name) if area(p) >= smallest]
    return [r for r in rings if len(r) >= 3]


county = prepared("san_luis_obispo_county", 0.005)
california = prepared("california", 0.01, smallest=0.01)
united_states = prepared("united_states", 0.05, smallest=0.02)


def ring(points):
    points = [[round(x, 4), round(y, 4)] for x, y in points]
    return points + [points[0]]


def feature(fid, jurisdiction, name, level, polygons, district=None):
    return {"type": "Feature", "id": fid,
            "properties": {"jurisdictionId": jurisdiction, "name": name, "level": level, "district": district},
            "geometry": {"type": "MultiPolygon", "coordinates": [[ring(p)] for p in polygons]}}


features = [
    feature("place:san_luis_obispo", CITY, "San Luis Obispo", "local", [city]),
    feature("county:san_luis_obispo", COUNTY, "San Luis Obispo County", "county", county),
    feature("state:ca", STATE, "California", "state", california),
    feature("state:ca/sldl:30", STATE, "California Assembly District 30", "state", county, "30"),
    feature("state:ca/sldu:17", STATE, "California Senate District 17", "state", county, "17"),
    feature("country:us", FEDERAL, "United States", "federal", united_states),
    feature("country:us/cd:ca-24", FEDERAL, "California's 24th congressional district", "federal", county, "CA-24"),
]
# One feature per line: small, and a change shows as a change to the features it touches.
print('{"type": "FeatureCollection", "features": [')
print(",\n".join(json.dumps(f, separators=(",", ":")) for f in features))
print("]}")
