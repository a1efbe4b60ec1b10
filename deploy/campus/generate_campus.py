#!/usr/bin/env python3
"""Generates the NavUP sample campus as OpenStreetMap XML (stdlib only, deterministic).

    python3 deploy/campus/generate_campus.py > services/routing/RoutingService/Resources/navup-campus.osm

The campus: six buildings of three to five floors, indoor corridors on every floor
(`highway=corridor`, `indoor=corridor`, `level=N`), stairs (`highway=steps`) at both ends of each
building, an elevator (`highway=elevator`, a way through one node per level) in every building
but the historic Old Arts, outdoor footways between the buildings, entrances with doors
(`door=*`, `width=*`: some too narrow for a wheelchair), outdoor steps, a gentle ramp (6 %) and a
steep one (12 %).

Venues and Wi-Fi access points are OSM nodes outside any way:
  venues:        `navup:venue=<kind>`, `name`, `level`, `building`, `description`, `history`
                 (kinds: lecture_hall, food_court, ablution, sport, faculty_house, landmark)
  access points: `navup:wifi_ap=yes`, `wifi:bssid`, `level`, `capacity` (people the area holds
                 comfortably; crowd density is devices / capacity)
"""
import math
import sys
from xml.sax.saxutils import quoteattr

LAT0, LON0 = -25.7545, 28.2314  # Hatfield campus, Pretoria
M_PER_DEG_LAT = 111_320.0
M_PER_DEG_LON = M_PER_DEG_LAT * math.cos(math.radians(LAT0))
FLOOR_HEIGHT = 3.5

# name, code, x, y (south-west corner, metres), width (east), depth (north), floors, elevator
BUILDINGS = [
    ("Engineering I", "ENG1", 0, 0, 80, 40, 5, True),
    ("IT Building", "IT", 120, 0, 60, 40, 4, True),
    ("Humanities", "HUM", 0, 90, 60, 40, 4, True),
    ("Merensky Library", "LIB", 110, 90, 60, 50, 3, True),
    ("Student Centre", "SC", 220, 0, 60, 40, 3, True),
    ("Old Arts", "OA", 220, 90, 60, 30, 3, False),
]
ROADS_Y = [-10, 75]
ROADS_X = [-20, 100, 200, 300]
ROAD_X_SPAN = (-20, 300)
ROAD_Y_SPAN = (-10, 175)


class OSM:
    def __init__(self):
        self.nodes = []  # (id, x, y, tags)
        self.ways = []  # (id, [node ids], tags)
        self.index = {}  # (level or 'out', x, y) -> node id
        self.next_id = 1

    def node(self, x, y, level=None, tags=None, key=True):
        k = (level, round(x, 2), round(y, 2))
        if key and k in self.index and not tags:
            return self.index[k]
        nid = self.next_id
        self.next_id += 1
        self.nodes.append((nid, x, y, tags or {}))
        if key:
            self.index[k] = nid
        return nid

    def way(self, refs, tags):
        self.ways.append((self.next_id, refs, tags))
        self.next_id += 1

    def line(self, x0, y0, x1, y1, level, step, tags):
        """A way from (x0, y0) to (x1, y1) with a node every `step` metres."""
        length = math.hypot(x1 - x0, y1 - y0)
        count = max(1, round(length / step))
        refs = [self.node(x0 + (x1 - x0) * i / count, y0 + (y1 - y0) * i / count, level) for i in range(count + 1)]
        self.way(refs, tags)
        return refs

    def write(self, out):
        out.write("<?xml version='1.0' encoding='UTF-8'?>\n")
        out.write("<osm version='0.6' generator='deploy/campus/generate_campus.py'>\n")
        lats = [LAT0 + y / M_PER_DEG_LAT for _, _, y, _ in self.nodes]
        lons = [LON0 + x / M_PER_DEG_LON for _, x, _, _ in self.nodes]
        out.write(
            f"  <bounds minlat='{min(lats):.7f}' minlon='{min(lons):.7f}' "
            f"maxlat='{max(lats):.7f}' maxlon='{max(lons):.7f}'/>\n")
        for (nid, x, y, tags), lat, lon in zip(self.nodes, lats, lons):
            if tags:
                out.write(f"  <node id='{nid}' lat='{lat:.7f}' lon='{lon:.7f}' version='1'>\n")
                for k, v in tags.items():
                    out.write(f"    <tag k={quoteattr(k)} v={quoteattr(str(v))}/>\n")
                out.write("  </node>\n")
            else:
                out.write(f"  <node id='{nid}' lat='{lat:.7f}' lon='{lon:.7f}' version='1'/>\n")
        for wid, refs, tags in self.ways:
            out.write(f"  <way id='{wid}' version='1'>\n")
            for ref in refs:
                out.write(f"    <nd ref='{ref}'/>\n")
            for k, v in tags.items():
                out.write(f"    <tag k={quoteattr(k)} v={quoteattr(str(v))}/>\n")
            out.write("  </way>\n")
        out.write("</osm>\n")


def corridors(osm, building):
    """Corridors on every floor: three east-west lines and a north-south line every 10 m,
    nodes every metre; crossings share nodes."""
    name, code, bx, by, w, d, floors, _ = building
    for level in range(floors):
        tags = {"highway": "corridor", "indoor": "corridor", "level": level, "building": name}
        for oy in (0, d // 2, d):
            osm.line(bx, by + oy, bx + w, by + oy, level, 1.0, dict(tags, name=f"{code} corridor {level}"))
        for ox in range(0, w + 1, 10):
            osm.line(bx + ox, by, bx + ox, by + d, level, 1.0, tags)


def vertical(osm, building):
    name, code, bx, by, w, d, floors, elevator = building
    mid = by + d // 2
    for level in range(floors - 1):
        for x0, x1 in ((bx, bx + 6), (bx + w, bx + w - 6)):
            lower = osm.node(x0, mid, level)
            upper = osm.node(x1, mid, level + 1)
            osm.way([lower, upper], {
                "highway": "steps", "indoor": "yes", "level": f"{level};{level + 1}", "incline": "up",
                "step_count": 20, "building": name})
    if elevator:
        refs = [osm.node(bx + w // 2, mid, level) for level in range(floors)]
        osm.way(refs, {
            "highway": "elevator", "indoor": "yes", "level": ";".join(str(i) for i in range(floors)),
            "wheelchair": "yes", "building": name, "name": f"{code} lift"})


def entrance(osm, building, inside, outside_path, door_width, approach="footway", incline=None, name=None):
    """A door on the building's outline, a short way into the corridor and a path out to a road."""
    bname = building[0]
    (ix, iy), (ox, oy) = inside, outside_path[0]
    inner = osm.node(ix, iy, 0)
    door_tags = {"door": "hinged", "entrance": "main" if name is None else "yes", "width": door_width, "level": 0}
    if name:
        door_tags["name"] = name
    door = osm.node((ix + ox) / 2, (iy + oy) / 2, "door", door_tags, key=False)
    outer = osm.node(ox, oy, None)
    osm.way([inner, door, outer], {"highway": "footway", "indoor": "door", "level": 0, "building": bname})
    tags = {"highway": approach}
    if approach == "steps":
        tags.update(step_count=6, incline="up")
    if incline:
        tags.update(incline=incline, ramp="yes", wheelchair="yes" if float(incline.rstrip("%")) <= 8 else "no")
    points = outside_path
    for (x0, y0), (x1, y1) in zip(points, points[1:]):
        osm.line(x0, y0, x1, y1, None, 2.0, dict(tags, surface="paving_stones"))


def outdoor(osm):
    tags = {"highway": "footway", "surface": "paved"}
    xs = sorted(set(ROADS_X + [40, 150, 250, 30, 140, 180, -20, 280]))
    for y in ROADS_Y:
        # split at every crossing so that roads share nodes with the paths that meet them
        for x0, x1 in zip(xs, xs[1:]):
            osm.line(x0, y, x1, y, None, 2.0, dict(tags, name="University Road" if y < 0 else "Library Walk"))
    for x in ROADS_X:
        ys = sorted(set(ROADS_Y + [ROAD_Y_SPAN[1], 20, 115, 105]))
        for y0, y1 in zip(ys, ys[1:]):
            osm.line(x, y0, x, y1, None, 2.0, dict(tags, name=f"Walk {x}"))
    osm.line(-20, 175, 300, 175, None, 2.0, dict(tags, name="Jacaranda Lane"))


def main():
    osm = OSM()
    for b in BUILDINGS:
        corridors(osm, b)
        vertical(osm, b)
    outdoor(osm)
    eng, it, hum, lib, sc, oa = BUILDINGS
    # Engineering I: steps at the main (south) door, a 6 % ramp to the west door
    entrance(osm, eng, (40, 0), [(40, -2), (40, -6)], 1.2, approach="steps")
    osm.line(40, -6, 40, -10, None, 2.0, {"highway": "footway"})
    entrance(osm, eng, (0, 20), [(-2, 20), (-20, 20)], 1.0, incline="6%", name="ENG1 west door")
    # IT Building: a narrow main door (0.7 m), a wide east door
    entrance(osm, it, (150, 0), [(150, -2), (150, -10)], 0.7)
    entrance(osm, it, (180, 20), [(182, 20), (200, 20)], 1.1, name="IT east door")
    entrance(osm, hum, (30, 90), [(30, 88), (30, 75)], 1.2)
    # Merensky Library: a 12 % ramp at the main door; a level west door
    entrance(osm, lib, (140, 90), [(140, 88), (140, 75)], 1.5, incline="12%")
    entrance(osm, lib, (110, 115), [(108, 115), (100, 115)], 1.0, name="LIB west door")
    entrance(osm, sc, (250, 0), [(250, -2), (250, -10)], 2.0)
    entrance(osm, sc, (280, 20), [(282, 20), (300, 20)], 1.2, name="SC east door")
    entrance(osm, oa, (250, 90), [(250, 88), (250, 75)], 1.2)
    entrance(osm, oa, (280, 105), [(282, 105), (300, 105)], 0.8, name="OA east door")

    venues = [
        ("Engineering Lecture Hall 1", "lecture_hall", eng, 0, 10, 20, "Tiered hall for 450 students.",
         "Opened in 1958 with the first engineering faculty building."),
        ("Engineering Lecture Hall 2", "lecture_hall", eng, 2, 70, 20, "Hall for 300 students with a design studio.",
         ""),
        ("Engineering Lecture Hall 3", "lecture_hall", eng, 4, 40, 35, "Seminar hall on the top floor.", ""),
        ("IT 4-1", "lecture_hall", it, 3, 130, 20, "Computer lab and lecture room.", ""),
        ("IT 2-27", "lecture_hall", it, 1, 170, 35, "Lecture room for 120.", ""),
        ("Humanities Auditorium", "lecture_hall", hum, 0, 20, 110, "Auditorium for 600.",
         "The Humanities building was completed in 1974."),
        ("Humanities 16-15", "lecture_hall", hum, 3, 50, 125, "Seminar room.", ""),
        ("Library Study Commons", "lecture_hall", lib, 1, 140, 115, "Open study space with 200 seats.", ""),
        ("Student Centre Food Court", "food_court", sc, 0, 250, 20, "Twelve food outlets and seating for 500.", ""),
        ("Aula Cafe", "food_court", lib, 0, 160, 130, "Coffee and sandwiches.", ""),
        ("Engineering Coffee Corner", "food_court", eng, 1, 60, 5, "Coffee bar.", ""),
        ("Engineering Ablutions Ground", "ablution", eng, 0, 75, 35, "Toilets, accessible stall.", ""),
        ("IT Ablutions Level 2", "ablution", it, 2, 175, 5, "Toilets.", ""),
        ("Library Ablutions", "ablution", lib, 0, 115, 135, "Toilets and baby changing.", ""),
        ("Student Centre Ablutions", "ablution", sc, 1, 275, 35, "Toilets and showers.", ""),
        ("Sports Hall", "sport", None, 0, 300, 175, "Indoor courts and gym.", ""),
        ("Hillcrest Sports Fields", "sport", None, 0, 100, 175, "Rugby and athletics fields.",
         "Home of the Tuks athletics club since 1930."),
        ("Faculty of Engineering House", "faculty_house", eng, 3, 20, 5, "Dean's office and faculty administration.",
         ""),
        ("Faculty of Humanities House", "faculty_house", hum, 1, 10, 130, "Faculty administration.", ""),
        ("EBIT Student House", "faculty_house", it, 0, 125, 35, "Student support.", ""),
        ("Old Arts Clock Tower", "landmark", oa, 0, 230, 105, "The clock tower on the Old Arts building.",
         "Old Arts (1911) is the oldest building on campus; a national monument."),
        ("Jacaranda Avenue", "landmark", None, 0, 200, 175, "Jacaranda trees in bloom in October.", ""),
        ("Student Centre Amphitheatre", "landmark", None, 0, 250, -10, "Open-air stage in front of the centre.", ""),
        ("Old Arts Gallery", "landmark", oa, 2, 260, 115, "Art collection of the university.", ""),
    ]
    for name, kind, b, level, x, y, description, history in venues:
        tags = {"navup:venue": kind, "name": name, "level": level, "description": description}
        if b:
            tags["building"] = b[0]
        if history:
            tags["history"] = history
        osm.node(x, y, "venue", tags, key=False)

    number = 0
    for b in BUILDINGS:
        name, code, bx, by, w, d, floors, _ = b
        for level in range(floors):
            number += 1
            capacity = 400 if code == "SC" and level == 0 else 150
            osm.node(bx + w / 2 + 0.5, by + d / 2 + 0.5, "ap", {
                "navup:wifi_ap": "yes", "wifi:bssid": f"02:00:5e:10:{number // 256:02x}:{number % 256:02x}",
                "level": level, "building": name, "capacity": capacity, "name": f"{code}-L{level}-AP"}, key=False)
    for x, y in ((40, -10), (150, -10), (100, 75), (250, 75), (-20, 115), (200, 175)):
        number += 1
        osm.node(x + 0.5, y + 0.5, "ap", {
            "navup:wifi_ap": "yes", "wifi:bssid": f"02:00:5e:10:{number // 256:02x}:{number % 256:02x}",
            "level": 0, "capacity": 300, "name": f"OUT-{number}-AP"}, key=False)
    osm.write(sys.stdout)


if __name__ == "__main__":
    main()
