#!/bin/sh
# Rerun the scan behind POINTS.txt: the AVS points of a pto-spec git
# directory (a clone or a bare mirror) that execute TLOAD/TSTORE, and which
# of them POINTS.txt does not list yet.
#   tests/pto/avs/scan-points.sh /path/to/pto-spec [REV]
set -eu
spec=${1:?usage: scan-points.sh PTO_SPEC_GIT_DIR [REV]}
rev=${2:-HEAD}
here=$(dirname "$0")
echo "pto-spec $(git -C "$spec" rev-parse --short=8 "$rev")"
git -C "$spec" grep -l -E '0x00011181|0x00111181|\bT(LOAD|STORE)(Shared)?\(|_T(LOAD|STORE)\(' "$rev" -- tests/asl |
  sed "s|^$rev:tests/asl/||" | sort > "${TMPDIR:-/tmp}/pto-scan.$$"
awk '!/^#/ && NF { print $2 }' "$here/POINTS.txt" | sort |
  comm -23 "${TMPDIR:-/tmp}/pto-scan.$$" - | sed 's/^/not in POINTS.txt: /'
echo "$(wc -l < "${TMPDIR:-/tmp}/pto-scan.$$") scanned points"
rm -f "${TMPDIR:-/tmp}/pto-scan.$$"
