#!/bin/sh
# PostToolUse hook for write and edit: check a JavaScript file's syntax right after it changes.
# Exit 2 sends what we print on stderr to the model, added to that tool's result.
file=$(sed -n 's/.*"path":"\([^"]*\)".*/\1/p')
case "$file" in
  *.js | *.mjs)
    if ! errors=$(node --check "$file" 2>&1); then
      printf '%s has a syntax error:\n%s\n' "$file" "$errors" | grep -v -e '^    at ' -e '^Node\.js ' -e '^$' | sed "s|$(pwd)/||" >&2
      exit 2
    fi
    ;;
esac
exit 0
