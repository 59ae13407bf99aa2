#!/bin/sh
# SessionStart hook: tell the model about this workspace before the first prompt.
# Exit 0 and print JSON; "additionalContext" is added to the system prompt for the session.
files=$(ls | tr '\n' ' ')
printf '{"additionalContext": "Node %s is installed; .js files may use ES modules. Files in the workspace: %s"}\n' \
  "$(node -v)" "${files:-none}"
