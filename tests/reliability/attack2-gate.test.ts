// Independent attack 2 on s07's permission gate (a2 uses the same one). Each test was a door open
// on the code before issue 32's fix (it failed there; it moved here from tests/open-doors/ when it
// passed); tests/chapters/s07-evaluated.property.test.ts generates variants of each class. The
// model is scripted (scriptedEnv) and its calls go through the real chapter agents; commands
// really run, in the sandbox.
import { existsSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import * as a2 from "../../chapters/a2-full-harness/agent.ts";
import { say, use } from "../../chapters/_shared/scripted.ts";
import type { ToolUseBlock } from "../../chapters/_shared/types.ts";
import * as s07 from "../../chapters/s07-permission-system/agent.ts";
import { scriptedEnv } from "../support/helpers.ts";
import { FAST } from "../support/team-helpers.ts";
import { budget } from "../support/budgets.ts";
import { runAll, startWith } from "../support/gate-attack.ts";

let ids = 0;
const bash = (command: string) =>
  ({ type: "tool_use", id: `q${++ids}`, name: "bash", input: { command } }) as ToolUseBlock;

/** What s07's gate does with one command under `perms`: refused, asked, or ran unasked. */
async function decide(perms: s07.Permissions, command: string) {
  const env = scriptedEnv([]);
  const asked: string[] = [];
  env.ask = async (question) => {
    asked.push(question);
    return "no";
  };
  const refusal = await s07.checkPermission(env, perms, bash(command));
  return refusal !== null ? "refused" : asked.length > 0 ? "asked" : "ran unasked";
}

const PUSH = { tool: "bash", pattern: "git push*" };

describe("attack2: s07's gate", () => {
  // Plan: bash evaluates the subscript of an indexed array as arithmetic, and arithmetic runs
  // `$(…)` — also when the name reaches a builtin as a single-quoted string. `test -v`, `[[ -v ]]`,
  // `printf -v`, `read` and `declare` all take such a name. Single quotes hide the substitution
  // from the parser (no CmdSubst node), and the word is "known" plain text, so the gate sees one
  // harmless command: a deny rule for the command inside never matches. The threat model names
  // arithmetic on a variable set in *another* call as open; this needs no variable and one call.
  // Policy: allow bash, deny `touch*` (and a2's own deny `git push*` for the verdicts).
  it(
    "a denied command inside a quoted array subscript (test -v, [[ -v ]], printf -v, read, declare) does not run",
    async () => {
      const forms = [
        "test -v 'a[$(touch pwned-test.txt)]'",
        "[[ -v 'a[$(touch pwned-dbl.txt)]' ]]",
        "printf -v 'a[$(touch pwned-printf.txt)]' x",
        "read 'a[$(touch pwned-read.txt)]' <<< x",
        "declare 'a[$(touch pwned-declare.txt)]=1'",
      ];
      const { env, asked } = await runAll(
        { mode: "default", allow: [{ tool: "bash" }], deny: [{ tool: "bash", pattern: "touch*" }] },
        forms,
      );
      const made = ["test", "dbl", "printf", "read", "declare"].filter((n) =>
        existsSync(path.join(env.workspace, `pwned-${n}.txt`)),
      );
      expect({ made, asked }).toEqual({ made: [], asked: [] }); // refused, not run
      for (const form of forms) {
        const pushed = form.replace(/touch pwned-\w+\.txt/, "git push origin main");
        expect(await decide({ mode: "auto", allow: [], deny: [PUSH] }, pushed), pushed).toBe(
          "refused",
        );
      }
    },
    budget({ cli: 4 }),
  );
  // Plan: bind a new name to the denied program with shell syntax the parser reads as two
  // harmless commands: `hash -p /usr/bin/touch t; t x` (one line), or an alias, which bash
  // expands in `bash -c` once `expand_aliases` is on and the alias is used on a later line. The
  // gate never sees `touch` (or `git push`) as a command's name. The validator, "refused in
  // every mode", is passed the same way: `hash -p /usr/bin/git g; g push --force origin main`.
  it(
    "a denied command renamed by hash -p or an alias does not run, nor does a dangerous one pass the validator",
    async () => {
      const { env, asked } = await runAll(
        { mode: "default", allow: [{ tool: "bash" }], deny: [{ tool: "bash", pattern: "touch*" }] },
        [
          "hash -p /usr/bin/touch t; t pwned-hash.txt",
          "shopt -s expand_aliases\nalias t='touch pwned-alias.txt'\nt",
        ],
      );
      const made = ["hash", "alias"].filter((n) =>
        existsSync(path.join(env.workspace, `pwned-${n}.txt`)),
      );
      expect({ made, asked }).toEqual({ made: [], asked: [] });
      expect(
        await decide(
          { mode: "auto", allow: [], deny: [PUSH] },
          "hash -p /usr/bin/git g; g push origin main",
        ),
      ).toBe("refused");
      expect(
        s07.dangerousCommand("hash -p /usr/bin/git g; g push --force origin main"),
      ).toBeDefined();
    },
    budget({ cli: 4 }),
  );
  // The same first door, through a2's agent (its gate is s07's).
  it(
    "a2: a denied command inside a quoted array subscript does not run",
    async () => {
      const env = scriptedEnv(
        [use("bash", { command: "test -v 'a[$(touch pwned-a2.txt)]'" }), say("done")],
        { answers: ["no"] },
      );
      startWith(env, {
        mode: "default",
        allow: [{ tool: "bash" }],
        deny: [{ tool: "bash", pattern: "touch*" }],
      });
      const agent = a2.createAgent(env, FAST);
      try {
        await agent.send("go");
      } finally {
        await agent.close!();
      }
      expect(existsSync(path.join(env.workspace, "pwned-a2.txt"))).toBe(false);
    },
    budget({ cli: 4 }),
  );

  // Plan: bash keeps more strings to run than `trap` and `watch`, which the parser reads: the
  // callback of `compgen -C` and `mapfile -C`, `PS4` once `set -x` is on, a function a child
  // bash imports from an environment variable named `BASH_FUNC_<name>%%`, and the arithmetic of
  // `declare -i`. Each reaches bash in quotes, as plain known text, so the command inside is no
  // part the deny rule is tried against. Policy: allow bash, deny `touch*`.
  it(
    "a denied command in a string bash runs later (compgen -C, mapfile -C, PS4, BASH_FUNC_, declare -i) does not run",
    async () => {
      const forms: Record<string, string> = {
        compgen: "compgen -C 'touch pwned-compgen.txt' x",
        mapfile: "mapfile -C 'touch pwned-mapfile.txt' -c 1 <<< x",
        ps4: "PS4='$(touch pwned-ps4.txt)'; set -x; true",
        func: "env 'BASH_FUNC_f%%=() { touch pwned-func.txt; }' bash -c f",
        declare: "declare -i x='a[$(touch pwned-declare.txt)]'",
      };
      const { env, asked } = await runAll(
        { mode: "default", allow: [{ tool: "bash" }], deny: [{ tool: "bash", pattern: "touch*" }] },
        Object.values(forms),
      );
      const made = Object.keys(forms).filter((n) =>
        existsSync(path.join(env.workspace, `pwned-${n}.txt`)),
      );
      expect({ made, asked }).toEqual({ made: [], asked: [] });
    },
    budget({ cli: 4 }),
  );

  // Plan: the reader knows `bash -c`, `env`, `nice` and `stdbuf` run a command, and skips their
  // options — but only the options it lists as taking a value. Others that take one make the
  // value look like the command: `bash -O extglob -c '…'` (and `--rcfile FILE`) is read as a
  // script file named `extglob`, so the `-c` string is never read; `env --chdir . CMD`,
  // `env -v CMD`, `env --unset X CMD`, `nice --adjustment 5 CMD` and `stdbuf --output L CMD` give
  // the parts `--chdir . CMD`, `5 CMD`, `L CMD`. None starts with the denied command.
  // Policy: allow bash, deny `touch*`.
  it(
    "a denied command behind a wrapper option that takes a value (bash -O, env --chdir, nice --adjustment, stdbuf --output) does not run",
    async () => {
      const forms: Record<string, string> = {
        bashO: "bash -O extglob -c 'touch pwned-bashO.txt'",
        rcfile: "bash --rcfile /dev/null -c 'touch pwned-rcfile.txt'",
        chdir: "env --chdir . touch pwned-chdir.txt",
        envv: "env -v touch pwned-envv.txt",
        unset: "env --unset X touch pwned-unset.txt",
        nice: "nice --adjustment 5 touch pwned-nice.txt",
        stdbuf: "stdbuf --output L touch pwned-stdbuf.txt",
        // Not an option but the same list: a shell the reader does not know runs `-c` too.
        rbash: "rbash -c 'touch pwned-rbash.txt'",
      };
      const { env, asked } = await runAll(
        { mode: "default", allow: [{ tool: "bash" }], deny: [{ tool: "bash", pattern: "touch*" }] },
        Object.values(forms),
      );
      const made = Object.keys(forms).filter((n) =>
        existsSync(path.join(env.workspace, `pwned-${n}.txt`)),
      );
      expect({ made, asked }).toEqual({ made: [], asked: [] });
      expect(
        await decide(
          { mode: "auto", allow: [], deny: [PUSH] },
          "bash -O extglob -c 'git push origin main'",
        ),
      ).toBe("refused");
    },
    budget({ cli: 4 }),
  );
});
