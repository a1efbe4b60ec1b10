"""check-contracts.py passes contracts that depend on Contract and CommonContract alone and names
each contract that depends on anything else.

Each test starts from a small manifest shaped like `swift package dump-package`'s output (two
worker services, `drinks` and `meals`, whose service targets use each other's contracts), adds
one dependency a contract may not have, and looks for the line that names it.
"""
import copy
import json
import pathlib
import subprocess
import sys

import pytest

import script_module

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "deploy/scripts/check-contracts.py"


def by_name(name):
    return {"byName": [name, None]}


def target(name):
    return {"target": [name, None]}


def product(name, package):
    return {"product": [name, package, None, None]}


GOOD = {
    "name": "Backplane",
    "targets": [
        {"name": "Contract", "type": "regular", "path": "shared/Contract", "dependencies": []},
        {"name": "CommonContract", "type": "regular", "path": "shared/CommonContract",
         "dependencies": [by_name("Contract")]},
        {"name": "DrinksContract", "type": "regular", "path": "services/drinks/DrinksContract",
         "dependencies": [by_name("Contract"), by_name("CommonContract")]},
        {"name": "MealsContract", "type": "regular", "path": "services/meals/MealsContract",
         "dependencies": [by_name("Contract"), by_name("CommonContract")]},
        {"name": "DrinksService", "type": "regular", "path": "services/drinks/DrinksService",
         "dependencies": [by_name("Contract"), by_name("CommonContract"), target("DrinksContract"),
                          by_name("MealsContract"), product("Logging", "swift-log")]},
        {"name": "MealsTests", "type": "test", "path": "Tests/MealsTests",
         "dependencies": [target("MealsContract"), by_name("DrinksContract")]},
    ],
}


def load():
    return script_module.load(SCRIPT)


@pytest.fixture
def manifest():
    return copy.deepcopy(GOOD)


def depend(manifest, name, dependency):
    next(t for t in manifest["targets"] if t["name"] == name)["dependencies"].append(dependency)


def named(manifest, *fragments):
    found = load().check(manifest)
    assert any(all(fragment in line for fragment in fragments) for line in found), found
    return found


def test_contracts_on_contract_and_common_contract_pass(manifest):
    assert load().check(manifest) == []


def test_a_contract_on_another_services_contract_by_name_is_named(manifest):
    depend(manifest, "MealsContract", by_name("DrinksContract"))
    found = named(manifest, "MealsContract depends on DrinksContract")
    assert len(found) == 1, found


def test_a_contract_on_another_services_contract_as_a_target_is_named(manifest):
    depend(manifest, "DrinksContract", target("MealsContract"))
    named(manifest, "DrinksContract depends on MealsContract", "CommonContract")


def test_a_contract_on_a_service_library_is_named(manifest):
    depend(manifest, "DrinksContract", by_name("DrinksService"))
    named(manifest, "DrinksContract depends on DrinksService")


def test_a_contract_on_a_package_product_is_named(manifest):
    depend(manifest, "MealsContract", product("Logging", "swift-log"))
    named(manifest, "MealsContract depends on Logging")


def test_the_common_contract_on_a_services_contract_is_named(manifest):
    depend(manifest, "CommonContract", by_name("DrinksContract"))
    named(manifest, "CommonContract depends on DrinksContract", "Contract only")


def test_the_script_exits_1_naming_the_contract(manifest, tmp_path):
    depend(manifest, "MealsContract", by_name("DrinksContract"))
    saved = tmp_path / "manifest.json"
    saved.write_text(json.dumps(manifest))
    run = subprocess.run([sys.executable, str(SCRIPT), "--manifest", str(saved)], capture_output=True, text=True)
    assert run.returncode == 1, run
    assert "MealsContract depends on DrinksContract" in run.stdout


def test_the_script_exits_0_on_a_good_manifest(manifest, tmp_path):
    saved = tmp_path / "manifest.json"
    saved.write_text(json.dumps(manifest))
    run = subprocess.run([sys.executable, str(SCRIPT), "--manifest", str(saved)], capture_output=True, text=True)
    assert run.returncode == 0, run
