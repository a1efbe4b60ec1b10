"""Each app's core flow through the Python client that openapi-python-client made from the document,
against a running system (make test's api-clients step, deploy/scripts/api-clients.sh).

    python3 Tests/api-clients/flows.py CLIENT_DIR BASE_URL

CLIENT_DIR holds the generated package `backplane_client`. A new account registers and logs in;
then, for each of the five apps, one write and one read, each reply's body checked through the
generated models: PostcardBuddy a free e-card ordered and read back, NavUP a venue search and a
saved pin, Gifter a catalogue item added to the wish list, PolitiMap a bill bookmarked, TapWater a
drink logged. Prints one line per flow and ends with "N passed, N failed"; exits 1 on a failure.
"""
import datetime
import sys
import time
import traceback
import uuid

sys.path.insert(0, sys.argv[1])

from backplane_client import AuthenticatedClient, Client  # noqa: E402
from backplane_client import models as m  # noqa: E402
from backplane_client.api.auth import get_me, login, register  # noqa: E402
from backplane_client.api.campus import list_pins, save_pin, search_venues  # noqa: E402
from backplane_client.api.civic import list_bill_bookmarks, list_bills, put_bill_bookmark  # noqa: E402
from backplane_client.api.hydration import list_drinks, log_drink  # noqa: E402
from backplane_client.api.orders import create_order, get_order  # noqa: E402
from backplane_client.api.social import add_favourite, list_favourites, search_catalog  # noqa: E402

BASE_URL = sys.argv[2]
PASSWORD = "Tap-Water-2026"


def ok(response, status, model):
    """The parsed body of `response`, after checking its status and the model it decoded to."""
    assert response.status_code == status, f"status {response.status_code}, wanted {status}: {response.content[:400]!r}"
    assert isinstance(response.parsed, model), f"decoded as {type(response.parsed).__name__}, wanted {model.__name__}"
    return response.parsed


def account():
    """Registers a new user and logs in: the client that carries its access token."""
    anonymous = Client(base_url=BASE_URL, raise_on_unexpected_status=True)
    name = f"api-clients-{uuid.uuid4().hex[:12]}@example.org"
    created = ok(register.sync_detailed(client=anonymous, body=m.RegisterRequest(username=name, password=PASSWORD)),
                 201, m.RegisterReply)
    session = ok(login.sync_detailed(client=anonymous, body=m.LoginRequest(username=name, password=PASSWORD)),
                 200, m.Session)
    assert session.access_token and session.refresh_token and session.expires_in > 0, session
    user = AuthenticatedClient(base_url=BASE_URL, token=session.access_token, raise_on_unexpected_status=True)
    me = ok(get_me.sync_detailed(client=user), 200, m.Profile)
    assert str(me.user_id) == str(created.user_id) and me.username == name, me
    return user


def postcardbuddy(user):
    """A free e-card: no card on file and no paymentMethodId, a total of 0; then the order read back."""
    ecard = m.EcardDetailsType0(size="A6", greeting="Greetings from the API test", sender_name="Ann",
                                recipients=[m.EmailRecipient(email="bo@example.org")])
    placed = ok(create_order.sync_detailed(client=user, idempotency_key=str(uuid.uuid4()),
                                           body=m.OrderRequest(kind=m.OrderRequestKind.ECARD, currency="EUR",
                                                               ecard=ecard)), 201, m.OrderCreated)
    assert placed.total.amount == 0 and placed.total.currency == "EUR", placed.total
    order = ok(get_order.sync_detailed(str(placed.id), client=user), 200, m.Order)
    assert order.id == placed.id and order.kind == "ecard" and order.total.amount == 0, order
    assert [r.email for r in order.ecard.recipients] == ["bo@example.org"], order.ecard
    assert order.ecard.greeting == "Greetings from the API test", order.ecard


def navup(user):
    """A venue search on the sample campus; a pin saved at the first venue, then listed."""
    found = ok(search_venues.sync_detailed(client=user, q="library"), 200, m.VenueList)
    assert found.items and all(v.name and v.id for v in found.items), found
    assert any("library" in v.name.lower() for v in found.items), [v.name for v in found.items]
    venue = found.items[0]
    pin = ok(save_pin.sync_detailed(client=user, body=m.PinDraft(lat=venue.lat, lon=venue.lon,
                                                                  description=f"Meet at {venue.name}")), 201, m.Pin)
    assert pin.description == f"Meet at {venue.name}" and abs(pin.lat - venue.lat) < 1e-9, pin
    pins = ok(list_pins.sync_detailed(client=user), 200, m.PinList)
    assert [p.id for p in pins.items] == [pin.id], pins


def gifter(user):
    """A catalogue item added to the caller's wish list, then the list."""
    items = ok(search_catalog.sync_detailed(client=user, q="mug"), 200, m.CatalogItemList).items
    assert items and all(i.id and i.title and i.price.currency for i in items), items
    item = items[0]
    added = ok(add_favourite.sync_detailed(client=user, body=m.NewFavourite(item_id=item.id, note="blue")),
               201, m.Favourite)
    assert added.item_id == item.id and added.title == item.title and added.note == "blue", added
    listed = ok(list_favourites.sync_detailed(client=user), 200, m.FavouriteList)
    assert [(f.item_id, f.title) for f in listed.items] == [(item.id, item.title)], listed


def politimap(user):
    """The bills the civic feed brought in (the import runs at start: waited for), one bookmarked."""
    deadline = time.monotonic() + 120
    while True:
        bills = ok(list_bills.sync_detailed(client=user, limit=5), 200, m.BillPage).items
        if bills or time.monotonic() > deadline:
            break
        time.sleep(1)
    assert bills and all(b.id and b.title for b in bills), "no bills after 120 s"
    bill = bills[0]
    marked = ok(put_bill_bookmark.sync_detailed(str(bill.id), client=user), 201, m.BillBookmark)
    assert marked.bill_id == bill.id and marked.bill.title == bill.title, marked
    page = ok(list_bill_bookmarks.sync_detailed(client=user), 200, m.BillBookmarkPage)
    assert [b.bill_id for b in page.items] == [bill.id], page


def tapwater(user):
    """A glass logged now, then the drink log."""
    drink_id = uuid.uuid4()
    now = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
    drank_at = now.isoformat().replace("+00:00", "Z")
    drink = ok(log_drink.sync_detailed(client=user, body=m.DrinkDraft(uuid=drink_id, category=m.DrinkCategory.GLASS,
                                                                        drank_at=drank_at)), 201, m.Drink)
    assert drink.uuid == drink_id and drink.category == m.DrinkCategory.GLASS and drink.volume.ml > 0, drink
    listed = ok(list_drinks.sync_detailed(client=user), 200, m.DrinkList)
    assert [(d.uuid, d.volume.ml) for d in listed.items] == [(drink_id, drink.volume.ml)], listed


def main():
    passed = failed = 0
    try:
        user = account()
        print("account: PASS (registered, logged in, read back)")
        passed += 1
    except Exception:
        traceback.print_exc()
        print("account: FAIL")
        print("1 failed, 5 not run")
        return 1
    for flow in (postcardbuddy, navup, gifter, politimap, tapwater):
        try:
            flow(user)
            print(f"{flow.__name__}: PASS ({flow.__doc__.splitlines()[0]})")
            passed += 1
        except Exception:
            traceback.print_exc()
            print(f"{flow.__name__}: FAIL")
            failed += 1
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
