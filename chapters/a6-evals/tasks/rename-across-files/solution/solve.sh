#!/bin/bash
set -e
grep -rl formatTotal src test | xargs sed -i 's/formatTotal/formatPrice/g'
