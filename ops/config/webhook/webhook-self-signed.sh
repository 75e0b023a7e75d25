#!/usr/bin/env bash
# Webhook TLS without cert-manager: a private CA and a serving certificate for webhook-service, the Secret
# webhook-server-cert the controller mounts, and the CA written into both webhook configurations' caBundle.
# Run after `kubectl apply -k ops/config/default` (the bundle's Certificate then stays unused, or leave
# cert-manager out by applying a copy of the bundle without the Issuer/Certificate); run again to renew (the
# controller reloads the files). Needs openssl and kubectl (current context).
# Usage: ops/config/webhook/webhook-self-signed.sh [DAYS]
set -euo pipefail
days="${1:-365}"
ns=inference-cache-system
svc=webhook-service
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days "$days" \
  -subj "/CN=inference-cache webhook CA" -keyout "$work/ca.key" -out "$work/ca.crt" 2>/dev/null
openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
  -subj "/CN=$svc.$ns.svc" -keyout "$work/tls.key" -out "$work/tls.csr" 2>/dev/null
printf 'subjectAltName=DNS:%s.%s.svc,DNS:%s.%s.svc.cluster.local\nextendedKeyUsage=serverAuth\n' \
  "$svc" "$ns" "$svc" "$ns" > "$work/ext.cnf"
openssl x509 -req -in "$work/tls.csr" -CA "$work/ca.crt" -CAkey "$work/ca.key" -CAcreateserial \
  -days "$days" -extfile "$work/ext.cnf" -out "$work/tls.crt" 2>/dev/null
kubectl -n "$ns" create secret tls webhook-server-cert --cert="$work/tls.crt" --key="$work/tls.key" \
  --dry-run=client -o yaml | kubectl apply -f -
bundle="$(base64 -w0 < "$work/ca.crt")"
for kind in mutatingwebhookconfiguration validatingwebhookconfiguration; do
  name="inference-cache-${kind%webhookconfiguration}-webhook-configuration"
  count="$(kubectl get "$kind" "$name" -o jsonpath='{range .webhooks[*]}x{end}' | wc -c)"
  patch="["
  for ((i = 0; i < count; i++)); do
    patch+="{\"op\":\"add\",\"path\":\"/webhooks/$i/clientConfig/caBundle\",\"value\":\"$bundle\"},"
  done
  kubectl patch "$kind" "$name" --type=json -p "${patch%,}]"
done
echo "webhook-server-cert written; caBundle set on both webhook configurations (valid $days days)"
