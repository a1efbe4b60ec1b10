#!/usr/bin/env python3
"""Writes the sample campus timetable (CSV, the format of docs/routing.md) for `make up`.

    python3 deploy/campus/generate_timetable.py > services/routing/RoutingService/Resources/sample-timetable.csv

Deterministic (seeded). 32 modules of four faculties, each with three or four lectures, a tutorial
and for some a practical a week: one row per weekly meeting, on the sample campus's lecture
venues, no venue holding two meetings at once. Weekly from the start of 2026 without an end (so
the sample stays current), with the public holidays of the campus's calendar as exceptions.
"""
import random
import sys

VENUES = {
    "lecture": ["Engineering Lecture Hall 1", "Engineering Lecture Hall 2", "Engineering Lecture Hall 3",
                "IT 4-1", "Humanities Auditorium", "Humanities 16-15"],
    "tutorial": ["IT 2-27", "Humanities 16-15", "Library Study Commons", "Engineering Lecture Hall 3"],
    "practical": ["IT 2-27", "Library Study Commons", "Sports Hall"],
}
MODULES = [
    ("COS 110", "Program Design: Introduction", "Engineering, Built Environment and IT"),
    ("COS 132", "Imperative Programming", "Engineering, Built Environment and IT"),
    ("COS 151", "Introduction to Computer Science", "Engineering, Built Environment and IT"),
    ("COS 212", "Data Structures and Algorithms", "Engineering, Built Environment and IT"),
    ("COS 214", "Software Modelling", "Engineering, Built Environment and IT"),
    ("COS 221", "Introduction to Database Systems", "Engineering, Built Environment and IT"),
    ("COS 226", "Concurrent Systems", "Engineering, Built Environment and IT"),
    ("COS 301", "Software Engineering", "Engineering, Built Environment and IT"),
    ("COS 330", "Computer Security and Ethics", "Engineering, Built Environment and IT"),
    ("COS 332", "Computer Networks", "Engineering, Built Environment and IT"),
    ("COS 341", "Compiler Construction", "Engineering, Built Environment and IT"),
    ("COS 344", "Computer Graphics", "Engineering, Built Environment and IT"),
    ("EAI 320", "Artificial Intelligence", "Engineering, Built Environment and IT"),
    ("EMK 310", "Microprocessors", "Engineering, Built Environment and IT"),
    ("MKM 215", "Mechanics", "Engineering, Built Environment and IT"),
    ("SWK 122", "Structures", "Engineering, Built Environment and IT"),
    ("WTW 114", "Calculus", "Natural and Agricultural Sciences"),
    ("WTW 115", "Discrete Structures", "Natural and Agricultural Sciences"),
    ("WTW 124", "Mathematics", "Natural and Agricultural Sciences"),
    ("WTW 211", "Linear Algebra", "Natural and Agricultural Sciences"),
    ("STK 110", "Statistics", "Natural and Agricultural Sciences"),
    ("STK 210", "Statistical Inference", "Natural and Agricultural Sciences"),
    ("PHY 114", "First Course in Physics", "Natural and Agricultural Sciences"),
    ("CMY 117", "General Chemistry", "Natural and Agricultural Sciences"),
    ("ENG 110", "Introduction to Literature in English", "Humanities"),
    ("HIS 110", "Historical Perspectives", "Humanities"),
    ("PSY 110", "Introduction to Psychology", "Humanities"),
    ("PHL 114", "Knowledge and Reality", "Humanities"),
    ("SOC 110", "Introduction to Sociology", "Humanities"),
    ("MUS 120", "Music History", "Humanities"),
    ("ECO 110", "Economics", "Economic and Management Sciences"),
    ("FBS 110", "Financial Accounting", "Economic and Management Sciences"),
]
DAYS = ["MO", "TU", "WE", "TH", "FR"]
PERIODS = ["07:30", "08:30", "09:30", "10:30", "11:30", "12:30", "13:30", "14:30", "15:30", "16:30"]
HOLIDAYS = ["2026-03-21", "2026-04-03", "2026-04-06", "2026-04-27", "2026-05-01", "2026-06-16",
            "2026-08-10", "2026-09-24", "2026-12-16", "2026-12-25", "2027-01-01"]
FROM = "2026-01-05"


def end(start, minutes):
    hour, minute = map(int, start.split(":"))
    total = hour * 60 + minute + minutes
    return "%02d:%02d" % (total // 60, total % 60)


def main():
    rng = random.Random(31)
    taken = set()  # (day, period, venue)

    def place(kind, length_periods=1):
        for _ in range(10_000):
            day = rng.choice(DAYS)
            first = rng.randrange(0, len(PERIODS) - length_periods + 1)
            venue = rng.choice(VENUES[kind])
            slots = [(day, PERIODS[first + i], venue) for i in range(length_periods)]
            if not any(slot in taken for slot in slots):
                taken.update(slots)
                return day, PERIODS[first], venue
        raise SystemExit("no free slot")

    out = sys.stdout
    out.write("module,name,faculty,kind,days,start,end,location,from,until,except,uid\n")
    rows = 0
    for code, name, faculty in MODULES:
        meetings = [("lecture", 1)] * rng.choice([3, 4]) + [("tutorial", 1)]
        if rng.random() < 0.5:
            meetings.append(("practical", 3))
        for index, (kind, periods) in enumerate(meetings):
            day, start, venue = place(kind, periods)
            uid = "sample:%s:%s:%d" % (code.replace(" ", ""), kind, index)
            quoted_name = '"%s"' % name if "," in name else name
            quoted_faculty = '"%s"' % faculty if "," in faculty else faculty
            out.write(",".join([code, quoted_name, quoted_faculty, kind, day, start, end(start, periods * 60 - 10),
                                venue, FROM, "", ";".join(HOLIDAYS), uid]) + "\n")
            rows += 1
    sys.stderr.write("%d modules, %d weekly meetings\n" % (len(MODULES), rows))


if __name__ == "__main__":
    main()
