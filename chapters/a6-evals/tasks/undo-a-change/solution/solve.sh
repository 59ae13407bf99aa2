#!/bin/bash
set -e
git checkout -- src/format.ts
