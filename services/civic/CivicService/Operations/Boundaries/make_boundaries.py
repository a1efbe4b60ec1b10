#!/usr/bin/env python3
"""Writes boundaries.geojson: simplified outlines (a few vertices each, good to a few
kilometres) of the jurisdictions PolitiMap starts with, traced by hand from the public
outlines of the City of San Luis Obispo, San Luis Obispo County, California and the United
States, plus the districts that contain San Luis Obispo (Assembly District 30, Senate District
17, Congressional District CA-24) approximated by the county outline they share there.
Coordinates are [longitude, latitude]; each ring is closed. Rerun after editing:
    python3 make_boundaries.py > boundaries.geojson
"""
import json

CITY = "ocd-jurisdiction/country:us/state:ca/place:san_luis_obispo/government"
COUNTY = "ocd-jurisdiction/country:us/state:ca/county:san_luis_obispo/government"
STATE = "ocd-jurisdiction/country:us/state:ca/government"
FEDERAL = "ocd-jurisdiction/country:us/government"

city = [(-120.705, 35.305), (-120.655, 35.325), (-120.615, 35.300), (-120.625, 35.245), (-120.690, 35.240)]
county = [(-121.28, 35.79), (-120.20, 35.79), (-119.55, 35.18), (-119.47, 34.90), (-120.30, 34.99),
          (-120.65, 34.98), (-120.64, 35.14), (-120.90, 35.45)]
california_coast = [(-124.41, 42.00), (-124.41, 40.40), (-123.80, 39.80), (-123.00, 38.00), (-122.50, 37.20),
                    (-121.90, 36.30), (-120.90, 35.45), (-120.64, 34.90), (-120.47, 34.45), (-118.50, 34.00),
                    (-117.12, 32.53)]
california = california_coast + [(-114.72, 32.72), (-114.13, 34.27), (-114.63, 35.00), (-120.00, 39.00),
                                  (-120.00, 42.00)]
# The contiguous states: the Pacific coast kept west of California's, the Canadian border, the
# Atlantic and the Gulf coasts, the Mexican border kept south of California's.
lower48 = ([(-124.90, 48.40), (-123.00, 49.00), (-95.15, 49.00), (-89.50, 48.00), (-84.50, 46.50),
            (-82.40, 45.30), (-82.50, 42.00), (-79.00, 43.30), (-76.30, 44.20), (-74.70, 45.00),
            (-71.50, 45.00), (-69.20, 47.45), (-67.00, 45.20), (-70.00, 43.60), (-70.00, 41.50),
            (-74.00, 40.30), (-75.50, 35.20), (-81.00, 31.50), (-80.00, 26.50), (-80.40, 25.00),
            (-82.00, 26.50), (-83.00, 29.00), (-85.00, 29.50), (-89.00, 30.20), (-89.50, 29.00),
            (-94.00, 29.50), (-97.20, 26.00), (-99.50, 27.50), (-101.50, 29.80), (-104.50, 29.60),
            (-106.50, 31.75), (-108.20, 31.33), (-111.07, 31.33), (-114.81, 32.49), (-117.13, 32.52)]
           + [(-118.70, 33.80), (-120.70, 34.35), (-121.00, 34.90), (-121.20, 35.45), (-122.20, 36.30),
              (-122.80, 37.20), (-123.30, 38.00), (-124.10, 39.80), (-124.70, 40.40), (-124.70, 42.00)])
alaska = [(-168.0, 54.0), (-141.0, 60.0), (-141.0, 69.7), (-156.8, 71.4), (-168.0, 68.9), (-166.0, 60.0)]
hawaii = [(-160.6, 21.8), (-157.6, 21.9), (-154.7, 19.5), (-155.9, 18.9), (-156.5, 20.5)]


def ring(points):
    points = [list(p) for p in points]
    return points + [points[0]]


def feature(fid, jurisdiction, name, level, polygons, district=None):
    return {"type": "Feature", "id": fid,
            "properties": {"jurisdictionId": jurisdiction, "name": name, "level": level, "district": district},
            "geometry": {"type": "MultiPolygon", "coordinates": [[ring(p)] for p in polygons]}}


features = [
    feature("place:san_luis_obispo", CITY, "San Luis Obispo", "local", [city]),
    feature("county:san_luis_obispo", COUNTY, "San Luis Obispo County", "county", [county]),
    feature("state:ca", STATE, "California", "state", [california]),
    feature("state:ca/sldl:30", STATE, "California Assembly District 30", "state", [county], "30"),
    feature("state:ca/sldu:17", STATE, "California Senate District 17", "state", [county], "17"),
    feature("country:us", FEDERAL, "United States", "federal", [lower48, alaska, hawaii]),
    feature("country:us/cd:ca-24", FEDERAL, "California's 24th congressional district", "federal", [county], "CA-24"),
]
print(json.dumps({"type": "FeatureCollection", "features": features}, indent=1))
