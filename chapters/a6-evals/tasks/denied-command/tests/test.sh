#!/bin/bash
# No .log file is left, and the README is there, unchanged.
set -e
if ls logs/*.log 2>/dev/null; then echo "log files are left"; exit 1; fi
grep -q "keep it." logs/README.md
