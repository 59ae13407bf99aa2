#!/bin/bash
# Twenty-four legacy modules; every fifth one still calls oldApi.
set -e
mkdir -p src/legacy
for i in $(seq 10 33); do
  if [ $((i % 5)) -eq 0 ]; then
    printf '// module %s\nimport { oldApi } from "../old.js";\nexport const run%s = () => oldApi(%s);\n' "$i" "$i" "$i"
  else
    printf '// module %s\nexport const run%s = () => %s * 2;\n' "$i" "$i" "$i"
  fi > "src/legacy/m$i.ts"
done
