"""The PolitiMap fixture: four jurisdictions (San Luis Obispo's council, the county's board of
supervisors, the California Legislature, the US Congress) with their people, bills and meetings,
in Open States API v3 shapes. Generated from a seed, so every run serves the same feed.

Seats, districts and bodies are real; people's names and bill texts are generated.
"""
import datetime as dt
import random
import uuid

SUBJECTS = [
    "Immigration", "Education", "Higher Education", "Visas", "Housing", "Land Use", "Homelessness",
    "Environment", "Water", "Energy", "Climate", "Transportation", "Public Transit", "Roads", "Health",
    "Budget", "Public Safety", "Agriculture", "Labor", "Taxation",
]
TOPICS_TEXT = {
    "Immigration": "immigrant residents and visa holders", "Education": "public schools",
    "Higher Education": "university students and campuses", "Visas": "student and work visas",
    "Housing": "rental housing", "Land Use": "zoning and land use", "Homelessness": "people without homes",
    "Environment": "coastal habitat", "Water": "groundwater basins", "Energy": "rooftop solar",
    "Climate": "greenhouse gas emissions", "Transportation": "regional transportation",
    "Public Transit": "bus service", "Roads": "road repair", "Health": "community clinics",
    "Budget": "the annual budget", "Public Safety": "fire protection", "Agriculture": "vineyards and farms",
    "Labor": "minimum wage workers", "Taxation": "sales tax",
}
VERBS = ["Establishes", "Amends", "Funds", "Extends", "Repeals", "Requires a study of", "Creates a program for",
         "Limits", "Expands", "Clarifies rules for"]
GIVEN = ["Alex", "Maria", "James", "Priya", "Daniel", "Sofia", "Michael", "Aisha", "Robert", "Elena", "David",
         "Grace", "Carlos", "Hannah", "Thomas", "Mei", "Jose", "Olivia", "Samuel", "Fatima", "Kevin", "Laura"]
FAMILY = ["Garcia", "Nguyen", "Smith", "Patel", "Johnson", "Lopez", "Kim", "Brown", "Martinez", "Chen",
          "Davis", "Rodriguez", "Wilson", "Hernandez", "Anderson", "Singh", "Thompson", "Reyes", "Clark", "Walker"]

FEDERAL = "ocd-jurisdiction/country:us/government"
STATE = "ocd-jurisdiction/country:us/state:ca/government"
COUNTY = "ocd-jurisdiction/country:us/state:ca/county:san_luis_obispo/government"
CITY = "ocd-jurisdiction/country:us/state:ca/place:san_luis_obispo/government"

JURISDICTIONS = {
    CITY: {"id": CITY, "name": "San Luis Obispo", "classification": "municipality"},
    COUNTY: {"id": COUNTY, "name": "San Luis Obispo County", "classification": "county"},
    STATE: {"id": STATE, "name": "California", "classification": "state"},
    FEDERAL: {"id": FEDERAL, "name": "United States", "classification": "country"},
}

BASE = dt.datetime(2026, 1, 5, tzinfo=dt.timezone.utc)
# The last day anything in the generated feed happened: every later change is a real one (the
# control API's touch and introduce stamp the time they are made).
END = dt.datetime(2026, 11, 20, tzinfo=dt.timezone.utc)


def iso(moment):
    return moment.strftime("%Y-%m-%dT%H:%M:%S+00:00")


def ocd(kind, rng):
    return f"ocd-{kind}/{uuid.UUID(int=rng.getrandbits(128), version=4)}"


class Fixture:
    """Everything the stand-in serves, generated from `seed`; `scale` multiplies the bills."""

    def __init__(self, seed=20261124, scale=1.0):
        self.rng = random.Random(seed)
        self.people = []
        self.bills = []
        self.events = []
        self.members = {}
        self._people()
        counts = {CITY: 160, COUNTY: 160, STATE: 1200, FEDERAL: 700}
        for jurisdiction, count in counts.items():
            for n in range(int(count * scale)):
                self.bills.append(self.make_bill(jurisdiction, n + 1))
        self._events()

    def person(self, jurisdiction, title, org, district):
        rng = self.rng
        name = f"{rng.choice(GIVEN)} {rng.choice(FAMILY)}"
        slug = name.lower().replace(" ", "-")
        pid = ocd("person", rng)
        # California's city councils and county boards are nonpartisan offices. The draw is
        # made for every seat all the same, so the rest of the generated feed stays as it was.
        party = rng.choice(["Democratic", "Republican", "Independent"])
        if jurisdiction in (CITY, COUNTY):
            party = "Nonpartisan"
        person = {
            "id": pid, "name": name, "party": party,
            "current_role": {"title": title, "org_classification": org, "district": district,
                             "division_id": None},
            "jurisdiction": JURISDICTIONS[jurisdiction],
            "given_name": name.split()[0], "family_name": name.split()[1],
            "image": f"https://photos.example.org/{slug}.jpg",
            "email": f"{slug}@example.gov",
            "created_at": iso(BASE), "updated_at": iso(BASE + dt.timedelta(days=rng.randint(0, 300))),
            "openstates_url": f"https://openstates.org/person/{slug}/",
            "offices": [{"name": "Capitol Office", "voice": f"(805) 555-{rng.randint(1000, 9999)}",
                         "address": f"{rng.randint(100, 999)} Main Street", "classification": "capitol"}],
            "links": [], "sources": [{"url": f"https://roster.example.gov/{slug}", "note": "roster"}],
        }
        self.people.append(person)
        self.members.setdefault(jurisdiction, []).append(person)

    def _people(self):
        self.person(CITY, "Mayor", "legislature", "At-Large")
        self.person(CITY, "Vice Mayor", "legislature", "At-Large")
        for _ in range(3):
            self.person(CITY, "Council Member", "legislature", "At-Large")
        for district in range(1, 6):
            self.person(COUNTY, "Supervisor", "legislature", str(district))
        for district in range(1, 81):
            self.person(STATE, "Assemblymember", "lower", str(district))
        for district in range(1, 41):
            self.person(STATE, "Senator", "upper", str(district))
        for district in range(1, 53):
            self.person(FEDERAL, "Representative", "lower", f"CA-{district}")
        self.person(FEDERAL, "Senator", "upper", "CA")
        self.person(FEDERAL, "Senator", "upper", "CA")

    def identifier(self, jurisdiction, n):
        rng = self.rng
        if jurisdiction == CITY:
            return f"Item {n // 10 + 1}.{chr(97 + n % 10)}", "City Council"
        if jurisdiction == COUNTY:
            return f"BOS {2026}-{n:03d}", "Board of Supervisors"
        if jurisdiction == STATE:
            return (f"AB {n}", "Assembly") if rng.random() < 0.6 else (f"SB {n}", "Senate")
        return (f"H.R. {n}", "House") if rng.random() < 0.65 else (f"S. {n}", "Senate")

    def make_bill(self, jurisdiction, n, now=None):
        rng = self.rng
        identifier, chamber = self.identifier(jurisdiction, n)
        subjects = rng.sample(SUBJECTS, rng.randint(1, 3))
        verb = rng.choice(VERBS)
        title = f"{verb} {TOPICS_TEXT[subjects[0]]}"
        summary = (f"This measure {verb.lower()} {TOPICS_TEXT[subjects[0]]}"
                   + (f" and {TOPICS_TEXT[subjects[1]]}" if len(subjects) > 1 else "")
                   + f" in {JURISDICTIONS[jurisdiction]['name']}.")
        introduced = now or (BASE + dt.timedelta(days=rng.randint(0, 300)))
        members = self.members[jurisdiction]
        sponsor = rng.choice(members)
        steps = 0 if now else rng.choices([0, 1, 2, 3, 4, 5], weights=[3, 4, 3, 2, 2, 1])[0]
        unicameral = jurisdiction in (CITY, COUNTY)
        actions = [{"organization": {"name": chamber, "classification": "legislature"},
                    "description": "Introduced", "date": introduced.date().isoformat(),
                    "classification": ["introduction"], "order": 1}]
        votes = []
        day = introduced
        plan = (["passage", "adoption"] if unicameral
                else ["referral-committee", "committee-passage", "passage", "passage", "executive-signature"])
        for kind in plan[:steps]:
            day = min(END, day + dt.timedelta(days=rng.randint(3, 30)))
            text = {"referral-committee": "Referred to committee", "committee-passage": "Passed committee",
                    "passage": "Passed", "adoption": "Adopted", "executive-signature": "Signed"}[kind]
            actions.append({"organization": {"name": chamber, "classification": "legislature"},
                            "description": text, "date": day.date().isoformat(), "classification": [kind],
                            "order": len(actions) + 1})
            if kind in ("passage", "adoption"):
                voters = members if len(members) <= 9 else rng.sample(members, 9)
                ballots = [{"option": rng.choices(["yes", "no", "abstain"], weights=[7, 2, 1])[0],
                            "voter_name": p["name"], "voter": {"id": p["id"], "name": p["name"]}} for p in voters]
                counts = {}
                for ballot in ballots:
                    counts[ballot["option"]] = counts.get(ballot["option"], 0) + 1
                votes.append({"id": ocd("vote", rng), "motion_text": f"{text}: {identifier}",
                              "start_date": day.date().isoformat(), "result": "pass",
                              "organization": {"name": chamber, "classification": "legislature"},
                              "counts": [{"option": k, "value": v} for k, v in sorted(counts.items())],
                              "votes": ballots})
        updated = now or min(END, day + dt.timedelta(hours=rng.randint(1, 48)))
        bid = ocd("bill", rng)
        slug = identifier.lower().replace(" ", "").replace(".", "")
        return {
            "id": bid, "session": "2025-2026" if jurisdiction in (STATE, FEDERAL) else "2026",
            "jurisdiction": JURISDICTIONS[jurisdiction],
            "from_organization": {"name": chamber, "classification": "legislature"},
            "identifier": identifier, "title": title, "classification": ["bill"], "subject": subjects,
            "openstates_url": f"https://openstates.example.org/{slug}",
            "first_action_date": introduced.date().isoformat(), "latest_action_date": day.date().isoformat(),
            "latest_action_description": actions[-1]["description"], "latest_passage_date": None,
            "created_at": iso(introduced), "updated_at": iso(updated),
            "abstracts": [{"abstract": summary, "note": "summary"}],
            "actions": actions,
            "sponsorships": [{"name": sponsor["name"], "entity_type": "person", "primary": True,
                              "classification": "author", "person": {"id": sponsor["id"], "name": sponsor["name"]}}],
            "votes": votes,
            "versions": [{"note": "Introduced", "date": introduced.date().isoformat(),
                          "links": [{"url": f"https://docs.example.gov/{slug}/introduced.pdf",
                                     "media_type": "application/pdf"}]}],
            "documents": [],
            "sources": [{"url": f"https://legislature.example.gov/{slug}", "note": "bill page"}],
        }

    def _events(self):
        rng = self.rng
        bodies = [(CITY, "San Luis Obispo City Council", "Council Hearing Room, 990 Palm Street", 12, 14),
                  (COUNTY, "San Luis Obispo County Board of Supervisors",
                   "Board Chambers, 1055 Monterey Street", 12, 14),
                  (STATE, "Assembly Committee on Higher Education", "State Capitol, Room 444", 6, 30),
                  (FEDERAL, "House Committee on the Judiciary", "2141 Rayburn House Office Building", 4, 45)]
        for jurisdiction, body, place, count, every in bodies:
            own = [b for b in self.bills if b["jurisdiction"]["id"] == jurisdiction]
            for n in range(count):
                start = dt.datetime(2026, 10, 6, 17, 0, tzinfo=dt.timezone.utc) + dt.timedelta(days=every * n)
                items = rng.sample(own, 3)
                self.events.append({
                    "id": ocd("event", rng), "name": f"{body} meeting", "jurisdiction": JURISDICTIONS[jurisdiction],
                    "description": "Regular meeting", "classification": "committee-meeting",
                    "start_date": iso(start), "end_date": iso(start + dt.timedelta(hours=3)), "all_day": False,
                    "status": "tentative" if start > BASE + dt.timedelta(days=330) else "confirmed",
                    "updated_at": iso(start - dt.timedelta(days=7)),
                    "location": {"name": place, "url": None, "coordinates": None},
                    "media": [], "links": [],
                    "documents": [{"note": "Agenda", "date": (start - dt.timedelta(days=5)).date().isoformat(),
                                   "links": [{"url": f"https://agendas.example.gov/{n}.pdf",
                                              "media_type": "application/pdf"}]}],
                    "participants": [{"note": "host", "name": body, "entity_type": "organization"}],
                    "agenda": [{"description": f"{b['identifier']}: {b['title']}", "classification": [],
                                "order": i + 1, "subjects": b["subject"], "notes": [], "extras": {},
                                "related_entities": [{"name": b["identifier"], "entity_type": "bill",
                                                      "bill": {"id": b["id"], "identifier": b["identifier"]}}]}
                               for i, b in enumerate(items)],
                    "sources": [{"url": f"https://agendas.example.gov/{n}", "note": "agenda page"}],
                })
