#!/usr/bin/env python3
"""Validates docs/plan.schema.json itself and every ssb/plans/*.json against it, and checks that
the schema rejects a plan with a misspelt field. Exit 0 on success, 1 with the first problem."""
import glob
import json
import os
import sys

try:
    import jsonschema
except ImportError:
    print("jsonschema is not installed; skipping")
    sys.exit(77)  # CTest SKIP_RETURN_CODE

root = sys.argv[1] if len(sys.argv) > 1 else os.getcwd()
schema = json.load(open(os.path.join(root, "docs/plan.schema.json")))
jsonschema.Draft202012Validator.check_schema(schema)
validator = jsonschema.Draft202012Validator(schema)
plans = sorted(glob.glob(os.path.join(root, "ssb/plans/*.json")))
if len(plans) != 13:
    print(f"expected 13 SSB plans, found {len(plans)}")
    sys.exit(1)
for path in plans:
    errors = list(validator.iter_errors(json.load(open(path))))
    if errors:
        print(f"{path}: {errors[0].json_path}: {errors[0].message[:300]}")
        sys.exit(1)
if validator.is_valid({"plan": {"op": "scan", "tabel": "lineorder"}}):
    print("the schema accepts a misspelt field")
    sys.exit(1)
print(f"{len(plans)} plans valid")
