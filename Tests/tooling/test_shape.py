"""check-shape.py passes a service built as docs/design.md draws it and names each way out of it.

Each test writes a small repository (deploy/services.txt and one worker service, `drinks`) into
a temporary folder, breaks one rule, and looks for the line that names it.
"""
import pathlib

import pytest

import script_module

ROOT = pathlib.Path(__file__).resolve().parents[2]

GOOD = {
    "deploy/services.txt": "broker broker\ndrinks worker\ngateway gateway\n",
    "services/drinks/main/main.swift": "await WorkerHost.main(DrinksService.spec, DrinksService.definition)\n",
    "services/drinks/DrinksContract/Drinks.swift": "public enum Drinks {}\n",
    "services/drinks/DrinksService/DrinksService.swift": (
        "import ServiceKit\n"
        "enum DrinksService {\n"
        "    static func configure(_ resources: WorkerResources, router: inout OperationRouter) {\n"
        "        let handler = DrinkHandler(store: DrinkStore(postgres: resources.postgres))\n"
        "        router.register(Drinks.Log.self) { try await handler.log($0, $1) }\n"
        "    }\n"
        "}\n"),
    "services/drinks/DrinksService/Handlers/DrinkHandler.swift": (
        "/// Answers drink requests; the SQL is in DrinkStore, never a PostgresClient here.\n"
        "struct DrinkHandler {\n"
        "    let store: DrinkStore\n"
        "    func log(_ draft: Draft, _ context: Context) async throws -> Drink {\n"
        "        let drink = try DrinkRules.record(draft, now: context.now)\n"
        "        return try await store.insert(drink)\n"
        "    }\n"
        "}\n"),
    "services/drinks/DrinksService/Rules/DrinkRules.swift": (
        "import Foundation\n"
        "enum DrinkRules {\n"
        "    static func record(_ draft: Draft, now: Int64) throws -> Drink { Drink(at: now) }\n"
        "    static let note = \"Select a size from the list\"\n"
        "}\n"),
    "services/drinks/DrinksService/Store/DrinkStore.swift": (
        "import PostgresNIO\n"
        "struct DrinkStore {\n"
        "    let postgres: PostgresClient\n"
        "    func insert(_ drink: Drink) async throws -> Drink {\n"
        "        let query: PostgresQuery = \"INSERT INTO drinks.drinks (at) VALUES (\\(drink.at))\"\n"
        "        _ = query\n"
        "        return drink\n"
        "    }\n"
        "}\n"),
    "services/drinks/DrinksService/Clients/ReminderClient.swift": "struct ReminderClient {}\n",
    "services/drinks/DrinksService/Jobs/ReminderSweeper.swift": "struct ReminderSweeper {}\n",
    "services/drinks/DrinksService/Resources/sizes.csv": "name,ml\nglass,240\n",
    "services/drinks/DrinksService/Migrations/0001_drinks.sql": "CREATE TABLE drinks.drinks (at bigint);\n",
    "services/drinks/bench/main.swift": "print(\"bench\")\n",
    "services/drinks/bench/Store/Seed.swift": "let seed = \"DELETE FROM drinks.drinks\"\n",
    "shared/Store/Pool.swift": "import PostgresNIO\nlet sql = \"SELECT 1 FROM pg_stat_activity\"\n",
    "shared/ServiceKit/Host.swift": "// Opens the pool through Store; no PostgresConnection is named in code here.\nstruct Host {}\n",
}


def load():
    return script_module.load("deploy/scripts/check-shape.py")


@pytest.fixture
def repo(tmp_path):
    for relative, text in GOOD.items():
        path = tmp_path / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return tmp_path


def problems(repo):
    return load().check(repo)


def write(repo, relative, text):
    path = repo / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def named(repo, *fragments):
    found = problems(repo)
    assert any(all(fragment in line for fragment in fragments) for line in found), found
    return found


def test_a_service_in_its_rooms_passes(repo):
    assert problems(repo) == []


def test_sql_in_a_handler_is_named(repo):
    write(repo, "services/drinks/DrinksService/Handlers/History.swift",
          'let sql = """\n    SELECT at\n    FROM drinks.drinks\n    """\n')
    named(repo, "Handlers/History.swift:1", "SQL outside Store/")


def test_sql_in_shared_outside_the_store_module_is_named(repo):
    write(repo, "shared/ServiceKit/Probe.swift", 'let probe = "UPDATE events.consumers SET at = 1"\n')
    named(repo, "shared/ServiceKit/Probe.swift", "SQL outside Store/")


def test_sql_in_a_bench_outside_its_store_is_named(repo):
    write(repo, "services/drinks/bench/Seed.swift", 'let seed = "INSERT INTO drinks.drinks VALUES (1)"\n')
    named(repo, "services/drinks/bench/Seed.swift", "SQL outside Store/")


def test_a_postgres_type_outside_store_is_named(repo):
    write(repo, "services/drinks/DrinksService/Jobs/Cleanup.swift",
          "import PostgresNIO\nstruct Cleanup { let connection: PostgresConnection }\n")
    named(repo, "Jobs/Cleanup.swift:2", "PostgresConnection outside Store/")


def test_rules_that_import_networking_are_named(repo):
    write(repo, "services/drinks/DrinksService/Rules/Wire.swift", "import NIOCore\nenum Wire {}\n")
    named(repo, "Rules/Wire.swift:1", "rules import NIOCore")


def test_rules_that_import_the_store_module_are_named(repo):
    write(repo, "services/drinks/DrinksService/Rules/Keys.swift", "@preconcurrency import Store\nenum Keys {}\n")
    named(repo, "Rules/Keys.swift:1", "rules import Store")


def test_rules_that_read_the_clock_are_named(repo):
    write(repo, "services/drinks/DrinksService/Rules/Late.swift",
          "import Foundation\nenum Late {\n    static func late(_ at: Date) -> Bool { at < Date() }\n}\n")
    named(repo, "Rules/Late.swift:3", "rules read the clock")


def test_rules_that_reach_a_client_are_named(repo):
    write(repo, "services/drinks/DrinksService/Rules/Nudge.swift",
          "enum Nudge {\n    static func send(_ client: ReminderClient) {}\n}\n")
    named(repo, "Rules/Nudge.swift:2", "rules reach Clients/ (ReminderClient)")


def test_an_operation_table_line_outside_the_service_file_is_named(repo):
    write(repo, "services/drinks/DrinksService/Handlers/Table.swift",
          "func table(_ router: inout OperationRouter) {\n    router.register(Drinks.History.self) { _, _ in [] }\n}\n")
    named(repo, "Handlers/Table.swift:2", "operation table line outside DrinksService.swift")


def test_an_operations_folder_is_not_a_room(repo):
    write(repo, "services/drinks/DrinksService/Operations/DrinkLog.swift", "struct DrinkLog {}\n")
    named(repo, "services/drinks/DrinksService/Operations: not a room")


def test_a_data_file_outside_resources_is_named(repo):
    write(repo, "services/drinks/DrinksService/Store/sizes.csv", "glass,240\n")
    named(repo, "Store/sizes.csv: a data file outside Resources/")


def test_a_badly_named_migration_is_named(repo):
    write(repo, "services/drinks/DrinksService/Migrations/plans.sql", "CREATE TABLE drinks.plans ();\n")
    named(repo, "Migrations/plans.sql: a migration is NNNN_name.sql")


def test_a_stray_file_beside_the_rooms_is_named(repo):
    write(repo, "services/drinks/DrinksService/DrinksAPI.swift", "enum DrinksAPI {}\n")
    named(repo, "DrinksService/DrinksAPI.swift: only DrinksService.swift and DrinksSettings.swift")


def test_a_missing_service_file_and_contract_are_named(repo):
    (repo / "services/drinks/DrinksService/DrinksService.swift").unlink()
    for path in (repo / "services/drinks/DrinksContract").iterdir():
        path.unlink()
    (repo / "services/drinks/DrinksContract").rmdir()
    found = named(repo, "no DrinksService.swift")
    assert any("no DrinksContract/" in line for line in found), found


def test_a_retired_word_as_a_type_name_is_named(repo):
    write(repo, "services/drinks/DrinksService/Handlers/DrinkBook.swift", "final class DrinkBook {}\n")
    named(repo, "type DrinkBook")


def test_comments_are_not_read(repo):
    write(repo, "services/drinks/DrinksService/Handlers/Notes.swift",
          "// SELECT at FROM drinks.drinks: the store's query, for reference.\n"
          "/* struct OrderBook { let postgres: PostgresClient } */\nenum Notes {}\n")
    assert problems(repo) == []
