#!/bin/bash
set -e
grep -o 'ERROR E[0-9]\{4\}' logs/build.log | cut -d' ' -f2 > ERROR.txt
