#!/bin/bash
set -e
test "$(tr -d '[:space:]' < ERROR.txt)" = "E4217"
