#!/usr/bin/env python3
"""Checks that every place which lists Backplane's processes agrees with deploy/services.txt.

    python3 deploy/scripts/check-services.py [--root DIR]

The scripts and the Dockerfile read the registry themselves; what cannot read it is checked here:
the gateway's READINESS_SERVICES default (Swift), backplane-admin's list of workers (Swift),
docker-compose.yml, deploy/k8s's Deployments and Prometheus's scrape list. Exits 1 with one line per disagreement.
"""
import argparse
import pathlib
import re
import sys

import yaml


def registry(root):
    entries = []
    for line in (root / "deploy/services.txt").read_text().splitlines():
        fields = line.split()
        if not fields or fields[0].startswith("#"):
            continue
        if len(fields) < 2 or fields[1] not in ("broker", "worker", "gateway", "tool"):
            raise SystemExit(f"deploy/services.txt: bad line {line!r} (want: name kind)")
        entries.append((fields[0], fields[1]))
    return entries


def names(entries, *kinds):
    return [name for name, kind in entries if kind in kinds]


def check(root):
    problems = []
    entries = registry(root)
    workers = names(entries, "worker")
    servers = names(entries, "broker", "worker", "gateway")

    settings = (root / "services/gateway/GatewayService/GatewaySettings.swift").read_text()
    match = re.search(r'"READINESS_SERVICES",\s*default:\s*"([^"]*)"', settings)
    if not match:
        problems.append("GatewaySettings.swift: no READINESS_SERVICES default found")
    elif match.group(1).split(",") != workers:
        problems.append(
            f"GatewaySettings.swift: READINESS_SERVICES defaults to {match.group(1)!r}, "
            f"deploy/services.txt's workers are {','.join(workers)!r}")

    # backplane-admin asks, migrates and checks the workers of its own list.
    admin = (root / "tools/admin/AdminKit/Workers.swift").read_text()
    listed = re.search(r"definitions: \[WorkerDefinition\] = \[([^\]]*)\]", admin)
    named = [n[:1].lower() + n[1:] for n in re.findall(r"(\w+)Service\.definition", listed.group(1))] if listed else []
    if named != workers:
        problems.append(
            f"tools/admin/AdminKit/Workers.swift: its definitions are {','.join(named)!r}, "
            f"deploy/services.txt's workers are {','.join(workers)!r}")

    compose = yaml.safe_load((root / "docker-compose.yml").read_text())
    for name in servers:
        if name not in compose.get("services", {}):
            problems.append(f"docker-compose.yml: no service {name!r}")
        elif name in workers or name == "broker":
            command = compose["services"][name].get("command") or compose["services"][name].get("entrypoint")
            text = " ".join(command) if isinstance(command, list) else str(command or "")
            if f"/app/{name}" not in text:
                problems.append(f"docker-compose.yml: service {name!r} does not run /app/{name}")

    deployments = set()
    for path in sorted((root / "deploy/k8s").glob("*.yaml")):
        for doc in yaml.safe_load_all(path.read_text()):
            if doc and doc.get("kind") == "Deployment":
                containers = doc["spec"]["template"]["spec"].get("containers", [])
                commands = " ".join(" ".join(c.get("command", []) + c.get("args", [])) for c in containers)
                # Stand-ins (deploy/k8s/*-standin.yaml) are not Backplane's processes.
                if "/app/" in commands:
                    deployments.add(doc["metadata"]["name"])
    for name in servers:
        if name not in deployments:
            problems.append(f"deploy/k8s: no Deployment {name!r}")
    for name in sorted(deployments - set(servers)):
        problems.append(f"deploy/k8s: Deployment {name!r} is not in deploy/services.txt")

    prometheus = yaml.safe_load((root / "deploy/observability/prometheus.yml").read_text())
    scraped = []
    for job in prometheus.get("scrape_configs", []):
        for sd in job.get("dns_sd_configs", []):
            scraped += sd.get("names", [])
    for name in servers:
        if name not in scraped:
            problems.append(f"deploy/observability/prometheus.yml: {name!r} is not scraped")
    for name in scraped:
        if name not in servers:
            problems.append(f"deploy/observability/prometheus.yml: scrapes {name!r}, not in deploy/services.txt")
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=pathlib.Path(__file__).resolve().parents[2], type=pathlib.Path)
    args = parser.parse_args()
    problems = check(args.root)
    for problem in problems:
        print(f"check-services: {problem}", file=sys.stderr)
    if problems:
        print("check-services: every process is listed once, in deploy/services.txt; make the places above agree",
              file=sys.stderr)
        return 1
    print(f"check-services: docker-compose.yml, deploy/k8s, prometheus.yml, the gateway and backplane-admin agree with deploy/services.txt")
    return 0


if __name__ == "__main__":
    sys.exit(main())
