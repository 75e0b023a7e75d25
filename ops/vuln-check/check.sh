#!/usr/bin/env bash
# Proves the curated known-vulnerable-versions check (the parent POM's enforcer execution
# "no-known-vulnerable-versions", docs/reliability.md §D) can fail, and that its ranges end where the
# advisories say:
#   1. vulnerable/pom.xml: for every banned range, the newest version still inside it. The enforcer
#      must fail and name every one of these dependencies.
#   2. fixed/pom.xml: for every banned range, the first fixed version. The enforcer must pass.
# Offline, ~10 s (the canaries' dependencies are system-scoped stand-ins: nothing is downloaded).
# Exit 0 when both hold; non-zero (with the enforcer's output) otherwise.
set -euo pipefail
cd "$(dirname "$0")/../.."
here=ops/vuln-check
mvn=(./mvnw -B ${MVN_OFFLINE--o} validate)

# groupId:artifactId:version of each dependency of a canary POM.
coords() {
  awk '/<dependency>/{g="";a="";v=""}
       /<groupId>/ && inDep {gsub(/.*<groupId>|<\/groupId>.*/,""); g=$0}
       /<artifactId>/ && inDep {gsub(/.*<artifactId>|<\/artifactId>.*/,""); a=$0}
       /<version>/ && inDep {gsub(/.*<version>|<\/version>.*/,""); v=$0}
       /<dependency>/{inDep=1} /<\/dependency>/{inDep=0; print g":"a":"v}' "$1"
}

log=$(mktemp)
trap 'rm -f "$log"' EXIT

fail=0
if "${mvn[@]}" -f "$here/vulnerable/pom.xml" >"$log" 2>&1; then
  echo "FAIL: the enforcer passed on $here/vulnerable/pom.xml (known-vulnerable versions)"
  fail=1
else
  banned=0
  while IFS=: read -r g a v; do
    if grep -qF "$g:$a:jar:$v <--- banned" "$log"; then
      banned=$((banned + 1))
    else
      echo "FAIL: $g:$a:$v is not banned"
      fail=1
    fi
  done < <(coords "$here/vulnerable/pom.xml")
  echo "vulnerable canary: enforcer failed as expected, $banned dependencies banned"
fi
if [ "$fail" != 0 ]; then
  cat "$log"
  exit 1
fi

if "${mvn[@]}" -f "$here/fixed/pom.xml" >"$log" 2>&1; then
  echo "fixed canary: enforcer passed as expected ($(coords "$here/fixed/pom.xml" | wc -l) first-fixed versions)"
else
  echo "FAIL: the enforcer rejected a first-fixed version in $here/fixed/pom.xml"
  grep -F '<--- banned' "$log" || cat "$log"
  exit 1
fi
