"""Validates rendered manifests against Kubernetes' own schemas, offline and strict.

    validate.py KUBERNETES_VERSION FILE...

Every resource must have a schema in kubernetes-validate (which ships Kubernetes' OpenAPI schemas
per release) and pass it in strict mode (a field Kubernetes does not know fails). The CLI only
warns about a kind it has no schema for; here that fails, except for the Prometheus Operator kinds,
which crd-check decodes into the operator's own types (scripts/check-chart.sh runs both).
Prints one line per resource; exit 1 when any fails.
"""

import sys

import yaml
from kubernetes_validate import utils

CHECKED_BY_CRD_CHECK = {("monitoring.coreos.com/v1", "ServiceMonitor"), ("monitoring.coreos.com/v1", "PrometheusRule")}


def validate(version: str, path: str) -> bool:
    ok = True
    with open(path) as f:
        resources = [r for r in yaml.safe_load_all(f) if r]
    for resource in resources:
        what = f"{path}: {resource.get('kind')}/{resource.get('metadata', {}).get('name')}"
        if (resource.get("apiVersion"), resource.get("kind")) in CHECKED_BY_CRD_CHECK:
            continue
        try:
            checked = utils.validate(resource, version, strict=True)
            print(f"ok    {what} (Kubernetes {checked}, strict)")
        except utils.ValidationError as e:
            where = ".".join(str(p) for p in e.path)
            print(f"ERROR {what}: {where}: {e.message}")
            ok = False
        except (utils.SchemaNotFoundError, utils.VersionNotSupportedError, utils.InvalidSchemaError) as e:
            print(f"ERROR {what}: {e.message}")
            ok = False
    return ok


def main() -> int:
    version, *paths = sys.argv[1:]
    results = [validate(version, path) for path in paths]
    return 0 if paths and all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
