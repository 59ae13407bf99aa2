#!/bin/bash
# After the first commit: a broken edit to format.ts, and a new file the user wants to keep.
set -e
sed -i 's|(cents / 100).toFixed(2)|cents.toFixed(2)|' src/format.ts
printf '// Kept: the user wrote this.\nexport const extra = true;\n' > src/extra.ts
