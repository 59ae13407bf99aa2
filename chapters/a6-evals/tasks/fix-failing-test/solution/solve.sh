#!/bin/bash
# The reference fix: an empty list has mean 0.
set -e
sed -i 's|return sum(values) / values.length;|return values.length === 0 ? 0 : sum(values) / values.length;|' src/math.ts
