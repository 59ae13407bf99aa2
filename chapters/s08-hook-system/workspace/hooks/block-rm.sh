#!/bin/sh
# PreToolUse hook for bash: no rm in this project, deleted files go to trash/ instead.
# The event arrives as JSON on stdin: {"hook_event_name":"PreToolUse","tool_name":"bash","tool_input":{"command":"..."},...}
# Exit 1 blocks the call; what we print on stderr is the reason the model sees.
# The word rm anywhere in the event blocks (after ; && | a quote or a path, as /bin/rm): a hook that
# guesses at shell syntax should err on the side of saying no. (Even so it is a guard rail, not
# a wall: the sandbox is what limits what a command can reach.)
if grep -Eq '(^|[^[:alnum:]_.-])rm( |$)'; then
  echo "rm is not allowed here: move the file to trash/ instead (mkdir -p trash && mv FILE trash/)." >&2
  exit 1
fi
exit 0
