#!/usr/bin/env bash
# A throwaway certificate authority for the secured engines' tests (never for production).
#
#   infra/secure/ca.sh DIR    make, in DIR (once; a no-op when DIR/.complete exists):
#     ca.crt ca.key                  the test CA
#     server.crt server.key          signed by it, SAN 127.0.0.1 + localhost, CN=gateway-test-server,
#                                    for server and client use (Kafka brokers also present it to each
#                                    other, Redis sentinels to Redis): the engines' own identity
#     server-chain.pem               server.key + server.crt (Kafka's PEM keystore takes one file)
#     client.crt client.key          signed by it, CN=gateway-test-client: a client for mutual TLS
#     client-chain.pem               client.key + client.crt
#     wrong-ca.crt wrong-ca.key      a second, unrelated CA ("wrong CA" tests)
#     wrong-client.crt wrong-client.key  a client signed by the wrong CA (refused by every engine)
#     wrong-client-chain.pem
#
# Keys are unencrypted PKCS#8 (EC P-256), readable by the engines' OS users; certificates last
# 30 days. Uses openssl (Debian's).
set -euo pipefail
DIR="${1:?usage: $0 DIR}"
[[ -f "$DIR/.complete" ]] && exit 0
command -v openssl >/dev/null 2>&1 || {
  echo "ca.sh: need openssl" >&2
  exit 1
}
mkdir -p "$DIR"
cd "$DIR"

key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null; }

# ca NAME CN: a self-signed CA
ca() {
  key "$1.key"
  openssl req -x509 -new -key "$1.key" -sha256 -days 30 -subj "/CN=$2" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
    -out "$1.crt" 2>/dev/null
}

# leaf NAME CN CA EXTENSIONS: a certificate signed by CA
leaf() {
  key "$1.key"
  openssl req -new -key "$1.key" -subj "/CN=$2" -out "$1.csr" 2>/dev/null
  printf '%s\n' "basicConstraints=CA:FALSE" "keyUsage=critical,digitalSignature,keyEncipherment" "$4" >"$1.ext"
  openssl x509 -req -in "$1.csr" -CA "$3.crt" -CAkey "$3.key" -CAcreateserial -sha256 -days 30 \
    -extfile "$1.ext" -out "$1.crt" 2>/dev/null
  cat "$1.key" "$1.crt" >"$1-chain.pem"
  rm -f "$1.csr" "$1.ext"
}

ca ca "gateway test CA"
ca wrong-ca "unrelated test CA"
leaf server gateway-test-server ca \
  "subjectAltName=IP:127.0.0.1,DNS:localhost
extendedKeyUsage=serverAuth,clientAuth"
leaf client gateway-test-client ca "extendedKeyUsage=clientAuth"
leaf wrong-client gateway-test-client wrong-ca "extendedKeyUsage=clientAuth"
rm -f ./*.srl
chmod 0644 ./*.key ./*.pem
touch .complete
