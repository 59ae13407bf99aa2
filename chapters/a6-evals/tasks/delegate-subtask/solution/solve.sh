#!/bin/bash
set -e
grep -rl 'oldApi(' src/legacy | sort > LEGACY.md
