// Third independent attack on s07's gate (2026-12-04): commands a deny rule for `touch*` should
// stop, which the gate lets run (in auto mode it runs unasked; in default mode the deny rule is
// passed and the person is asked as for any command). Each generated command is first run in
// bash, to show it really runs the denied command (a file appears), then given to the gate,
// which must refuse it. Generated (fast-check), seeded, shrunk.
import { fc, test } from "@fast-check/vitest";
import { describe, expect } from "vitest";
import { budget } from "../support/budgets.ts";
import { gate, MARK, runsThePayload, SEED } from "../support/gate-attack.ts";

/** A script bash reads from the command's own input (a here-string), named so the gate does not
 *  see `/dev/stdin` at the start: a doubled or dotted slash, a `..` back to `/`, `--` before it
 *  (`source` skips `--` like the other builtins), or `-` for the script (`bash -`). */
const stdinName = fc.constantFrom(
  "//dev/stdin",
  "/./dev/stdin",
  "/tmp/../dev/stdin",
  "///proc/self/fd/0",
  "/usr/../proc/self/fd/0",
);
const ownInput = fc.oneof(
  fc
    .tuple(fc.constantFrom("source", ".", "bash", "sh"), stdinName)
    .map(([reader, file]) => `${reader} ${file}`),
  fc.constantFrom("source", ".").map((reader) => `${reader} -- /dev/stdin`),
  // `-` as the script: a shell reads its commands from its input.
  fc.constantFrom("bash -", "sh -", "bash -x -", "bash -e -"),
);

/** bash's start-up file named on its command line (`--rcfile`, `--init-file`, read by an
 *  interactive shell before its `-c` script): the file is the command's own input. */
const startupFile = fc
  .tuple(
    fc.constantFrom("--rcfile", "--init-file"),
    fc.constantFrom("/dev/stdin", "/proc/self/fd/0"),
    fc.constantFrom("-ic :", "-i -c true", "-ic 'echo hi'"),
  )
  .map(([option, file, rest]) => `bash ${option} ${file} ${rest}`);

/** A line continuation (backslash, newline) inside an operator the gate looks for in the raw
 *  text: bash removes it before it reads the operator; the gate's patterns (`-eq`, `-v`, `@P`)
 *  look at the text as written, miss it, and take arithmetic or a prompt expansion for data. */
const SUBSCRIPT = `'a[$(touch ${MARK})]'`;
const cut = (op: string, at: number) => `${op.slice(0, at)}\\\n${op.slice(at)}`;
const continued = fc.oneof(
  fc
    .tuple(
      fc.constantFrom("-eq", "-ne", "-lt", "-le", "-gt", "-ge"),
      fc.integer({ min: 1, max: 3 }),
    )
    .map(([op, at]) => `v=${SUBSCRIPT}; [[ v ${cut(op, at)} 1 ]]`),
  fc.constant(`[[ ${cut("-v", 1)} ${SUBSCRIPT} ]]`),
  fc.constant(`x='$(touch ${MARK})'; echo \${x${cut("@P", 1)}}`),
);

/** bash by a name that is not `bash`: the running shell's own program, through /proc. The gate
 *  reads a `-c` script only for the names it knows. */
const shellByPath = fc
  .tuple(fc.constantFrom("/proc/self/exe", "/proc/thread-self/exe"), fc.constantFrom("-c", "-ec"))
  .map(([exe, c]) => `${exe} ${c} 'touch ${MARK}'`);

describe("a denied command bash runs, that the gate lets through", () => {
  const cases = {
    "a script read from the command's own input, named another way (source //dev/stdin)":
      ownInput.map((c) => `${c} <<< 'touch ${MARK}'`),
    "bash's start-up file read from the command's own input (bash --rcfile /dev/stdin -ic :)":
      startupFile.map((c) => `${c} <<< 'touch ${MARK}' 2>/dev/null`),
    "a line continuation inside an operator ([[ v -eq\\<newline> 1 ]], ${x@\\<newline>P})":
      continued,
    "bash by its path in /proc (/proc/self/exe -c '…')": shellByPath,
  };
  for (const [kind, commands] of Object.entries(cases))
    test.prop([commands], { seed: SEED, numRuns: 12 })(
      `${kind}: bash runs it, and the gate refuses it`,
      async (command) => {
        expect(await runsThePayload(command), `bash runs the payload: ${command}`).toBe(true);
        expect(await gate(command), command).not.toBeNull();
      },
      budget({ cli: 8 }),
    );
});
