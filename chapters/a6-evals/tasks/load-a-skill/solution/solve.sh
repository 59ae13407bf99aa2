#!/bin/bash
set -e
sed -i 's/"version": "1.0.0"/"version": "1.1.0"/' package.json
sed -i 's/^# Changelog$/# Changelog\n\n## 1.1.0\n- release 1.1.0/' CHANGELOG.md
printf '1.1.0\n' > RELEASE
