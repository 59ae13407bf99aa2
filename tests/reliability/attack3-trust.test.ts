// Third independent attack on hook trust (s08, `_shared/trust.ts`), 2026-12-04, now held. A yes is
// kept for the hooks file's text and for the files its commands name. The hook runs in `sh`,
// which takes a backslash off, expands a glob, a variable and `$(pwd)`: spelled so, the script
// the hook runs was fingerprinted as a missing file (or not at all), and the model could rewrite
// it with no new question. Now a hook whose script (or program) sh would expand is not trusted
// at all: it is left out before any question, with a note that says why and what to write
// instead; so is a hook that changes folder before it names its script (`cd hooks && sh
// after.sh`, found attacking the fix). Each spelling is first run in sh, to show it really runs hooks/after.sh; then the
// model rewrites the script, and neither version runs through the harness. Seen failing before
// the fix (the rewritten script ran).
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fc, test } from "@fast-check/vitest";
import { describe, expect } from "vitest";
import { createAgent, HOOKS_FILE } from "../../chapters/s08-hook-system/agent.ts";
import { say, use } from "../../chapters/_shared/scripted.ts";
import { budget } from "../support/budgets.ts";
import { scriptedEnv, tempDir } from "../support/helpers.ts";

const SCRIPT = "hooks/after.sh";

/** The attacker's spellings of `sh hooks/after.sh`. */
const found = fc.constantFrom(
  String.raw`sh hooks/aft\er.sh`,
  "sh hooks/afte?.sh",
  "sh hooks/[a]fter.sh",
  "sh hooks/after.s*",
  'F=hooks/after.sh; sh "$F"',
  String.raw`sh ho\oks/after.sh`,
  'sh "$(pwd)/hooks/after.sh"',
  "sh ${PWD%/}/hooks/after.sh",
);

/** The fix, attacked: the same rewrites at any letter, through an input redirection, a nested
 *  `sh -c` or `eval`, a backquote, a brace list or a variable that names the program. */
const letter = fc
  .integer({ min: 0, max: SCRIPT.length - 1 })
  .filter((i) => /[a-z]/.test(SCRIPT[i]));
const spelled = fc
  .tuple(letter, fc.constantFrom("backslash", "one", "class", "rest"))
  .map(([i, how]) => {
    const [before, c, after] = [SCRIPT.slice(0, i), SCRIPT[i], SCRIPT.slice(i + 1)];
    if (how === "backslash") return `${before}\\${c}${after}`;
    if (how === "one") return `${before}?${after}`;
    if (how === "class") return `${before}[${c}]${after}`;
    // (Not `sh *` or `sh h*`: a star in the folder's name matches the other files too.)
    return before.includes("/") ? `${before}*` : `${before}?${after}`;
  });
const generated = fc.oneof(
  fc
    .tuple(spelled, fc.constantFrom("sh W", "sh -e W", "env X=1 sh W", "sh -c 'sh W'"))
    .map(([word, form]) => form.replace("W", word)),
  // sh does not expand a glob in a redirection's file name, but it takes a backslash off.
  letter.map((i) => `sh < ${SCRIPT.slice(0, i)}\\${SCRIPT.slice(i)}`),
  fc.constantFrom(
    "sh `echo hooks/after.sh`",
    String.raw`sh hooks/af"t"er.s\h`,
    "S=sh; $S hooks/after.sh",
    `eval 'sh "$(pwd)/${SCRIPT}"'`,
    "sh ${PWD}/hooks/../hooks/after.s?",
  ),
  // A hook that changes folder names its script from there: not the name the fingerprint read.
  fc.constantFrom(
    "cd hooks && sh after.sh",
    "(cd hooks; . ./after.sh)",
    "env -C hooks sh after.sh",
    "env --chdir=hooks sh after.sh",
    "cd hooks; exec sh after.sh",
  ),
  // Nor one that sets its own search path: `after` then runs hooks/after, unpinned.
  fc.constantFrom("PATH=hooks:$PATH after.sh", "export PATH=$PWD/hooks:$PATH; after.sh"),
  // Nor a program named by a variable, behind a wrapper, that runs a file with no `/` or
  // extension (`lint`, the same script at the top): found attacking the fix.
  fc
    .tuple(
      fc.constantFrom("env", "nice", "exec", "command", "timeout 5"),
      fc.constantFrom('"$S"', "$S", "${S}"),
    )
    .map(([wrapper, program]) => `S=sh; ${wrapper} ${program} lint`),
);

const notes = (env: ReturnType<typeof scriptedEnv>) =>
  env.io.trace.flatMap((e) => (e.kind === "note" ? [e.text] : []));

describe("a script a hook runs, named the way sh rewrites it", () => {
  test.prop([fc.oneof(found, generated)], { seed: 33, numRuns: 80 })(
    "is not trusted: neither it nor the model's rewrite runs, and the person reads why",
    async (command) => {
      const ws = tempDir("lah-attack3-trust-");
      mkdirSync(path.join(ws, "hooks"));
      writeFileSync(path.join(ws, SCRIPT), `echo checked >> '${ws}/after.log'\n`, { mode: 0o755 });
      writeFileSync(path.join(ws, "lint"), `echo checked >> '${ws}/after.log'\n`);
      // The spelling does run hooks/after.sh in sh (plain sh: what sh makes of the words is the
      // question here, not what the sandbox lets it reach; the harness's run below is sandboxed).
      spawnSync("sh", ["-c", command], {
        cwd: ws,
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: ws },
        stdio: "ignore",
        timeout: budget({ cli: 1 }),
      });
      expect(readFileSync(path.join(ws, "after.log"), "utf8"), command).toBe("checked\n");
      writeFileSync(
        path.join(ws, HOOKS_FILE),
        JSON.stringify({ PostToolUse: [{ matcher: "bash", command }] }),
      );
      const env = scriptedEnv(
        [
          use("bash", { command: "echo before" }),
          use("write", { path: SCRIPT, content: `touch '${ws}/pwned'\n` }),
          use("write", { path: "lint", content: `touch '${ws}/pwned'\n` }),
          use("bash", { command: "echo after" }),
          say("ok"),
        ],
        { workspace: ws, answers: ["yes"] }, // yes to any question, as the attack was
      );
      await createAgent(env).send("go");
      expect(readFileSync(path.join(ws, "after.log"), "utf8"), command).toBe("checked\n");
      expect(existsSync(path.join(ws, "pwned")), `${command}: the rewritten script ran`).toBe(
        false,
      );
      expect(notes(env).join("\n"), command).toMatch(
        /is not run: .*(would expand this (name|word)|changes folder|sets its own PATH).*cannot be pinned/,
      );
    },
    budget({ cli: 20 }),
  );
});
