#!/usr/bin/env python3
"""Writes boundaries.geojson: simplified outlines of the jurisdictions PolitiMap starts with.

- San Luis Obispo County, California and the United States come from the outlines in
  `sources/` (exported from the `maps` package by `sources/export_outlines.R`: US Census county
  and state outlines, the World Data Bank II for the country), simplified here with
  Douglas-Peucker to within about a kilometre (the country within about five) and with islands
  under about 200 km² left out, so the file stays small enough for an app to fetch once.
- The City of San Luis Obispo has no outline in that package: it is traced by hand from its
  public outline, to within a few hundred metres.
- The county's coast is drawn at sea (`SEA`, a few kilometres off the shore, as the county's own
  line runs 3 nautical miles out), and California's and the country's coasts along it with it:
  the source's coast is coarse and would leave Cambria, Morro Bay or Pismo Beach outside.
- The state and federal districts are SAMPLE outlines, made up: the county split in two per
  chamber along straight lines that differ by chamber (Assembly 30 north of 35.22° N and 37
  south of it; Senate 17 west of 120.55° W and 21 east of it; CA-19 north of 35.45° N and CA-24
  south of it). Each feature says `"sample": true` and names its chamber (`lower`, `upper`,
  `lower`: the US House); the whole outlines name none. Load the real ones with `--tiger`.

Coordinates are [longitude, latitude]; each ring is closed. Rerun after editing:
    python3 make_boundaries.py > boundaries.geojson

Real district outlines, for an operator's CIVIC_BOUNDARIES_FILE (see docs/civic.md): the US
Census Bureau's TIGER/Line (or cartographic boundary) files of state legislative districts
(`SLDL`, lower chamber; `SLDU`, upper) and congressional districts (`CD`), as GeoJSON or as
shapefiles, become features of the same format, simplified the same way (Douglas-Peucker,
about 0.5 km by default), with the ids of the bundled approximations (`state:ca/sldl:30`,
`state:ca/sldu:17`, `country:us/cd:ca-24`), so that they replace them, and each with its
chamber (`lower` for SLDL and CD, `upper` for SLDU, `legislature` for the SLDU districts of
Nebraska and DC, whose legislatures have one chamber):
    python3 make_boundaries.py --tiger tl_2024_06_sldl.geojson tl_2024_06_sldu.geojson \
        tl_2024_06_cd119.geojson > districts.geojson
A GeoJSON export needs only Python: `ogr2ogr -f GeoJSON -t_srs EPSG:4326 tl_2024_06_sldl.geojson
tl_2024_06_sldl.shp` (GDAL) makes one. A `.shp` (or the Census `.zip`) is read with pyshp when it
is installed (`pip install pyshp`, pure Python); nothing else is needed. Water-only areas
(district `ZZZ`) are left out. `--tolerance 0` keeps every vertex (a larger file); `--smallest`
leaves out polygons and holes under that many square degrees (default 0: none).
"""
import argparse
import csv
import json
import math
import os
import re
import sys

CITY = "ocd-jurisdiction/country:us/state:ca/place:san_luis_obispo/government"
COUNTY = "ocd-jurisdiction/country:us/state:ca/county:san_luis_obispo/government"
STATE = "ocd-jurisdiction/country:us/state:ca/government"
FEDERAL = "ocd-jurisdiction/country:us/government"
HERE = os.path.dirname(os.path.abspath(__file__))

city = [(-120.705, 35.305), (-120.655, 35.325), (-120.615, 35.300), (-120.625, 35.245), (-120.690, 35.240)]

# The county's coast, south (the Santa Maria River's mouth) to north (past Ragged Point), drawn a
# few kilometres out at sea so that no coastal town of the county falls outside.
SEA = [(-120.70, 34.963), (-120.70, 35.12), (-120.80, 35.14), (-120.95, 35.24), (-120.93, 35.37),
       (-120.96, 35.44), (-121.06, 35.46), (-121.17, 35.55), (-121.27, 35.62), (-121.35, 35.66),
       (-121.40, 35.79)]
# The latitudes of the coast that SEA replaces, and the longitude west of which a vertex there is coast.
COAST_SOUTH, COAST_NORTH, COAST_WEST_OF = 34.95, 35.80, -120.58

# The sample districts: the county split along a line per chamber, (id, name, district, chamber, half),
# a half being (axis, side, value): axis 1 latitude, 0 longitude; side +1 keeps the values above, -1 below.
SAMPLE_DISTRICTS = [
    ("state:ca/sldl:30", "California Assembly District 30", "30", "lower", (1, +1, 35.22)),
    ("state:ca/sldl:37", "California Assembly District 37", "37", "lower", (1, -1, 35.22)),
    ("state:ca/sldu:17", "California Senate District 17", "17", "upper", (0, -1, -120.55)),
    ("state:ca/sldu:21", "California Senate District 21", "21", "upper", (0, +1, -120.55)),
    ("country:us/cd:ca-19", "California's 19th congressional district", "CA-19", "lower", (1, +1, 35.45)),
    ("country:us/cd:ca-24", "California's 24th congressional district", "CA-24", "lower", (1, -1, 35.45)),
]


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


def ring(points):
    points = [[round(x, 4), round(y, 4)] for x, y in points]
    return points + [points[0]]


def feature(fid, jurisdiction, name, level, polygons, district=None, chamber=None):
    """A district's feature names its chamber (Open States' org_classification: upper, lower or
    legislature), so that a state's Assembly and Senate districts of one number stay apart."""
    return {"type": "Feature", "id": fid,
            "properties": {"jurisdictionId": jurisdiction, "name": name, "level": level, "district": district,
                           "chamber": chamber},
            "geometry": {"type": "MultiPolygon", "coordinates": [[ring(p)] for p in polygons]}}


def with_sea_coast(ring):
    """`ring` with its vertices along the county's coast replaced by SEA (both run south to north)."""
    coast = [i for i, (x, y) in enumerate(ring) if COAST_SOUTH <= y <= COAST_NORTH and x < COAST_WEST_OF]
    assert coast and coast == list(range(coast[0], coast[-1] + 1)), "the coast's vertices are not one run"
    return ring[: coast[0]] + SEA + ring[coast[-1] + 1:]


def sample_county():
    """The county's land lines from the source (north, east, south) and SEA as its coast."""
    (land,) = outlines("san_luis_obispo_county")
    south_west = land.index((-120.58469, 34.96188))
    # Only the land lines are simplified: SEA is drawn as the state's and the country's coast is.
    return simplify(land[: south_west + 1], 0.005) + SEA


def clipped(points, half):
    """The part of a ring on one side of a line of latitude or longitude (Sutherland-Hodgman)."""
    axis, side, value = half

    def keeps(p):
        return side * (p[axis] - value) >= 0

    def crossing(a, b):
        t = (value - a[axis]) / (b[axis] - a[axis])
        other = a[1 - axis] + t * (b[1 - axis] - a[1 - axis])
        return (other, value) if axis == 1 else (value, other)

    result = []
    for a, b in zip(points, points[1:] + points[:1]):
        if keeps(a):
            result.append(a)
            if not keeps(b):
                result.append(crossing(a, b))
        elif keeps(b):
            result.append(crossing(a, b))
    return result


def bundled():
    county = sample_county()
    california = [with_sea_coast(r) if any(x < COAST_WEST_OF and COAST_SOUTH <= y <= COAST_NORTH for x, y in r)
                  else r for r in prepared("california", 0.01, smallest=0.01)]
    united_states = [with_sea_coast(r) if any(x < COAST_WEST_OF and COAST_SOUTH <= y <= COAST_NORTH for x, y in r)
                     else r for r in prepared("united_states", 0.05, smallest=0.02)]
    features = [
        feature("place:san_luis_obispo", CITY, "San Luis Obispo", "local", [city]),
        feature("county:san_luis_obispo", COUNTY, "San Luis Obispo County", "county", [county]),
        feature("state:ca", STATE, "California", "state", california),
        feature("country:us", FEDERAL, "United States", "federal", united_states),
    ]
    for fid, name, district, chamber, half in SAMPLE_DISTRICTS:
        jurisdiction, level = (STATE, "state") if fid.startswith("state:") else (FEDERAL, "federal")
        made = feature(fid, jurisdiction, name, level, [clipped(county, half)], district, chamber)
        made["properties"]["sample"] = True
        features.append(made)
    return features


# --- Census TIGER/Line districts -------------------------------------------------------------

# State FIPS code → (postal abbreviation, name): the states, DC and Puerto Rico.
STATES = {
    "01": ("al", "Alabama"), "02": ("ak", "Alaska"), "04": ("az", "Arizona"), "05": ("ar", "Arkansas"),
    "06": ("ca", "California"), "08": ("co", "Colorado"), "09": ("ct", "Connecticut"), "10": ("de", "Delaware"),
    "11": ("dc", "District of Columbia"), "12": ("fl", "Florida"), "13": ("ga", "Georgia"), "15": ("hi", "Hawaii"),
    "16": ("id", "Idaho"), "17": ("il", "Illinois"), "18": ("in", "Indiana"), "19": ("ia", "Iowa"),
    "20": ("ks", "Kansas"), "21": ("ky", "Kentucky"), "22": ("la", "Louisiana"), "23": ("me", "Maine"),
    "24": ("md", "Maryland"), "25": ("ma", "Massachusetts"), "26": ("mi", "Michigan"), "27": ("mn", "Minnesota"),
    "28": ("ms", "Mississippi"), "29": ("mo", "Missouri"), "30": ("mt", "Montana"), "31": ("ne", "Nebraska"),
    "32": ("nv", "Nevada"), "33": ("nh", "New Hampshire"), "34": ("nj", "New Jersey"), "35": ("nm", "New Mexico"),
    "36": ("ny", "New York"), "37": ("nc", "North Carolina"), "38": ("nd", "North Dakota"), "39": ("oh", "Ohio"),
    "40": ("ok", "Oklahoma"), "41": ("or", "Oregon"), "42": ("pa", "Pennsylvania"), "44": ("ri", "Rhode Island"),
    "45": ("sc", "South Carolina"), "46": ("sd", "South Dakota"), "47": ("tn", "Tennessee"), "48": ("tx", "Texas"),
    "49": ("ut", "Utah"), "50": ("vt", "Vermont"), "51": ("va", "Virginia"), "53": ("wa", "Washington"),
    "54": ("wv", "West Virginia"), "55": ("wi", "Wisconsin"), "56": ("wy", "Wyoming"), "72": ("pr", "Puerto Rico"),
}


# The legislatures of one chamber, whose districts TIGER lists as SLDU (Nebraska's, DC's council):
# their chamber is `legislature`, as Open States classifies them (civic's DistrictChamber.swift
# says the same for a file whose features leave the chamber out).
UNICAMERAL = {"31", "11"}


def ordinal(n):
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def district_code(code):
    """A TIGER district code as the bundled file writes it: `030` → `30`; `01A`, `CHI-1` as they are."""
    code = code.strip()
    return str(int(code)) if code.isdigit() else code


def tiger_feature(properties, polygons):
    """The feature for one TIGER record, or None for a water-only area or a record of no known layer."""
    fips = str(properties.get("STATEFP", "")).strip()
    if fips not in STATES:
        raise SystemExit(f"make_boundaries.py: a record with STATEFP {fips!r}, not a state this script knows")
    postal, state_name = STATES[fips]
    state = f"ocd-jurisdiction/country:us/state:{postal}/government"
    label = str(properties.get("NAMELSAD") or "").strip()
    for field, layer in (("SLDLST", "sldl"), ("SLDUST", "sldu")):
        if field in properties:
            raw = str(properties[field] or "").strip()
            if raw in ("", "ZZZ"):
                return None
            code = district_code(raw)
            name = f"{state_name} {label}" if label else f"{state_name} {layer.upper()} {code}"
            chamber = "lower" if layer == "sldl" else "legislature" if fips in UNICAMERAL else "upper"
            return feature(f"state:{postal}/{layer}:{code.lower()}", state, name, "state", polygons, code, chamber)
    cd_field = next((k for k in properties if re.fullmatch(r"CD\d*FP", k)), None)
    if cd_field is not None:
        raw = str(properties[cd_field] or "").strip()
        if raw in ("", "ZZ"):
            return None
        if raw in ("00", "98"):  # at large, or a delegate without districts
            code, name = "AL", f"{state_name}'s at-large congressional district"
        else:
            code, name = str(int(raw)), f"{state_name}'s {ordinal(int(raw))} congressional district"
        district = f"{postal.upper()}-{code}"
        return feature(f"country:us/cd:{district.lower()}", FEDERAL, name, "federal", polygons, district, "lower")
    raise SystemExit("make_boundaries.py: a record with none of SLDLST, SLDUST or CDnnnFP: not a district layer")


def tiger_records(path):
    """(properties, GeoJSON geometry) of each record of a GeoJSON FeatureCollection, a shapefile or its zip."""
    if path.endswith((".geojson", ".json")):
        with open(path) as f:
            collection = json.load(f)
        return [(f.get("properties") or {}, f.get("geometry")) for f in collection["features"]]
    try:
        import shapefile  # pyshp, pure Python: only for .shp and .zip
    except ImportError:
        raise SystemExit(f"make_boundaries.py: reading {path} needs pyshp (pip install pyshp), "
                         "or export it to GeoJSON: ogr2ogr -f GeoJSON -t_srs EPSG:4326 OUT.geojson IN.shp")
    with shapefile.Reader(path) as reader:
        return [(record.record.as_dict(), record.shape.__geo_interface__) for record in reader.iterShapeRecords()]


def simplified_polygons(geometry, tolerance, smallest):
    """A Polygon or MultiPolygon's polygons, each ring simplified (unclosed), small ones left out."""
    if geometry is None:
        return []
    if geometry["type"] == "Polygon":
        polygons = [geometry["coordinates"]]
    elif geometry["type"] == "MultiPolygon":
        polygons = geometry["coordinates"]
    else:
        raise SystemExit(f"make_boundaries.py: a {geometry['type']} geometry, not a district's polygons")
    result = []
    for polygon in polygons:
        rings = []
        for points in polygon:
            points = [(float(p[0]), float(p[1])) for p in points]
            if len(points) > 1 and points[0] == points[-1]:
                points = points[:-1]
            if len(points) < 3 or area(points) < smallest:
                if not rings:
                    break  # the outer ring is too small: the whole polygon goes
                continue
            simple = simplified_ring(points, tolerance) if tolerance > 0 else points
            if len(simple) >= 3:
                rings.append(simple)
            elif not rings:
                break
        if rings:
            result.append(rings)
    return result


def tiger(paths, tolerance, smallest):
    features = []
    for path in paths:
        for properties, geometry in tiger_records(path):
            polygons = simplified_polygons(geometry, tolerance, smallest)
            if not polygons:
                continue
            made = tiger_feature(properties, [])
            if made is None:
                continue
            made["geometry"]["coordinates"] = [[ring(r) for r in polygon] for polygon in polygons]
            features.append(made)
    features.sort(key=lambda f: f["id"])
    return features


def main():
    parser = argparse.ArgumentParser(description="Writes civic's outlines as GeoJSON to standard output.")
    parser.add_argument("--tiger", nargs="+", metavar="FILE",
                        help="Census TIGER/Line SLDL, SLDU or CD files (.geojson, or .shp/.zip with pyshp): "
                             "write their districts for CIVIC_BOUNDARIES_FILE instead of the bundled outlines")
    parser.add_argument("--tolerance", type=float, default=0.005,
                        help="Douglas-Peucker tolerance in degrees (default 0.005, about 0.5 km; 0 keeps every vertex)")
    parser.add_argument("--smallest", type=float, default=0.0,
                        help="leave out polygons and holes under this many square degrees (default 0)")
    args = parser.parse_args()
    features = tiger(args.tiger, args.tolerance, args.smallest) if args.tiger else bundled()
    # One feature per line: small, and a change shows as a change to the features it touches.
    out = sys.stdout
    out.write('{"type": "FeatureCollection", "features": [\n')
    out.write(",\n".join(json.dumps(f, separators=(",", ":")) for f in features))
    out.write("\n]}\n")


if __name__ == "__main__":
    main()
