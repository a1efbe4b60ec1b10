"""check-migrations.py (make test's imports step) refuses a migration that takes away what the
previous release's code may still use, and an edit to a shipped one; it lets expanding ones and
declared contractions through."""
import pathlib
import subprocess
import sys

import pytest

import script_module

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "deploy/scripts/check-migrations.py"


def load():
    return script_module.load(SCRIPT)


check = load()


@pytest.fixture
def tree(tmp_path):
    """A service with one shipped migration, recorded."""
    folder = tmp_path / "services/shop/ShopService/Migrations"
    folder.mkdir(parents=True)
    (folder / "0001_create.sql").write_text(
        "CREATE TABLE items (id uuid PRIMARY KEY, kind text NOT NULL CHECK (kind IN ('a', 'b')));\n")
    (tmp_path / "deploy").mkdir()
    subprocess.run([sys.executable, str(SCRIPT), "--root", str(tmp_path), "--release"], check=True, capture_output=True)
    return tmp_path


def add(tree, name, sql):
    (tree / "services/shop/ShopService/Migrations" / name).write_text(sql)


def test_the_repository_passes():
    assert check.problems(ROOT) == []


@pytest.mark.parametrize("sql", [
    "ALTER TABLE items ADD COLUMN note text;",
    "ALTER TABLE items ADD COLUMN size int NOT NULL DEFAULT 0;",
    "CREATE TABLE tags (id uuid PRIMARY KEY, name text NOT NULL UNIQUE);\n"
    "ALTER TABLE tags ADD CONSTRAINT tags_name_short CHECK (length(name) < 40);",
    "CREATE INDEX items_kind ON items (kind);",
    "ALTER TABLE items DROP CONSTRAINT items_kind_check;\n"
    "ALTER TABLE items ADD CONSTRAINT items_kind_check CHECK (kind IN ('a', 'b', 'c'));",
    "ALTER TABLE items ALTER COLUMN kind DROP NOT NULL;",
    "-- a column dropped long ago is mentioned: DROP COLUMN old\nALTER TABLE items ADD COLUMN n int;",
])
def test_an_expanding_migration_passes(tree, sql):
    add(tree, "0002_more.sql", sql)
    assert check.problems(tree) == []


@pytest.mark.parametrize("sql, what", [
    ("ALTER TABLE items DROP COLUMN kind;", "drops a column"),
    ("ALTER TABLE items DROP kind;", "drops column kind"),
    ("DROP TABLE items;", "drops a table"),
    ("ALTER TABLE items RENAME COLUMN kind TO sort;", "renames"),
    ("ALTER TABLE items ALTER COLUMN kind TYPE varchar(10);", "changes the type of column kind"),
    ("ALTER TABLE items ALTER COLUMN note SET NOT NULL;", "makes column note not null"),
    ("ALTER TABLE items ADD COLUMN size int NOT NULL;", "adds NOT NULL column size without a default to items"),
    ("ALTER TABLE items ADD CONSTRAINT items_small CHECK (kind <> 'b');", "adds constraint items_small to items"),
])
def test_a_migration_that_takes_away_is_refused_unless_it_says_why(tree, sql, what):
    add(tree, "0002_less.sql", sql)
    found = check.problems(tree)
    assert len(found) == 1 and found[0].startswith("services/shop/ShopService/Migrations/0002_less.sql: ")
    assert what in found[0]
    add(tree, "0002_less.sql", "-- contract: no release still running reads it (the last one stopped in 1.4.0)\n" + sql)
    assert check.problems(tree) == []


def test_a_shipped_migration_stays_as_it_is(tree):
    path = tree / "services/shop/ShopService/Migrations/0001_create.sql"
    path.write_text(path.read_text() + "-- tidied\n")
    assert check.problems(tree) == [
        "services/shop/ShopService/Migrations/0001_create.sql: shipped in a release, now edited (add a new migration instead)"]
    path.unlink()
    assert check.problems(tree) == [
        "services/shop/ShopService/Migrations/0001_create.sql: shipped in a release, now missing (add a new migration instead)"]


def test_the_command_fails_naming_the_file(tree):
    add(tree, "0002_less.sql", "DROP TABLE items;")
    done = subprocess.run([sys.executable, str(SCRIPT), "--root", str(tree)], capture_output=True, text=True)
    assert done.returncode == 1 and "0002_less.sql: drops a table" in done.stderr
