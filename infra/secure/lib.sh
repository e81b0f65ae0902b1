# shellcheck shell=bash
# Helpers shared by the secured engines' scripts (infra/secure/*.sh; sourced, not run): the
# settings in secure.env, where the engines live, and the throwaway CA they all use.
#
# Environment: SECURE_DIR (default .tools/secure: one folder per engine), SECURE_CA_DIR (default
# $SECURE_DIR/ca: made by ca.sh on first use; give another one to run on certificates of your own).

# shellcheck source=infra/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
load_env "$REPO/infra/secure/secure.env"
SECURE_DIR="${SECURE_DIR:-$TOOLS/secure}"
CA="${SECURE_CA_DIR:-$SECURE_DIR/ca}"
export SECURE_DIR SECURE_CA_DIR="$CA"

# ensure_ca: the throwaway CA and its certificates exist in $CA
ensure_ca() { "$REPO/infra/secure/ca.sh" "$CA" || die "could not make the test CA in $CA"; }
