#!/bin/bash
# No file in src/ or test/ names formatTotal any more, and the receipt still prints.
if grep -rn formatTotal src test; then
  echo "formatTotal is still used"
  exit 1
fi
node --test tests/*.test.js
