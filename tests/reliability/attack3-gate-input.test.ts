// Third independent attack on s07's gate (2026-12-04), the four doors it left open, now held:
// commands a deny rule for `touch*` must stop, which the gate let run (in auto mode unasked).
// A script read from the command's own input under another name, bash's start-up file from that
// input, a line continuation inside an operator, bash by its path in /proc. Then the same
// classes as a fresh attacker would try them against the fix (a relative name after `cd`, the
// search path, a pipe or `exec` as the input, bash by a descriptor or a link made in the same
// line). Each generated command is first run in bash, to show it really runs the denied command
// (a file appears), then given to the gate, which must refuse it. Generated (fast-check),
// seeded, shrunk. Seen failing on the gate before the fix (commands.ts at 6972e9c).
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

/** The fix, attacked: the command's own input reached by a name relative to a folder the line
 *  moves to, through the search path, or given by a pipe, `exec` or a group instead of a
 *  here-string; the mark is written back into the folder the command started in. */
const back = `$OLDPWD/${MARK}`;
const ownInputAgain = fc.oneof(
  fc
    .tuple(
      fc.constantFrom("source", ".", "bash", "sh", "builtin source", "command ."),
      fc.constantFrom(
        ["/dev", "stdin"],
        ["/dev/fd", "0"],
        ["/proc/self/fd", "0"],
        ["/", "dev/stdin"],
      ),
    )
    .map(([reader, [dir, file]]) => `cd ${dir} && ${reader} ${file} <<< "touch ${back}"`),
  fc
    .constantFrom("source stdin", ". stdin", "bash stdin")
    .map((reader) => `PATH=/dev:$PATH; ${reader} <<< 'touch ${MARK}'`),
  fc
    .tuple(
      fc.constantFrom("source", ".", "bash", "sh"),
      fc.constantFrom("/dev/stdin", "//dev/stdin", "/dev/fd/0", "-"),
      fc.constantFrom("printf '%s\\n'", "echo", "cat <<<"),
    )
    .map(([reader, file, writer]) => `${writer} 'touch ${MARK}' | ${reader} ${file}`),
  fc.constantFrom(
    `exec 3<<<'touch ${MARK}'; . /dev/fd/3`,
    `exec 0<<<'touch ${MARK}'; source /./dev/stdin`,
    `{ source //dev/stdin; } <<< 'touch ${MARK}'`,
    `f() { . /dev/stdin; }; f <<< 'touch ${MARK}'`,
    `bash -c 'source /dev/stdin' <<< 'touch ${MARK}'`,
    `eval 'cd /dev; source stdin' <<< "touch $PWD/${MARK}"`,
  ),
);

/** The fix, attacked: bash by a name the gate has no entry for, made in the same line or
 *  reached through a descriptor. */
const shellByOtherName = fc
  .tuple(
    fc.constantFrom(
      "/dev/fd/3 RUN 3</bin/bash",
      "/usr/../proc/self/exe RUN",
      "/proc/self/root/bin/bash RUN",
      "exec -a x /proc/self/exe RUN",
      "ln -s /bin/bash b; ./b RUN",
      "cp /bin/bash b && ./b RUN",
      // More words that read as command lines than the gate reads one by one.
      `ln -s /bin/bash b; ./b RUN ${"'x; y' ".repeat(70)}`,
    ),
    fc.constantFrom(`-c 'touch ${MARK}'`, `-ec "touch ${MARK}"`, `-c touch\\ ${MARK}`),
  )
  .map(([form, run]) => form.replace("RUN", run));

/** The fix, attacked: a start-up file from a descriptor, a pipe, a process substitution or a
 *  relative name after `cd`, behind a wrapper, or dash's `ENV` (read by an interactive sh). */
const startupAgain = fc.constantFrom(
  `bash --rcfile /dev/fd/0 -ic : <<< 'touch ${MARK}'`,
  `ENV=/dev/stdin sh -ic : <<< 'touch ${MARK}'`,
  `env ENV=/dev/stdin sh -i -c : <<< 'touch ${MARK}'`,
  `bash --rcfile //dev/stdin -i -c : <<< 'touch ${MARK}'`,
  `cd /dev && bash --rcfile stdin -ic : <<< "touch ${back}"`,
  `echo 'touch ${MARK}' | bash --rcfile /dev/stdin -ic :`,
  `bash --rcfile <(echo 'touch ${MARK}') -ic :`,
  `bash --noprofile --rcfile /./dev/stdin -ic true <<< 'touch ${MARK}'`,
  `rbash --rcfile /dev/stdin -ic : <<< 'touch ${MARK}'`,
  `exec bash --rcfile /dev/stdin -ic : <<< 'touch ${MARK}'`,
);

/** The fix, attacked: a prompt expansion of any parameter or inside another expansion or a
 *  here-document, an arithmetic test in any position of `[[ ]]`, each with or without a line
 *  continuation inside the operator. */
const X = `x='$(touch ${MARK})'`;
const V = `v=${SUBSCRIPT}`;
const evaluatedAgain = fc
  .tuple(
    fc.constantFrom(
      `x=('$(touch ${MARK})'); echo \${x[@]OP}`,
      `${X}; y=x; echo \${!yOP}`,
      `${X}; printf -v y '%s' "\${xOP}"`,
      `${X}; : \${x:+\${xOP}}`,
      `${X}; cat <<E\n\${xOP}\nE`,
      `${V}; [[ (v TEST 1) ]]`,
      `${V}; [[ v TEST 1 || 1 ]]`,
      `${V}; [[ 0 TEST v ]]`,
    ),
    fc.boolean(),
  )
  .map(([form, split]) =>
    form.replace("OP", split ? cut("@P", 1) : "@P").replace("TEST", split ? cut("-lt", 2) : "-lt"),
  );

describe("a denied command bash runs, that the gate lets through", () => {
  const cases = {
    "a script read from the command's own input, named another way (source //dev/stdin)":
      ownInput.map((c) => `${c} <<< 'touch ${MARK}'`),
    "bash's start-up file read from the command's own input (bash --rcfile /dev/stdin -ic :)":
      startupFile.map((c) => `${c} <<< 'touch ${MARK}' 2>/dev/null`),
    "a line continuation inside an operator ([[ v -eq\\<newline> 1 ]], ${x@\\<newline>P})":
      continued,
    "bash by its path in /proc (/proc/self/exe -c '…')": shellByPath,
    "the command's own input by a relative name after cd, by the search path, or from a pipe":
      ownInputAgain,
    "bash by another name: a descriptor, a link or a copy made in the same line": shellByOtherName,
    "a start-up file from a descriptor, a pipe, after cd, or dash's ENV": startupAgain.map(
      (c) => `${c} 2>/dev/null`,
    ),
    "a prompt expansion or arithmetic test anywhere, with or without a line continuation":
      evaluatedAgain,
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

/** The other direction: what the fix must not take away. A script named by a plain path inside
 *  the workspace is judged by its name (the rules see `bash scripts/build.sh`), a line
 *  continuation between words is only a line break, and `${x@Q}` only quotes. */
describe("ordinary commands the fix leaves alone", () => {
  const name = fc
    .array(fc.constantFrom("scripts", "build", "ci", "env", "setup"), {
      minLength: 1,
      maxLength: 3,
    })
    .map((parts) => `${parts.join("/")}.sh`);
  const ordinary = fc
    .tuple(
      name,
      fc.constantFrom(
        "bash F",
        "sh F",
        "source F",
        ". ./F",
        "bash -e F",
        "bash -- F",
        "bash F | tee build.log",
        "bash --rcfile F -ic :",
        "sh F \\\n  --verbose",
        "[[ -f F ]] && bash F",
        "x=1; echo ${x@Q}; bash F",
      ),
    )
    .map(([file, form]) => form.replaceAll("F", file));
  test.prop([ordinary], { seed: SEED, numRuns: 40 })(
    "a script named by a plain path runs, under a deny rule for another command",
    async (command) => {
      expect(await gate(command), command).toBeNull();
    },
  );
});
