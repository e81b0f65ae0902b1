#!/usr/bin/env bash
# Checks the Helm chart (deploy/helm/model-gateway) without a cluster:
#   helm lint --strict, then helm template with each value set below, then every rendered resource
#   validated offline and strictly (a field Kubernetes does not know fails):
#   - Kubernetes' own kinds by kubernetes-validate (deploy/helm/validate.py), which ships
#     Kubernetes' schemas per release, against $KUBE_VERSIONS;
#   - the Prometheus Operator's ServiceMonitor and PrometheusRule (CRDs: not in those schemas) by
#     deploy/helm/crd-check, which decodes them into the operator's own Go types;
#   and values files that must fail: two the chart refuses to render (a grace period shorter than
#   the drain, a secret in `config`), one that renders a field Kubernetes does not know.
# Installs once, under .tools (a second run installs nothing): helm from the Go module proxy
# (go install, ~2 min on 2 cores) into .tools/helm/bin, crd-check built beside it, and
# kubernetes-validate from PyPI into the venv .tools/kubernetes-validate
# (deploy/helm/validate-requirements.txt pins it and what it pulls in).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT="$(pwd -P)"
HELM_VERSION=v3.21.4
# the oldest Kubernetes the chart supports (Chart.yaml kubeVersion) and the newest the validator knows
KUBE_VERSIONS=(1.30.0 1.37.0)
CHART=deploy/helm/model-gateway
CHECKS=deploy/helm/checks
TOOLS="$ROOT/.tools/helm"
VENV="$ROOT/.tools/kubernetes-validate"
OUT=.tools/helm/rendered # relative: the lines printed stay short
# helm's cache, config and data stay under .tools
export HELM_CACHE_HOME="$TOOLS/home/cache" HELM_CONFIG_HOME="$TOOLS/home/config" HELM_DATA_HOME="$TOOLS/home/data"
export CGO_ENABLED=0 GOFLAGS=-buildvcs=false
[[ -x /usr/local/go/bin/go ]] && PATH="/usr/local/go/bin:$PATH"

log() { echo "check-chart: $*" >&2; }
die() {
  log "$*"
  exit 1
}
# stamp FILE CONTENT: true when FILE already holds CONTENT (what was installed is what is wanted)
stamped() { [[ -f "$1" && "$(cat "$1")" == "$2" ]]; }

install_helm() {
  local want="helm.sh/helm/v3@$HELM_VERSION"
  stamped "$TOOLS/bin/helm.installed" "$want" && [[ -x "$TOOLS/bin/helm" ]] && return 0
  command -v go >/dev/null 2>&1 || die "need Go on PATH to build helm"
  log "building $want with go install into $TOOLS/bin (once)"
  mkdir -p "$TOOLS/bin"
  GOBIN="$TOOLS/bin" go install "helm.sh/helm/v3/cmd/helm@$HELM_VERSION" >"$TOOLS/build.log" 2>&1 || {
    tail -n 30 "$TOOLS/build.log" >&2
    die "go install of helm failed"
  }
  echo "$want" >"$TOOLS/bin/helm.installed"
}

install_crd_check() {
  local want
  want="$(cat deploy/helm/crd-check/{go.mod,go.sum,main.go} | sha256sum | cut -c1-16)"
  stamped "$TOOLS/bin/crd-check.installed" "$want" && [[ -x "$TOOLS/bin/crd-check" ]] && return 0
  log "building deploy/helm/crd-check"
  (cd deploy/helm/crd-check && go build -o "$TOOLS/bin/crd-check" .) || die "building crd-check failed"
  echo "$want" >"$TOOLS/bin/crd-check.installed"
}

install_validator() {
  local want
  want="$(sha256sum deploy/helm/validate-requirements.txt | cut -c1-16)"
  stamped "$VENV/.installed" "$want" && return 0
  log "installing kubernetes-validate into $VENV"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check -r deploy/helm/validate-requirements.txt >&2
  echo "$want" >"$VENV/.installed"
}

# helm without its note that files/alerts.yml is a link (to infra/observability/alerts.yml)
helm() {
  "$TOOLS/bin/helm" "$@" 2> >(grep -v "found symbolic link in path" >&2)
}

install_helm
install_crd_check
install_validator
echo "helm $HELM_VERSION, $("$VENV/bin/pip" show kubernetes-validate 2>/dev/null | grep ^Version | sed 's/Version: /kubernetes-validate /'), Kubernetes ${KUBE_VERSIONS[*]}"

# name=values file ("" for the chart's defaults)
value_sets=(
  "defaults="
  "everything=$CHECKS/everything.yaml"
  "minimal=$CHECKS/minimal.yaml"
  "production-example=$CHART/examples/production.yaml"
)
rm -rf "$OUT"
mkdir -p "$OUT"
failed=0
for set in "${value_sets[@]}"; do
  name="${set%%=*}" file="${set#*=}"
  values=()
  [[ -n "$file" ]] && values=(-f "$file")
  echo
  echo "== $name${file:+ ($file)}"
  helm lint --strict --quiet "$CHART" --kube-version "${KUBE_VERSIONS[0]}" "${values[@]}" || failed=1
  for version in "${KUBE_VERSIONS[@]}"; do
    rendered="$OUT/$name-$version.yaml"
    helm template gw "$CHART" --namespace model-gateway --kube-version "$version" "${values[@]}" >"$rendered" || {
      failed=1
      continue
    }
    "$VENV/bin/python" deploy/helm/validate.py "$version" "$rendered" || failed=1
  done
  "$TOOLS/bin/crd-check" "$OUT/$name-${KUBE_VERSIONS[0]}.yaml" || failed=1
done

echo
echo "== values that must fail"
# values file = what the chart's refusal must say
refused=(
  "broken-grace-period=gateway: terminationGracePeriodSeconds 40 must be more than"
  "broken-secret-in-config=config.GATEWAY_REDIS_PASSWORD looks like a secret"
)
for case in "${refused[@]}"; do
  file="$CHECKS/${case%%=*}.yaml" expected="${case#*=}"
  if helm template gw "$CHART" -f "$file" --kube-version "${KUBE_VERSIONS[0]}" >/dev/null 2>"$OUT/refused.err"; then
    echo "ERROR $file rendered; the chart must refuse it"
    failed=1
  elif grep -qF "$expected" "$OUT/refused.err"; then
    echo "ok    $file refused: $(grep -oF "$expected" "$OUT/refused.err")..."
  else
    cat "$OUT/refused.err"
    echo "ERROR $file was refused, but not with \"$expected\""
    failed=1
  fi
done
helm template gw "$CHART" -f "$CHECKS/broken-field.yaml" --kube-version "${KUBE_VERSIONS[0]}" >"$OUT/broken-field.yaml"
if "$VENV/bin/python" deploy/helm/validate.py "${KUBE_VERSIONS[0]}" "$OUT/broken-field.yaml" >"$OUT/broken-field.out"; then
  echo "ERROR $CHECKS/broken-field.yaml validated; the validator must refuse an unknown field"
  failed=1
elif grep -q "'runAsNonroot' was unexpected" "$OUT/broken-field.out"; then
  echo "ok    $CHECKS/broken-field.yaml refused: $(grep -c "'runAsNonroot' was unexpected" "$OUT/broken-field.out") Deployments with an unknown field"
else
  cat "$OUT/broken-field.out"
  echo "ERROR $CHECKS/broken-field.yaml failed for another reason than its unknown field"
  failed=1
fi

echo
((failed == 0)) || die "the chart has errors (above); rendered manifests in $OUT"
echo "chart ok: ${#value_sets[@]} value sets linted, rendered and validated; rendered manifests in $OUT"
