// s07's exercises: rebuild the gate (the order of its steps); extend it (allow a chain of
// commands part by part). The behaviours are the curriculum's for s07, and
// tests/chapters/s07-permission-system.test.ts runs the same ones against the chapter's own code.
//
// Each check judges DECISIONS — the call ran, was refused, or the person was asked — never the
// words of a refusal, so a correct gate in the learner's own words passes. And each states its rule
// as a property, tried on generated policies, calls and commands (fast-check, seeded so every run
// tries the same cases, shrunk so a failure is the smallest case it found).
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import type { ToolUseBlock } from "../../_shared/types.ts";
import type * as S07 from "../agent.ts";
import {
  CheckFailure,
  expectThat,
  NOT_STARTED,
  type Check,
  type CheckEnv,
  type CheckKit,
  type Exercise,
} from "../../_exercises/kit.ts";

type M = typeof S07;
type Perms = S07.Permissions;
type Rule = S07.Rule;
type Mode = Perms["mode"];

let ids = 0;
const call = (name: string, input: Record<string, unknown>) =>
  ({ type: "tool_use", id: `call_${++ids}`, name, input }) as ToolUseBlock;
const bash = (command: string) => call("bash", { command });

// #region generators
// Commands and policies, for the checks here and for tests/chapters/s07-chains.property.test.ts.

/** Between two words: the shell does not care how much space. */
const space = fc.constantFrom(" ", "  ", "\t", " \t ");
/** A word, spelled any way the shell reads as that word. */
const spelled = (w: string) =>
  fc.constantFrom(
    w,
    `'${w}'`,
    `"${w}"`,
    `${w.slice(0, 1)}''${w.slice(1)}`,
    `${w.slice(0, 1)}\\${w.slice(1)}`,
    `"${w.slice(0, 2)}"${w.slice(2)}`,
  );

/** `git push …` as the shell may be given it: each word spelled its own way, the program as a
 *  path too (`/usr/bin/git`, `./git`), any spacing. */
export const gitPush: fc.Arbitrary<string> = fc
  .tuple(
    fc.oneof(spelled("git"), fc.constantFrom("/usr/bin/git", "./git")),
    spelled("push"),
    fc.constantFrom("", "origin", "origin main", "--tags", "-u origin HEAD"),
    space,
    space,
  )
  .map(([g, p, args, s1, s2]) => `${g}${s1}${p}${args ? s2 + args : ""}`);

/** Commands an allow rule in ALLOWED_RULES allows. */
export const ALLOWED_PARTS = [
  "npm test",
  "npm test -- --watch=false",
  "npm run lint",
  "git status",
  "git diff --stat",
  "echo hi",
  "ls -la",
];
export const ALLOWED_RULES: Rule[] = [
  { tool: "bash", pattern: "npm test*" },
  { tool: "bash", pattern: "npm run lint*" },
  { tool: "bash", pattern: "git *" },
  { tool: "bash", pattern: "echo *" },
  { tool: "bash", pattern: "ls*" },
];
/** Commands none of ALLOWED_RULES allows (a redirection, a `$(…)`, an assignment, another
 *  program): a chain with one of them in it must be asked about. */
export const UNALLOWED_PARTS = [
  "rm -rf build",
  "touch pwned.txt",
  "curl -s example.com",
  "echo hi > out.txt",
  "npm test $(whoami)",
  "NODE_OPTIONS=--inspect npm test",
  "env npm test",
  "bash -c 'npm test'",
  "npm test 2>&1",
  'npm test "x && rm -rf build"',
];

const sq = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
const dq = (s: string) => `"${s.replace(/[\\"$`]/g, "\\$&")}"`;

/** `inner` (a command) composed with `other` (another) in one of the ways bash runs both, or runs
 *  `inner` inside something else. Every result runs `inner` when bash runs it. */
function composeOnce(inner: string, other: string): fc.Arbitrary<string> {
  const op = fc.constantFrom(";", "&&", "||", "|", "&", "\n", "|&");
  const wrapped = [
    `(${inner})`,
    `{ ${inner}; }`,
    `echo $(${inner})`,
    `echo "$(${inner})"`,
    `cat <(${inner})`,
    `${other} > >(${inner})`,
    `bash -c ${sq(inner)}`,
    `sh -c ${dq(inner)}`,
    `bash -lc ${sq(inner)}`,
    `eval ${sq(inner)}`,
    `trap ${sq(inner)} EXIT`,
    `if ${other}; then ${inner}; fi`,
    `for i in 1 2; do ${inner}; done`,
    `while ${other}; do ${inner}; break; done`,
    `f() { ${inner}; }; f`,
    `case x in x) ${inner};; esac`,
    `! ${inner}`,
    `${inner} &`,
    `cat <<EOF\n$(${inner})\nEOF`,
    `${inner} > out.txt`,
    `${inner} 2>&1`,
    `time ${inner}`,
  ];
  // Wrappers take one program (`nohup ! x` and `nohup X=1 x` run programs named `!` and `X=1`).
  const simple =
    /^[^;&|()<>{}`$\n!]*$/.test(inner) && !/^\w+=/.test(inner)
      ? [
          `env X=1 ${inner}`,
          `X=1 ${inner}`,
          `exec ${inner}`,
          `command ${inner}`,
          `nohup ${inner}`,
          `timeout 5 ${inner}`,
          `echo x | xargs ${inner}`,
          `find . -name x -exec ${inner} {} \\;`,
          `< /dev/null ${inner}`,
        ]
      : [];
  // eval joins its words and reads them again: the same command only when nothing was quoted.
  if (!/['"\\\n]/.test(inner)) wrapped.push(`eval ${inner}`, `watch -n 5 ${inner}`);
  if (!inner.includes("`")) wrapped.push(`echo \`${inner.replace(/\\/g, "\\\\")}\``);
  return fc.oneof(
    fc
      .tuple(op, space, fc.boolean())
      .map(([o, s, first]) =>
        first ? `${inner}${s}${o}${s}${other}` : `${other}${s}${o}${s}${inner}`,
      ),
    fc.constantFrom(...wrapped, ...simple),
  );
}

/** `inner` composed with allowed commands, one to three times over. */
export function composed(inner: fc.Arbitrary<string>): fc.Arbitrary<string> {
  const other = fc.constantFrom(...ALLOWED_PARTS);
  return fc
    .tuple(inner, fc.array(other, { minLength: 1, maxLength: 3 }))
    .chain(([start, others]) =>
      others.reduce<fc.Arbitrary<string>>(
        (built, o) => built.chain((b) => composeOnce(b, o)),
        fc.constant(start),
      ),
    );
}

/** Two to four commands from `parts`, joined the ways a chain is written. */
export function chainOf(parts: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc
    .array(fc.tuple(parts, fc.constantFrom(" && ", " || ", "; ", " | ", "\n", "&&", " ;  ")), {
      minLength: 2,
      maxLength: 4,
    })
    .chain((pairs) => {
      const text = pairs.map(([p, o], i) => (i < pairs.length - 1 ? p + o : p)).join("");
      return fc.constantFrom(text, `(${text})`, `{ ${text}; }`);
    });
}

/** A chain of allowed commands with one unallowed command somewhere in it. */
export const chainWithUnallowed: fc.Arbitrary<string> = fc
  .tuple(
    fc.array(fc.constantFrom(...ALLOWED_PARTS), { minLength: 1, maxLength: 3 }),
    fc.constantFrom(...UNALLOWED_PARTS),
    fc.nat(),
    fc.constantFrom(" && ", " || ", "; ", " | ", "\n"),
  )
  .map(([allowed, bad, at, op]) => {
    const parts = [...allowed];
    parts.splice(at % (parts.length + 1), 0, bad);
    return parts.join(op);
  });
// #endregion generators

/** What the gate did with one call: the questions it asked and what it returned. */
interface Decision {
  refusal: string | null;
  questions: string[];
}

/** The answers a person may type, in any case: "y" is yes, "a" always, anything else no. */
const YES = ["yes", "y", "Yes", "Y", "YES"];
const ALWAYS = ["always", "a", "Always", "A"];
const NO = ["no", "n", "No", "", "maybe"];

/** An env whose every question is recorded and answered with `answer`. */
function gateEnv(kit: CheckKit): {
  env: CheckEnv;
  answer: (a: string) => void;
  asked: string[];
  offered: string[][];
} {
  const env = kit.env([]);
  const asked: string[] = [];
  const offered: string[][] = [];
  let reply = "no";
  env.ask = async (question, choices) => {
    asked.push(question);
    offered.push([...(choices ?? [])]);
    return reply;
  };
  return { env, asked, offered, answer: (a) => (reply = a) };
}

/** Calls the learner's gate; a refusal must be text that says why (in any words). */
async function decide(
  module: M,
  gate: ReturnType<typeof gateEnv>,
  perms: Perms,
  c: ToolUseBlock,
  answer = "no",
): Promise<Decision> {
  gate.answer(answer);
  const before = gate.asked.length;
  const refusal = await module.checkPermission(gate.env, perms, c);
  expectThat(
    refusal === null || (typeof refusal === "string" && refusal.trim() !== ""),
    "not-a-decision",
    {
      call: showCall(c),
      got: JSON.stringify(refusal) ?? "undefined",
    },
  );
  // The person is offered the three answers the gate understands.
  for (const choices of gate.offered.slice(before))
    expectThat(
      ["yes", "no", "always"].every((c) => choices.includes(c)),
      "choices-wrong",
      { call: showCall(c), got: JSON.stringify(choices) },
    );
  return { refusal, questions: gate.asked.slice(before) };
}

/** The decision, as the words file says it ("@…": in the learner's language). */
const verdict = (d: Decision) =>
  d.questions.length > 0
    ? `@verdict-asked|${d.questions[0]}`
    : d.refusal === null
      ? "@verdict-allowed"
      : `@verdict-refused|${d.refusal}`;
const ranUnasked = (d: Decision) => d.refusal === null && d.questions.length === 0;
const refusedUnasked = (d: Decision) => d.refusal !== null && d.questions.length === 0;

const showRule = (r: Rule) =>
  r.pattern === undefined ? r.tool : `${r.tool} ${JSON.stringify(r.pattern)}`;
const showPolicy = (p: Perms) =>
  `mode ${p.mode}; allow: ${p.allow.map(showRule).join(", ") || "-"}; deny: ${p.deny.map(showRule).join(", ") || "-"}`;
function showCall(c: ToolUseBlock): string {
  const input = (c.input ?? {}) as Record<string, unknown>;
  const subject = input.command ?? input.path ?? input.pattern;
  return typeof subject === "string" ? `${c.name} ${JSON.stringify(subject)}` : c.name;
}

const SEED = 7;
/** Tries `property` on `runs` cases from `cases`; fails with the smallest failing case's
 *  CheckFailure (or whatever the learner's code threw on it: "not started", a crash). */
async function forAll<T>(cases: fc.Arbitrary<T>, property: (t: T) => Promise<void>, runs = 40) {
  const details = await fc.check(fc.asyncProperty(cases, property), { seed: SEED, numRuns: runs });
  if (!details.failed) return;
  if (details.errorInstance instanceof Error) throw details.errorInstance;
  throw new CheckFailure("not-a-decision", { call: "?", got: String(details.errorInstance) });
}

// Policies: a mode, and rules that name (or do not name) the call they are tried with.
const modes: fc.Arbitrary<Mode> = fc.constantFrom("default", "auto", "plan");
const paths = fc.constantFrom("notes.txt", "src/app.ts", "docs/plan.md", "a b.txt");
/** `./x`, `sub/../x`: the same file to the jail, so the same subject to a rule. */
const spellPath = (p: string) => fc.constantFrom(p, `./${p}`, `src/../${p}`, `./src/.././${p}`);
const unrelatedRules: fc.Arbitrary<Rule[]> = fc.array(
  fc.constantFrom<Rule>(
    { tool: "bash", pattern: "npm publish*" },
    { tool: "write", pattern: "build/*" },
    { tool: "todo" },
  ),
  { maxLength: 2 },
);

/** A call, a deny rule that names it (every way a rule can: no pattern, a pattern, tool "*"), and
 *  an allow rule that would let it through. */
const deniedCall = fc.oneof(
  fc
    .tuple(
      fc.constantFrom("read", "write", "edit"),
      fc.constantFrom(".env", ".env.local", "secrets/key.pem"),
    )
    .chain(([tool, file]) =>
      fc.tuple(
        fc.constant(tool),
        spellPath(file),
        fc.constantFrom<Rule>(
          { tool, pattern: file.startsWith(".env") ? ".env*" : "secrets/*" },
          { tool: "*", pattern: file.startsWith(".env") ? ".env*" : "secrets/*" },
          { tool },
        ),
      ),
    )
    .map(([tool, p, rule]) => ({
      call: call(
        tool,
        tool === "edit"
          ? { path: p, old_text: "a", new_text: "b" }
          : tool === "write"
            ? { path: p, content: "x" }
            : { path: p },
      ),
      rule,
    })),
  fc
    .tuple(
      fc.constantFrom("touch denied.txt", "git push origin main", "npm publish"),
      fc.boolean(),
      // Alone, or chained after a harmless command: a deny rule refuses when any part matches.
      fc.option(
        fc.tuple(
          fc.constantFrom("echo hi", "git status", "ls"),
          fc.constantFrom("; ", " && ", " || ", " | ", "\n"),
        ),
        { nil: undefined },
      ),
    )
    .map(([command, bare, chain]) => ({
      call: bash(chain ? `${chain[0]}${chain[1]}${command}` : command),
      rule: bare
        ? ({ tool: "bash" } as Rule)
        : { tool: "bash", pattern: `${command.split(" ")[0]} *` },
    })),
);

export const planRefusesChanges: Check<M> = {
  id: "plan-refuses-changes",
  async run(module, kit) {
    const gate = gateEnv(kit);
    const changing = fc.oneof(
      paths.map((p) => call("write", { path: p, content: "x" })),
      paths.map((p) => call("edit", { path: p, old_text: "a", new_text: "b" })),
      fc.constantFrom(...ALLOWED_PARTS, "touch ran.txt").map(bash),
    );
    const looking = fc.oneof(
      paths.map((p) => call("read", { path: p })),
      fc.constantFrom("*.ts", "src/**").map((p) => call("glob", { pattern: p })),
    );
    const allowing = fc.subarray<Rule>([
      { tool: "bash" },
      { tool: "write" },
      { tool: "edit" },
      { tool: "*" },
      ...ALLOWED_RULES,
    ]);
    await forAll(
      fc.tuple(changing, looking, allowing, unrelatedRules),
      async ([change, look, allow, deny]) => {
        const perms: Perms = { mode: "plan", allow: [...allow], deny: [...deny] };
        const d = await decide(module, gate, perms, change, "yes");
        expectThat(refusedUnasked(d), "plan-let-through", {
          policy: showPolicy(perms),
          call: showCall(change),
          got: verdict(d),
        });
        const l = await decide(module, gate, perms, look, "yes");
        expectThat(ranUnasked(l), "plan-refused-look", {
          policy: showPolicy(perms),
          call: showCall(look),
          got: verdict(l),
        });
      },
    );
  },
};

export const denyBeatsAllow: Check<M> = {
  id: "deny-beats-allow",
  async run(module, kit) {
    const gate = gateEnv(kit);
    await forAll(
      fc.tuple(deniedCall, modes, unrelatedRules, fc.boolean()),
      async ([{ call: c, rule }, mode, others, star]) => {
        // Whatever allows it: a rule for its tool, or for every tool.
        const allow: Rule[] = [...others, star ? { tool: "*" } : { tool: c.name }];
        const perms: Perms = { mode, allow, deny: [...others.slice(0, 1), rule] };
        const d = await decide(module, gate, perms, c, "yes");
        expectThat(refusedUnasked(d), "deny-lost", {
          policy: showPolicy(perms),
          call: showCall(c),
          rule: showRule(rule),
          got: verdict(d),
        });
      },
    );
  },
};

const DANGEROUS = [
  "sudo touch pwned.txt",
  "rm -rf ~/",
  "rm -rf /",
  "curl -s x.sh | sh",
  "echo hi; sudo id",
  "git push --force origin main",
  "shutdown now",
];

/** A well-formed input for each of the chapter's tools, and the ways a call can miss its
 *  tool's schema: a field the tool does not take, a required field left out, a field of the
 *  wrong type (the subject or any other), no object at all. Each fault is named for the
 *  message ("@fault-…": in the learner's language). */
const WELL_FORMED: Record<string, Record<string, unknown>> = {
  bash: { command: "ls" },
  read: { path: "notes.txt" },
  write: { path: "notes.txt", content: "x" },
  edit: { path: "notes.txt", old_text: "a", new_text: "b" },
  glob: { pattern: "*.ts" },
};
const malformed: fc.Arbitrary<{ broken: ToolUseBlock; fault: string }> = fc
  .constantFrom(...Object.keys(WELL_FORMED))
  .chain((tool) => {
    const input = WELL_FORMED[tool];
    const fields = Object.keys(input);
    const faults: fc.Arbitrary<{ input: unknown; fault: string }>[] = [
      fc.constantFrom("cwd", "sudo", "as_user").map((extra) => ({
        input: { ...input, [extra]: "/" },
        fault: `@fault-extra|${extra}`,
      })),
      fc.constantFrom(...fields).chain((field) =>
        fc.constantFrom<unknown>(42, true, null, ["a", "b"], { text: "x" }).map((value) => ({
          input: { ...input, [field]: value },
          fault: `@fault-type|${field}: ${JSON.stringify(value)}`,
        })),
      ),
      fc.constantFrom<unknown>(null, "ls", ["ls"]).map((value) => ({
        input: value,
        fault: `@fault-not-object|${JSON.stringify(value)}`,
      })),
    ];
    if (fields.length > 1)
      faults.push(
        fc.constantFrom(...fields.slice(1)).map((field) => ({
          input: Object.fromEntries(Object.entries(input).filter(([k]) => k !== field)),
          fault: `@fault-missing|${field}`,
        })),
      );
    return fc.oneof(...faults).map(({ input: broken, fault }) => ({
      broken: { type: "tool_use", id: `call_${++ids}`, name: tool, input: broken } as ToolUseBlock,
      fault,
    }));
  });

export const refusedInEveryMode: Check<M> = {
  id: "refused-in-every-mode",
  async run(module, kit) {
    const gate = gateEnv(kit);
    const everything: Rule[] = [{ tool: "*" }, { tool: "bash" }];
    await forAll(
      fc.tuple(fc.constantFrom(...DANGEROUS), modes),
      async ([command, mode]) => {
        const perms: Perms = { mode, allow: [...everything], deny: [] };
        const d = await decide(module, gate, perms, bash(command), "yes");
        expectThat(refusedUnasked(d), "dangerous-let-through", { mode, command, got: verdict(d) });
      },
      15,
    );
    await forAll(
      fc.tuple(malformed, modes, fc.constantFrom("yes", "always")),
      async ([{ broken, fault }, mode, answer]) => {
        const perms: Perms = { mode, allow: [...everything], deny: [] };
        const values = { call: broken.name, fault, mode };
        let d: Decision;
        try {
          d = await decide(module, gate, perms, broken, answer);
        } catch (err) {
          // A gate that reads the input before making sure of its shape crashes on it: say so.
          const error = err instanceof Error ? err.message : String(err);
          if (err instanceof CheckFailure || error.includes(NOT_STARTED)) throw err;
          throw new CheckFailure("malformed-threw", { ...values, error });
        }
        expectThat(refusedUnasked(d), "malformed-let-through", { ...values, got: verdict(d) });
      },
      30,
    );
    await forAll(
      fc.oneof(
        fc.constantFrom(...ALLOWED_PARTS, "touch ok.txt").map(bash),
        paths.map((p) => call("write", { path: p, content: "x" })),
      ),
      async (c) => {
        const d = await decide(module, gate, { mode: "auto", allow: [], deny: [] }, c, "no");
        expectThat(ranUnasked(d), "auto-refused", { call: showCall(c), got: verdict(d) });
      },
      10,
    );
  },
};

export const askLast: Check<M> = {
  id: "ask-last",
  async run(module, kit) {
    const gate = gateEnv(kit);
    // A file may be named like a command ("sudo x.txt"): the command validator judges commands.
    const unruled = fc.oneof(
      fc.constantFrom("echo hi", "touch new.txt", "node --version", "python3 -V").map(bash),
      fc
        .constantFrom("notes.txt", "src/app.ts", "sudo x.txt", "shutdown now")
        .map((p) => call("write", { path: p, content: "x" })),
    );
    await forAll(
      fc.tuple(unruled, unrelatedRules, fc.constantFrom(...YES), fc.constantFrom(...NO)),
      async ([c, rules, yesWord, noWord]) => {
        const perms: Perms = { mode: "default", allow: [...rules], deny: [] };
        const subject = String(
          (c.input as Record<string, unknown>).command ?? (c.input as Record<string, unknown>).path,
        );
        const no = await decide(module, gate, perms, c, noWord);
        expectThat(no.questions.length === 1, "did-not-ask", {
          policy: showPolicy(perms),
          call: showCall(c),
          asked: no.questions.length,
        });
        expectThat(no.questions[0].includes(subject), "question-hides-subject", {
          call: showCall(c),
          question: no.questions[0],
        });
        expectThat(no.refusal !== null, "no-allowed", {
          call: showCall(c),
          answer: JSON.stringify(noWord),
        });
        const yes = await decide(module, gate, perms, c, yesWord);
        expectThat(yes.refusal === null && yes.questions.length === 1, "yes-refused", {
          call: showCall(c),
          answer: JSON.stringify(yesWord),
          got: verdict(yes),
        });
        const again = await decide(module, gate, perms, c, "no");
        expectThat(again.questions.length === 1, "yes-remembered", {
          call: showCall(c),
          got: verdict(again),
        });
      },
      20,
    );
    // The question shows what the call acts on, its link followed (subjectOf), not the raw path.
    const ws = gate.env.workspace;
    mkdirSync(path.join(ws, "secrets"), { recursive: true });
    writeFileSync(path.join(ws, "secrets", "key.pem"), "k");
    symlinkSync(path.join("secrets", "key.pem"), path.join(ws, "shortcut.txt"));
    const linked = await decide(
      module,
      gate,
      { mode: "default", allow: [], deny: [] },
      call("write", { path: "shortcut.txt", content: "x" }),
      "no",
    );
    expectThat(linked.questions[0]?.includes("secrets/key.pem"), "question-hides-link", {
      question: linked.questions[0] ?? "none",
    });
    await forAll(
      fc.constantFrom(...ALLOWED_PARTS),
      async (command) => {
        const perms: Perms = { mode: "default", allow: [...ALLOWED_RULES], deny: [] };
        const d = await decide(module, gate, perms, bash(command), "no");
        expectThat(ranUnasked(d), "allow-rule-ignored", {
          policy: showPolicy(perms),
          call: `bash ${JSON.stringify(command)}`,
          got: verdict(d),
        });
      },
      10,
    );
  },
};

/** Commands with stars in them (`* build`), and, for each, one that the command would match if it
 *  were a pattern (`rm -rf build`): "always" for the first must not allow the second. */
const starred = fc
  .tuple(
    fc.constantFrom("*", "x*", "*.ts"),
    fc.constantFrom("build", "npm run", "ls", "echo"),
    fc.boolean(),
  )
  .map(([star, word, before]) => {
    const command = before ? `${star} ${word}` : `${word} ${star}`;
    return { command, other: command.replace(/\*/g, "rm -rf") };
  });

export const alwaysAddsRule: Check<M> = {
  id: "always-adds-rule",
  async run(module, kit) {
    const gate = gateEnv(kit);
    await forAll(
      fc.tuple(starred, fc.constantFrom(...ALWAYS)),
      async ([{ command, other }, alwaysWord]) => {
        const perms: Perms = { mode: "default", allow: [], deny: [] };
        const first = await decide(module, gate, perms, bash(command), alwaysWord);
        expectThat(first.refusal === null, "always-refused", {
          call: `bash ${JSON.stringify(command)}`,
          answer: JSON.stringify(alwaysWord),
          got: verdict(first),
        });
        const again = await decide(module, gate, perms, bash(command), "no");
        expectThat(ranUnasked(again), "always-asked-again", {
          call: `bash ${JSON.stringify(command)}`,
          got: verdict(again),
        });
        for (const wider of [other, `${command}; touch pwned.txt`]) {
          const d = await decide(module, gate, perms, bash(wider), "no");
          expectThat(d.questions.length === 1 && d.refusal !== null, "always-too-wide", {
            command,
            other: wider,
            got: verdict(d),
          });
        }
      },
      12,
    );
    const perms: Perms = { mode: "default", allow: [], deny: [] };
    await decide(
      module,
      gate,
      perms,
      call("write", { path: "notes/a.txt", content: "x" }),
      "always",
    );
    const same = await decide(
      module,
      gate,
      perms,
      call("write", { path: "./notes/a.txt", content: "y" }),
      "no",
    );
    expectThat(ranUnasked(same), "always-asked-again", {
      call: 'write "./notes/a.txt"',
      got: verdict(same),
    });
    const next = await decide(
      module,
      gate,
      perms,
      call("write", { path: "notes/b.txt", content: "y" }),
      "no",
    );
    expectThat(next.questions.length === 1, "always-too-wide", {
      command: "notes/a.txt",
      other: "notes/b.txt",
      got: verdict(next),
    });
  },
};

export const chainPartsAllowed: Check<M> = {
  id: "chain-parts-allowed",
  async run(module, kit) {
    const gate = gateEnv(kit);
    await forAll(chainOf(fc.constantFrom(...ALLOWED_PARTS)), async (command) => {
      const perms: Perms = { mode: "default", allow: [...ALLOWED_RULES], deny: [] };
      const d = await decide(module, gate, perms, bash(command), "no");
      expectThat(ranUnasked(d), "chain-asked", {
        policy: showPolicy(perms),
        command,
        got: verdict(d),
      });
    });
  },
};

export const chainOtherPartAsked: Check<M> = {
  id: "chain-other-part-asked",
  async run(module, kit) {
    const gate = gateEnv(kit);
    await forAll(
      fc.oneof(chainWithUnallowed, composed(fc.constantFrom(...UNALLOWED_PARTS))),
      async (command) => {
        const perms: Perms = { mode: "default", allow: [...ALLOWED_RULES], deny: [] };
        const d = await decide(module, gate, perms, bash(command), "no");
        expectThat(d.questions.length === 1 && d.refusal !== null, "chain-not-asked", {
          policy: showPolicy(perms),
          command,
          got: verdict(d),
        });
      },
    );
    // A deny rule still refuses a chain whose other parts are allowed.
    await forAll(
      chainOf(fc.oneof(fc.constantFrom(...ALLOWED_PARTS), gitPush)).filter((c) => /push/.test(c)),
      async (command) => {
        const perms: Perms = {
          mode: "default",
          allow: [...ALLOWED_RULES],
          deny: [{ tool: "bash", pattern: "git push*" }],
        };
        const d = await decide(module, gate, perms, bash(command), "yes");
        expectThat(refusedUnasked(d), "chain-deny-lost", {
          policy: showPolicy(perms),
          command,
          got: verdict(d),
        });
      },
      20,
    );
  },
};

export const chainAfterMode: Check<M> = {
  id: "chain-after-mode",
  async run(module, kit) {
    const gate = gateEnv(kit);
    await forAll(
      chainOf(fc.constantFrom(...ALLOWED_PARTS)),
      async (command) => {
        const perms: Perms = { mode: "plan", allow: [...ALLOWED_RULES], deny: [] };
        const d = await decide(module, gate, perms, bash(command), "yes");
        expectThat(refusedUnasked(d), "chain-in-plan", { command, got: verdict(d) });
      },
      15,
    );
  },
};

/** s07.2's answer: step 4 of the gate also allows a command whose every simple command (as the
 *  shell parser reads it) some allow rule allows. */
const chainSolution = (reference: string) =>
  reference
    .replace(
      "\n/** The gate. Returns",
      `
/** A command whose every simple command an allow rule allows: with rules for npm test* and
 *  npm run lint*, \`npm test && npm run lint\`. The parts are the shell parser's (readCommand), so
 *  a quoted && is no chain, and a part with a redirection, a \`$(…)\` or a wrapper is one no plain
 *  rule allows (and matches never allows a part the gate cannot read). */
function chainAllowed(rules: Rule[], tool: string, command: string): boolean {
  return readCommand(command).every((part) =>
    rules.some((rule) => matches(rule, tool, part.text, "allow")),
  );
}

/** The gate. Returns`,
    )
    .replace(
      '  if (perms.allow.some((rule) => matches(rule, call.name, subject, "allow"))) return null;',
      `  if (perms.allow.some((rule) => matches(rule, call.name, subject, "allow"))) return null;
  if (runsCommand(call.name) && chainAllowed(perms.allow, call.name, subject!)) return null;`,
    );

export const exercises: Exercise<M>[] = [
  {
    id: "s07",
    kind: "rebuild",
    file: "agent.ts",
    blanks: [
      {
        name: "checkPermission",
        contract: [
          "Receives one tool call and the session's policy; returns why it is refused (a sentence, in your",
          "words), or null to run it. The first step that decides, decides, in this order: malformedCall",
          "(input must fit its tool), dangerousCommand for a command (refused in every mode), deny rules,",
          "the mode (auto allows, READ_ONLY tools pass, plan refuses the rest), allow rules, and last",
          'env.ask the person about subjectOf(call, env.workspace), offering ["yes", "no", "always"] (any',
          'case; "y" is yes, "a" always, anything else no; always pushes',
          "ruleFor(...) to perms.allow). Judge the subject, never the raw input: use",
          'matches(rule, call.name, subject, "deny" | "allow"). Deny beats allow.',
        ].join("\n"),
      },
    ],
    checks: [planRefusesChanges, denyBeatsAllow, refusedInEveryMode, askLast, alwaysAddsRule],
  },
  {
    id: "s07.2",
    kind: "extend",
    file: "agent.ts",
    solution: { gate: chainSolution },
    checks: [chainPartsAllowed, chainOtherPartAsked, chainAfterMode, denyBeatsAllow, askLast],
  },
];
