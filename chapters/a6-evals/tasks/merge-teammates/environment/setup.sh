#!/bin/bash
# Two branches off main, each with one commit that touches a different file.
set -e
git checkout -q -b alice
cat >> src/math.ts <<'TS'

export function discount(cents: number, percent: number): number {
  return Math.round(cents * (1 - percent / 100));
}
TS
git commit -qam "alice: discount"
git checkout -q main
git checkout -q -b bob
cat >> src/format.ts <<'TS'

export function formatCount(count: number): string {
  return count === 1 ? "1 item" : `${count} items`;
}
TS
git commit -qam "bob: formatCount"
git checkout -q main
