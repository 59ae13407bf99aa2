/**
 * s07 · Permissions
 *
 * The jail of s02 keeps file tools inside the workspace, but inside it the agent may still do
 * anything the model asks: overwrite a file, run any command. A permission gate sits between
 * "the model asked for a tool" and "the tool runs". Every call passes the same five steps, and
 * the first step that decides, decides:
 *   1. command validator — a few shell commands are refused always, in every mode;
 *   2. deny rules        — checked before anything can allow, so deny beats allow;
 *   3. mode              — plan refuses changes, auto allows everything, default goes on;
 *   4. allow rules       — calls the user already agreed to;
 *   5. ask the user      — yes, no, or always (which adds an allow rule for the session).
 * Each step judges the call's subject, the one field its tool declares it acts on (bash's command,
 * a file tool's path), and a call whose input does not fit its tool's schema is refused first.
 * A refused call still gets its tool_result: an error that says why, so the model can adapt.
 * The policy itself lives where the model cannot reach: a rule the model can edit is no rule.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, realpathSync } from "node:fs";
import path from "node:path";
import {
  agentLoop,
  BASE_HANDLERS,
  BASE_TOOLS,
  runTool,
  type ToolHandler,
  type ToolOutcome,
} from "../s02-tool-use/agent.ts";
import { inputProblem } from "../_shared/schema.ts";
// The simple commands a shell command runs, read with a real shell parser (commands.ts).
import { ANY, readCommand } from "./commands.ts";
import type { Agent, AgentEnv, MessageParam, Tool, ToolUseBlock } from "../_shared/types.ts";
// Text for the person's screen: control and bidi characters shown as escapes, never obeyed.
import { oneLine } from "../_shared/visible.js";

const SYSTEM = `You are a coding agent working in a scratch workspace. Use your tools to inspect and
change files. A permission gate checks every tool call; a refused call comes back as an error
that says why. Do not retry a refused call unchanged: adapt, or explain what you need. In plan
mode you can only look around: end your turn with a short numbered plan. When the task is done,
say so briefly.`;

export const TOOLS: Tool[] = BASE_TOOLS;

// #region rules
export type Mode = "default" | "plan" | "auto";
export const MODES: readonly Mode[] = ["default", "plan", "auto"];

/** `{ tool: "bash", pattern: "npm test*" }`: the tool's name ("*" for any) and, optionally, a
 *  pattern for what it acts on (its subject, see `SUBJECT_FIELDS`). In a pattern, `*` stands for
 *  any text — except in an allow rule for a command (see `matches`) — and `\*` for a star itself.
 *  No pattern: every call of that tool. */
export interface Rule {
  tool: string;
  pattern?: string;
}

export interface Permissions {
  mode: Mode;
  allow: Rule[];
  deny: Rule[];
}

/** The rules file lives in the harness's state folder beside the workspace (`env.stateDir`), not
 *  in the workspace. The model's write tool and its commands can change anything in the
 *  workspace: a policy kept there is one the model can rewrite to "allow everything". You read
 *  and edit it at `.workspace/s07.harness/permissions.json`; the model cannot. */
export const RULES_FILE = "permissions.json";
export const rulesFile = (env: AgentEnv) => path.join(env.stateDir, RULES_FILE);
/** The policy a new workspace starts with (plan mode, write and edit allowed, .env denied). */
export const STARTING_RULES = path.join(import.meta.dirname, RULES_FILE);

/** What a call acts on, for each tool that acts on one thing: the field of its input that a
 *  rule's pattern is matched against and the question shows. It is the tool's own field, never
 *  whichever a call happens to carry: a bash call that also sends `path` is judged on its command.
 *  The shell commands are bash's and those of s11's background_run and s12's worktree_run (the
 *  full harness has rules for them). Any other tool has no subject: it is judged by its name. */
export const SUBJECT_FIELDS: Record<string, string> = {
  bash: "command",
  background_run: "command",
  worktree_run: "command",
  read: "path",
  write: "path",
  edit: "path",
  glob: "pattern",
};
const subjectField = (tool: string) =>
  Object.hasOwn(SUBJECT_FIELDS, tool) ? SUBJECT_FIELDS[tool] : undefined;
const runsCommand = (tool: string) => subjectField(tool) === "command";

/** The text of a call's subject, or undefined for a tool without one. A path is the file the
 *  jail will open, relative to the workspace: `./.env`, `sub/../.env` and a link `cfg` → `.env`
 *  are all `.env` to a rule. Call it on a well-formed call (`malformedCall`). */
export function subjectOf(call: ToolUseBlock, root: string): string | undefined {
  const field = subjectField(call.name);
  if (field === undefined) return undefined;
  const value = String((call.input as Record<string, unknown>)[field]);
  return field === "path" ? pathInside(root, value) : value;
}

/** `requested` relative to the workspace, with the links in the part that exists followed (the
 *  jail opens such a link when it stays inside). */
function pathInside(root: string, requested: string): string {
  let head = path.resolve(root, requested);
  const rest: string[] = [];
  for (;;) {
    try {
      head = realpathSync(head);
      break;
    } catch {
      if (path.dirname(head) === head) break;
      rest.unshift(path.basename(head));
      head = path.dirname(head);
    }
  }
  const realRoot = existsSync(root) ? realpathSync(root) : root;
  return path.relative(realRoot, path.join(head, ...rest)) || ".";
}

/** Why a call cannot be judged at all (one sentence), or undefined: its input does not fit the
 *  schema of its tool in `tools`, or, schema or not, its subject is not text. */
export function malformedCall(call: ToolUseBlock, tools: Tool[]): string | undefined {
  const tool = tools.find((t) => t.name === call.name);
  const problem = tool && inputProblem(tool, call.input);
  if (problem) return problem;
  const field = subjectField(call.name);
  if (
    field !== undefined &&
    typeof (call.input as Record<string, unknown> | null)?.[field] !== "string"
  )
    return `${call.name} needs ${JSON.stringify(field)} to be text`;
  return undefined;
}

const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
/** A pattern that matches exactly `text`: its stars and backslashes escaped. */
export const literal = (text: string) => text.replace(/[\\*]/g, "\\$&");

/** A pattern's pieces: `*`, an escaped `\*` or `\\`, and the plain text between. */
const patternPieces = (pattern: string): string[] => pattern.match(/\\[\\*]|\*|[^\\*]+|\\/g) ?? [];

/** A rule's pattern as a regex: each `*` becomes `star`; `\*` and `\\` stand for themselves. */
function patternRegex(pattern: string, star: string): RegExp {
  const source = patternPieces(pattern)
    .map((part) => (part === "*" ? star : escapeRegex(part.replace(/^\\([\\*])$/, "$1"))))
    .join("");
  return new RegExp(`^${source}$`, "s");
}

/** What turns one shell command into several, or runs code inside it: `;` `&` `|` (so `&&` `||`),
 *  redirections `<` `>`, every `$` expansion (so `$(…)`), backticks and line breaks. */
const OPERATORS = ";&|<>`$\\n\\r"; // as regex source, for the character classes below
export const SHELL_OPERATORS = new RegExp(`[${OPERATORS}]`);

/** Could `pattern` (its `*` any text) match some text of `shape` — or of its end from one of
 *  `starts` — where ANY stands for text the gate cannot know? Walks both at once; each `*` and
 *  each ANY may take any stretch of the other. */
function couldMatch(pattern: string, shape: string, starts: number[] = [0]): boolean {
  const a = patternPieces(pattern).flatMap((p) =>
    p === "*" ? [ANY] : [...p.replace(/^\\([\\*])$/, "$1")],
  );
  const b = [...shape];
  // meets[j], row by row from the end: can a[i…] and b[j…] be the same text?
  let next: boolean[] = [];
  for (let i = a.length; i >= 0; i--) {
    const row: boolean[] = [];
    for (let j = b.length; j >= 0; j--) {
      const anyA = i < a.length && a[i] === ANY;
      const anyB = j < b.length && b[j] === ANY;
      row[j] =
        (i === a.length && j === b.length) ||
        (anyA && (next[j] || (j < b.length && row[j + 1]))) ||
        (anyB && (row[j + 1] || (i < a.length && next[j]))) ||
        (i < a.length && j < b.length && !anyA && !anyB && a[i] === b[j] && next[j + 1]);
    }
    next = row;
  }
  return starts.some((j) => next[j]);
}

/** Does `rule` name this call of `tool`, whose subject is `subject`? In an allow rule for a
 *  command, `*` stands for plain text only, never one of SHELL_OPERATORS: so `ls -la*` allows
 *  `ls -la src` but not `ls -la; cat .env`. A command an allow rule lets through has exactly the
 *  operators written in the rule. In a deny rule `*` stands for any text: a deny that catches
 *  more is safe, an allow that catches more is a hole. For the same reason a pattern never allows
 *  a tool without a subject, and denies it when the rule names that tool.
 *  A command is read as the shell reads it (readCommand): a deny rule names it when it names *any*
 *  of its simple commands (`echo hi; git push` is denied by `git push*`), or could name one the
 *  gate cannot know before it runs (`$CMD push`); an allow rule never allows a command with a
 *  part whose command the gate cannot know, not even a rule without a pattern — only one that
 *  names that exact command (what "always" stores). */
export function matches(
  rule: Rule,
  tool: string,
  subject: string | undefined,
  kind: "allow" | "deny",
): boolean {
  if (rule.tool !== "*" && rule.tool !== tool) return false;
  if (runsCommand(tool) && subject !== undefined) {
    const parts = readCommand(subject);
    if (kind === "deny" && rule.pattern !== undefined)
      return (
        patternRegex(rule.pattern, ".*").test(subject) ||
        parts.some(
          (part) =>
            [part.shape, ...(part.tails ?? [])].some((shape) => couldMatch(rule.pattern!, shape)) ||
            (part.from !== undefined &&
              couldMatch(rule.pattern!, part.from.shape, part.from.starts)),
        )
      );
    // A rule without a star names exactly one command: the person allowed that very text.
    const exact = rule.pattern !== undefined && !patternPieces(rule.pattern).includes("*");
    if (kind === "allow" && !exact && !parts.every((part) => part.known)) return false;
  }
  if (rule.pattern === undefined) return true;
  if (subject === undefined) return kind === "deny" && rule.tool === tool;
  const star = kind === "allow" && runsCommand(tool) ? `[^${OPERATORS}]*` : ".*";
  const pattern = patternRegex(rule.pattern, star);
  // A command another one runs (`timeout 5 touch x`, `find . -exec rm {} +`) is a part of its own:
  // `timeout *` allows the wrapper, and must allow what it wraps too. (A rule without a star is
  // the exact text the person approved: it allows that text.)
  if (kind === "allow" && runsCommand(tool) && patternPieces(rule.pattern).includes("*"))
    return pattern.test(subject) && readCommand(subject).every((part) => pattern.test(part.text));
  return pattern.test(subject);
}

export const describeRule = (rule: Rule) =>
  rule.pattern === undefined ? rule.tool : `${rule.tool} ${rule.pattern}`;

/** Checks the shape of the rules file; throws with a message a learner can act on. */
export function parsePermissions(text: string): Partial<Permissions> {
  const data: unknown = JSON.parse(text);
  if (typeof data !== "object" || data === null || Array.isArray(data))
    throw new Error("expected a JSON object");
  const { mode, allow, deny } = data as Record<string, unknown>;
  if (mode !== undefined && !MODES.includes(mode as Mode))
    throw new Error(`"mode" must be one of ${MODES.join(", ")}`);
  const rules = (key: string, value: unknown): Rule[] | undefined => {
    if (value === undefined) return undefined;
    const ok =
      Array.isArray(value) &&
      value.every(
        (r) =>
          typeof r === "object" &&
          r !== null &&
          typeof r.tool === "string" &&
          r.tool !== "" &&
          (r.pattern === undefined || typeof r.pattern === "string"),
      );
    if (!ok) throw new Error(`"${key}" must be a list of { "tool": "name", "pattern"?: "text*" }`);
    return (value as Rule[]).map(({ tool, pattern }) =>
      pattern === undefined ? { tool } : { tool, pattern },
    );
  };
  return {
    mode: mode as Mode | undefined,
    allow: rules("allow", allow),
    deny: rules("deny", deny),
  };
}

/** Reads the rules file; a workspace without one gets a copy of the starting policy, for the
 *  learner to edit. Broken: a note that says why, and no rules. */
export function loadPermissions(file: string, note: (text: string) => void): Partial<Permissions> {
  if (!existsSync(file)) {
    mkdirSync(path.dirname(file), { recursive: true });
    copyFileSync(STARTING_RULES, file);
  }
  try {
    return parsePermissions(readFileSync(file, "utf8"));
  } catch (err) {
    note(
      `${file} is not valid (${(err as Error).message}); using the defaults: mode default, no rules`,
    );
    return {};
  }
}
// #endregion rules

// #region validator
/** Shell commands that no mode, rule or answer can allow. A pattern list is a speed bump, not a
 *  sandbox — it catches the obvious accidents, and the other steps of the gate do the rest. */
const DANGEROUS: { pattern: RegExp; why: string }[] = [
  { pattern: /\bsudo\b|\bsu\s+-?\s*root\b/, why: "runs as root" },
  { pattern: /\brm\b[^;&|]*\s(\/|~|\$HOME|\.\.)/, why: "deletes outside the workspace" },
  {
    pattern: /\b(curl|wget)\b[^|]*\|\s*(sudo\s+)?(ba|z)?sh\b/,
    why: "runs a script straight from the internet",
  },
  {
    pattern: /\bmkfs\b|\bdd\b[^|]*\bof=\/dev\/|>\s*\/dev\/(sd|nvme|disk)/,
    why: "overwrites a disk",
  },
  { pattern: /:\(\)\s*\{.*\};\s*:/, why: "a fork bomb" },
  { pattern: /\bchmod\s+(-R\s+)?[0-7]*777\s+[/~]/, why: "opens up files outside the workspace" },
  { pattern: /\bgit\s+push\b.*\s(--force|-f)\b/, why: "rewrites shared history" },
  { pattern: /\b(shutdown|reboot|halt|poweroff)\b/, why: "stops the machine" },
];

/** Why a command is dangerous, or undefined if it is not: the whole command, and each simple
 *  command in it (`eval "su""do id"` runs `sudo id`), tried against the list. */
export function dangerousCommand(command: string): string | undefined {
  const parts = readCommand(command);
  const texts = [command, ...parts.map((part) => part.text)];
  return (
    DANGEROUS.find(({ pattern }) => texts.some((text) => pattern.test(text)))?.why ??
    parts.find((part) => part.why !== undefined)?.why
  );
}
// #endregion validator

// #region gate
/** Looking never changes anything, so read and glob need no permission (deny rules still apply). */
const READ_ONLY = new Set(["read", "glob"]);

/** "always" remembers a rule made from the subject the question showed, nothing else: that
 *  exact command, path or glob pattern; for a tool without a subject, the tool itself. Nothing
 *  wider: "always" for `node -e "console.log(1)"` must not allow every `node -e` program. (A rule
 *  for a family of commands, `npm test*`, is one you write in the rules file yourself.) A `*` the
 *  question showed stays a `*` in the rule. */
export function ruleFor(tool: string, subject: string | undefined): Rule {
  return subject === undefined ? { tool } : { tool, pattern: literal(subject) };
}

/** The gate. Returns why the call is refused, or null to let it run. `tools` are the schemas the
 *  model was offered, which a call's input must fit. */
export async function checkPermission(
  env: AgentEnv,
  perms: Permissions,
  call: ToolUseBlock,
  tools: Tool[] = TOOLS,
): Promise<string | null> {
  // 0. A call that does not fit its tool is refused before it is judged: a field its tool does not
  //    declare must not be what a rule reads or the question shows, while another field runs.
  const malformed = malformedCall(call, tools);
  if (malformed) return malformed;
  const subject = subjectOf(call, env.workspace);
  // 1. The command validator: refused always, even in auto mode.
  if (runsCommand(call.name)) {
    const why = dangerousCommand(subject!);
    if (why) return `dangerous command (${why}); it is refused in every mode`;
  }
  // 2. Deny rules come before any step that could allow: deny beats allow.
  const denied = perms.deny.find((rule) => matches(rule, call.name, subject, "deny"));
  if (denied) return `denied by the rule "${describeRule(denied)}"`;
  // 3. The mode.
  if (perms.mode === "auto" || READ_ONLY.has(call.name)) return null;
  if (perms.mode === "plan")
    return `plan mode: ${call.name} would change things, so it does not run until the plan is approved`;
  // 4. Allow rules.
  if (perms.allow.some((rule) => matches(rule, call.name, subject, "allow"))) return null;
  // 5. Ask the person at the keyboard, showing what the call acts on: its subject, or, for a tool
  //    without one, its whole input (a person cannot decide on `spawn ""`, nor on half of it).
  const shown = oneLine(JSON.stringify(subject ?? call.input));
  const answer = (await env.ask(`Allow ${call.name} ${shown}?`, ["yes", "no", "always"]))
    .trim()
    .toLowerCase();
  if (answer === "always" || answer === "a") {
    const rule = ruleFor(call.name, subject); // from what the question showed
    perms.allow.push(rule);
    env.io.note(`allow rule added for this session: ${oneLine(describeRule(rule))}`);
    return null;
  }
  return answer === "yes" || answer === "y" ? null : "the user said no";
}
// #endregion gate

// #region gated
/** How the loop runs one call in this chapter: through the gate first. A refused call never
 *  reaches its handler, but it still gets its one tool_result. The loop itself is s02's. */
export async function runGated(
  env: AgentEnv,
  perms: Permissions,
  call: ToolUseBlock,
  tools: Tool[] = TOOLS,
  handlers: Record<string, ToolHandler> = BASE_HANDLERS,
): Promise<ToolOutcome> {
  const refusal = await checkPermission(env, perms, call, tools);
  env.io.event("permission", { tool: call.name, allowed: refusal === null, reason: refusal });
  return refusal === null
    ? runTool(handlers, call, { root: env.workspace, sandbox: env.sandbox }, tools)
    : { output: `Permission denied: ${refusal}. The tool did not run.`, isError: true };
}
// #endregion gated

// #region session
export interface PermissionOptions {
  /** Overrides the mode of the rules file (tests, or a harness with a mode switch). */
  mode?: Mode;
  /** Rules added to the ones in the rules file. */
  allow?: Rule[];
  deny?: Rule[];
}

export function createAgent(env: AgentEnv, options: PermissionOptions = {}): Agent {
  const fromFile = loadPermissions(rulesFile(env), (text) => env.io.note(text));
  const perms: Permissions = {
    mode: options.mode ?? fromFile.mode ?? "default",
    allow: [...(fromFile.allow ?? []), ...(options.allow ?? [])],
    deny: [...(fromFile.deny ?? []), ...(options.deny ?? [])],
  };
  const messages: MessageParam[] = [];
  return {
    messages,
    async send(prompt) {
      messages.push({ role: "user", content: prompt });
      await agentLoop(env, messages, {
        system: () => `${SYSTEM}\n\nPermission mode: ${perms.mode}.`,
        tools: TOOLS,
        runCall: (call) => runGated(env, perms, call),
      });
      // A turn in plan mode ends with a plan; the user decides whether the agent may carry it out.
      if (
        perms.mode === "plan" &&
        /^y/i.test(await env.ask("Approve the plan and leave plan mode?", ["yes", "no"]))
      ) {
        perms.mode = "default";
        env.io.note("mode: plan → default (plan approved)");
      }
    },
    commands: {
      "/mode": {
        help: `show the permission mode and rules; "/mode plan" (or ${MODES.join(", ")}) switches`,
        run: (wanted) => {
          if (wanted) {
            if (!MODES.includes(wanted as Mode))
              return `Unknown mode "${wanted}". Modes: ${MODES.join(", ")}.`;
            env.io.note(`mode: ${perms.mode} → ${wanted}`);
            perms.mode = wanted as Mode;
          }
          return [
            `mode:  ${perms.mode}   (plan ends when you approve a plan)`,
            `deny:  ${perms.deny.map(describeRule).join(", ") || "(none)"}`,
            `allow: ${perms.allow.map(describeRule).join(", ") || "(none)"}`,
            `rules file (yours to edit, out of the model's reach): ${rulesFile(env)}`,
          ].join("\n");
        },
      },
    },
  };
}
// #endregion session
