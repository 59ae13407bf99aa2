// Where bash runs text the parser reads as data (issue 32, the second independent attack): an
// array subscript a builtin takes as a name (`test -v 'a[$(…)]'`), arithmetic that reads a
// variable's value (`v='a[$(…)]'; echo ${a[v]}`), a string bash keeps to run later (`PS4`,
// `compgen -W`, `BASH_FUNC_…`), a program renamed (`hash -p`), and a wrapper's option that takes
// a value (`env --chdir . cmd`). The rule: a command that hides a denied one in any of these
// places is refused by s07's gate (auto mode, deny `touch*`); each generated command is also run
// in bash, to show that most of them really run the denied command. Generated (fast-check),
// seeded, shrunk.
import { spawnSync } from "node:child_process";
import { existsSync, rmSync } from "node:fs";
import path from "node:path";
import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import type { ToolUseBlock } from "../../chapters/_shared/types.ts";
import * as s07 from "../../chapters/s07-permission-system/agent.ts";
import { readCommand } from "../../chapters/s07-permission-system/commands.ts";
import { budget } from "../support/budgets.ts";
import { scriptedEnv, tempDir } from "../support/helpers.ts";

const SEED = 32;
const DENY_TOUCH: s07.Rule = { tool: "bash", pattern: "touch*" };
const MARK = "pwned.txt";
const PAYLOAD = `touch ${MARK}`;

/** `text` as one shell word, quoted one of the ways bash takes it back to `text`. */
const quoted = (text: string) =>
  fc.constantFrom(
    `'${text}'`,
    `"${text.replace(/[$`"\\]/g, "\\$&")}"`,
    text.replace(/[^A-Za-z0-9_.=/-]/g, "\\$&"),
    `$'${text.replace(/['\\]/g, "\\$&")}'`,
    `'${text.slice(0, 2)}'"${text.slice(2).replace(/[$`"\\]/g, "\\$&")}"`,
  );

const SUBSCRIPT = `a[$(${PAYLOAD})]`;
const asBuiltin = fc.constantFrom("", "builtin ", "command ");

/** A builtin given a name with a subscript that runs the payload. */
const nameTaken = fc.oneof(
  fc
    .tuple(asBuiltin, quoted(SUBSCRIPT), fc.constantFrom("test -v N", "[ -v N ]", "printf -v N x"))
    .map(([b, n, form]) => b + form.replace("N", n)),
  quoted(SUBSCRIPT).map((n) => `[[ -v ${n} ]]`),
  fc.tuple(asBuiltin, quoted(SUBSCRIPT)).map(([b, n]) => `${b}read ${n} <<< x`),
  fc.tuple(asBuiltin, quoted(SUBSCRIPT)).map(([b, n]) => `declare -a a; ${b}unset ${n}`),
  fc
    .tuple(asBuiltin, fc.constantFrom("declare", "typeset", "declare -g"), quoted(`${SUBSCRIPT}=1`))
    .map(([b, d, n]) => `${b}${d} ${n}`),
  quoted(`${SUBSCRIPT}=1`).map((n) => `f() { local ${n}; }; f`),
  quoted(SUBSCRIPT).map((n) => `sleep 0 & wait -n -p ${n}`),
  // The name reaches the builtin through a function's argument.
  fc
    .tuple(fc.constantFrom('test -v "$1"', 'printf -v "$1" x', 'declare "$1=1"'), quoted(SUBSCRIPT))
    .map(([body, n]) => `f() { ${body}; }; f ${n}`),
);

/** A variable holding the subscript, then arithmetic that reads its value. */
const arithmeticOnAName = fc
  .tuple(
    quoted(SUBSCRIPT),
    fc.constantFrom(
      "echo ${a[v]}",
      "echo ${!a[v]}",
      "s=abc; echo ${s:v}",
      "a=(1 2); echo ${a[@]:0:v}",
      "echo $((v))",
      "((v))",
      "let v",
      "for ((;v;)); do break; done",
      "[[ v -lt 1 ]]",
      "echo ${!v}",
      "declare -i y; y=v",
      "declare -i y=v",
      "case 1 in $((v))) ;; esac",
    ),
  )
  .map(([v, use]) => `v=${v}; ${use}`);

/** Strings bash keeps and runs later, and names it gives a program. */
const runLater = fc.oneof(
  quoted(`$(${PAYLOAD})`).map((s) => `compgen -W ${s} x`),
  quoted(PAYLOAD).map((s) => `compgen -C ${s} x`),
  quoted(PAYLOAD).map((s) => `mapfile -C ${s} -c 1 <<< x`),
  quoted(`$(${PAYLOAD})`).map((s) => `PS4=${s}; set -x; true`),
  quoted(`$(${PAYLOAD})`).map((s) => `export PS4=${s}; set -x; true`),
  quoted(`$(${PAYLOAD})`).map((s) => `BASH_ENV=${s} bash -c true`),
  quoted(`$(${PAYLOAD})`).map((s) => `env BASH_ENV=${s} bash -c true`),
  quoted(`$(${PAYLOAD})`).map((s) => `x=${s}; echo \${x@P}`),
  quoted(`BASH_FUNC_f%%=() { ${PAYLOAD}; }`).map((s) => `env ${s} bash -c f`),
  fc.constant(`hash -p /usr/bin/touch t; t ${MARK}`),
  fc.constant(`BASH_CMDS[t]=/usr/bin/touch; t ${MARK}`),
  quoted(PAYLOAD).map((s) => `shopt -s expand_aliases\nalias t=${s}\nt`),
  quoted(PAYLOAD).map((s) => `shopt -s expand_aliases\nBASH_ALIASES[t]=${s}\nt`),
  quoted(PAYLOAD).map((s) => `source /dev/stdin <<< ${s}`),
  // Found by a fresh attack on the fix: `--` before trap's script, a script file that is the
  // command's own input, an array's element key evaluated as arithmetic.
  quoted(PAYLOAD).map((s) => `trap -- ${s} EXIT`),
  fc
    .tuple(
      fc.constantFrom("bash", "sh"),
      fc.constantFrom("/dev/stdin", "/proc/self/fd/0"),
      quoted(PAYLOAD),
    )
    .map(([sh, file, s]) => `${sh} ${file} <<< ${s}`),
  quoted(`$(${PAYLOAD})`).map((s) => `a=( [${s}]=1 )`),
);

/** Each wrapper's options as its manual gives them, values and all, long and short. */
const WRAPPER_OPTIONS: Record<string, string[]> = {
  env: [
    "-u X",
    "-uX",
    "--unset X",
    "--unset=X",
    "-C .",
    "--chdir .",
    "--chdir=.",
    "-v",
    "--debug",
    "-i",
    "--ignore-signal=INT",
    "X=1",
  ],
  nice: ["-n 5", "-n5", "--adjustment 5", "--adjustment=5", "-5"],
  timeout: [
    "-s KILL",
    "--signal=TERM",
    "--signal TERM",
    "-k 9",
    "--kill-after 9",
    "--foreground",
    "--preserve-status",
    "-v",
  ],
  stdbuf: ["-oL", "-o L", "--output L", "--output=L", "-e 0", "--error=0"],
  setsid: ["-w", "--wait"],
  nohup: [],
  // Programs the reader has no list for: a deny rule is tried against their words.
  ionice: ["-c 3"],
  taskset: ["-c 0"],
  chrt: ["-o 0"],
  prlimit: ["--nofile=100"],
  xargs: [
    "-0",
    "-d ,",
    "--delimiter=,",
    "-n 1",
    "--max-args 1",
    "-P 1",
    "-L 1",
    "-E x",
    "-a /dev/null",
    "--arg-file /dev/null",
  ],
};
const wrapper = fc.constantFrom(...Object.keys(WRAPPER_OPTIONS)).chain((name) =>
  fc
    .subarray(WRAPPER_OPTIONS[name], {
      // The programs without a list need theirs (taskset's mask, chrt's priority).
      minLength: ["taskset", "chrt"].includes(name) ? 1 : 0,
      maxLength: Math.min(3, WRAPPER_OPTIONS[name].length),
    })
    .map((options) => [name, ...options, ...(name === "timeout" ? ["20"] : [])].join(" ")),
);
const SHELL_OPTIONS = [
  "-O extglob",
  "+O extglob",
  "-o pipefail",
  "-e",
  "-u",
  "--norc",
  "--noprofile",
  "--rcfile /dev/null",
  "--init-file /dev/null",
  "--posix",
];
const shell = fc
  .tuple(fc.constantFrom("bash", "rbash", "sh"), fc.subarray(SHELL_OPTIONS, { maxLength: 3 }))
  .map(([name, options]) =>
    name === "sh"
      ? [name, ...options.filter((o) => /^[-+][eu]$|^-o /.test(o))]
      : [name, ...options],
  );
/** One to three wrappers, then the payload (as words, or as a shell's `-c` script). */
const wrapped = fc
  .tuple(fc.array(wrapper, { minLength: 1, maxLength: 3 }), fc.option(shell), quoted(PAYLOAD))
  .map(([wrappers, sh, script]) => {
    const run = sh ? [...sh, "-c", script].join(" ") : PAYLOAD;
    const command = [...wrappers, run].join(" ");
    return wrappers.some((w) => w.startsWith("xargs")) ? `${command} < /dev/null` : command;
  });

let ids = 0;
const bash = (command: string) =>
  ({ type: "tool_use", id: `e${++ids}`, name: "bash", input: { command } }) as ToolUseBlock;

/** Does bash, given `command`, run the payload? Plain bash, outside any sandbox (the question is
 *  what bash does with the text, not what the sandbox lets it reach; the payload only touches a
 *  file in a temporary folder), so no bubblewrap round trip per generated command. */
function runsThePayload(command: string): boolean {
  const cwd = tempDir("lah-eval-");
  try {
    spawnSync("bash", ["-c", command], {
      cwd,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: cwd },
      stdio: "ignore",
      timeout: budget({ cli: 1 }),
    });
    return existsSync(path.join(cwd, MARK));
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
}

async function gate(command: string) {
  const env = scriptedEnv([]);
  env.ask = async () => "yes";
  return s07.checkPermission(env, { mode: "auto", allow: [], deny: [DENY_TOUCH] }, bash(command));
}

describe("a denied command bash runs from text the parser reads as data is refused", () => {
  const RUNS = 60;
  for (const [kind, commands] of Object.entries({
    nameTaken,
    arithmeticOnAName,
    runLater,
    wrapped,
  })) {
    let ran = 0;
    test.prop([commands], { seed: SEED, numRuns: RUNS })(
      `${kind}: the gate refuses it`,
      async (command) => {
        if (runsThePayload(command)) ran++;
        expect(await gate(command), command).not.toBeNull();
      },
      budget({ cli: 8 }),
    );
    // Not a vacuous rule: the generated commands are real attacks, which bash runs (a few
    // quotings are not evaluated in every place, so not all of them).
    it(`${kind}: bash runs the denied command in most of them`, () => {
      expect(ran).toBeGreaterThan(RUNS / 2);
    });
  }
});

describe("the same words as data, where bash evaluates nothing", () => {
  it("are read as known commands an allow rule can allow", () => {
    const known = [
      "test -v name",
      "[[ -v a[1] ]]",
      "printf -v out '%s' x",
      "read -r line <<< x",
      "declare -a list=(1 2)",
      "export PATH=/usr/bin:$PATH",
      "echo ${a[0]} ${s:1:2} ${!a[@]}",
      "env -u X --chdir=. ls",
      "nice -n 5 timeout --signal=KILL 5 ls",
      "bash -O extglob -c 'ls'",
      "grep 'a[$x]' file",
    ];
    expect(known.filter((c) => !readCommand(c).every((part) => part.known))).toEqual([]);
  });
});
