#!/bin/sh
# PreToolUse hook for bash: no rm in this project, deleted files go to trash/ instead.
# The event arrives as JSON on stdin: {"hook_event_name":"PreToolUse","tool_name":"bash","tool_input":{"command":"..."},...}
# Exit 1 blocks the call; what we print on stderr is the reason the model sees.
if grep -Eq '"command":"([^"]*[;&|] *)?rm '; then
  echo "rm is not allowed here: move the file to trash/ instead (mkdir -p trash && mv FILE trash/)." >&2
  exit 1
fi
exit 0
