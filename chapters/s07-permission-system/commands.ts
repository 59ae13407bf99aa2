/**
 * s07 · What a shell command runs
 *
 * A rule names a command: `git push*`. But bash reads `echo hi; git push`, `npm test && git push`,
 * `echo $(git push)` and `bash -c 'git push'` as several commands, and a rule matched against the
 * whole text sees none of them as `git push`. So the gate reads a command the way the shell will:
 * with a real shell parser (mvdan/sh, the parser of shfmt; docs/shell-parser.md says why this one),
 * and judges each of the *simple commands* it finds — wherever they hide: after `;` `&&` `||` `|`
 * `&` or a line break, in `( )` `{ }`, loops and functions, in `$(…)`, backticks and `<(…)`, in
 * the script of `bash -c`, `eval`, `trap` or `watch`, behind `env X=1`, `nohup`, `exec`, `command`,
 * `xargs`, `find -exec`.
 *
 * What the gate cannot know before the command runs — `$VAR`, `$(…)`, a glob, the input of `xargs`
 * or of a shell reading its script from a pipe — it does not guess: that part of a command is
 * "any text" to a deny rule (which then refuses if it *could* match) and unknown to an allow rule
 * (which then never allows it). A command the parser cannot read at all is one unknown part.
 */
import { createRequire } from "node:module";
import path from "node:path";
import type sh from "mvdan-sh";

// The parser is a large compiled bundle (about a second to load): it is loaded the first time a
// command is read, not when a chapter that may never run one starts.
let loaded: typeof sh.syntax | undefined;
const syntax = () => (loaded ??= (createRequire(import.meta.url)("mvdan-sh") as typeof sh).syntax);

/** One simple command, as the rules read it. */
export interface Part {
  /** Its words with the shell's quoting taken off (`"git" 'push'` is `git push`), then its
   *  redirections (`> out`), one space apart; what the gate cannot know is shown as written. */
  text: string;
  /** The same with each thing the gate cannot know as ANY: what a deny rule is tried against. */
  shape: string;
  /** False when even its command is unknown before it runs (`$CMD x`, `bash` reading a pipe, a
   *  parse error): no allow rule allows such a part. */
  known: boolean;
  /** Its words' shape and where in it (in code points) each word after the first that could
   *  name a program starts: a deny rule is tried from there too, for a program that runs its
   *  words as a command. */
  from?: { shape: string; starts: number[] };
  /** What those runs of words would run in turn (`env bash -c '…'`): a deny rule is tried
   *  against these shapes too. */
  tails?: string[];
  /** Set when no mode, rule or answer may allow it: why (the validator refuses the command). */
  why?: string;
}

/** In a part's shape: text the gate cannot know before the command runs (any text at all). */
export const ANY = "\u0000";

/** The simple commands `command` runs, as far as the parser can read them. A command the parser
 *  cannot read is one unknown part. */
export function readCommand(command: string): Part[] {
  const cached = cache.get(command);
  if (cached) return cached;
  const parts = partsOf(command, 0);
  if (cache.size > 500) cache.clear();
  cache.set(command, parts);
  return parts;
}
const cache = new Map<string, Part[]>();

/** How many words of one simple command a deny rule is tried from (see `tails` in callParts). */
const MAX_TAILS = 2000;

/** How many words of one simple command that read as command lines are read as such (see
 *  callParts); a call with more is one a deny rule may name anywhere. Reading one costs a few
 *  milliseconds. */
const MAX_SCRIPTS = 64;

/** `bash -c 'bash -c "…"'` is read again, but not forever. */
const MAX_DEPTH = 4;

const unknownPart = (text: string): Part => ({ text, shape: ANY, known: false });

/** Reads `command`; `fed` when what runs it also gives it input of its own (see `feeds`). */
function partsOf(command: string, depth: number, fed = false): Part[] {
  if (depth > MAX_DEPTH) return [unknownPart(command)];
  let file: sh.File;
  try {
    file = syntax().NewParser().Parse(command, "");
  } catch {
    return [unknownPart(command)];
  }
  const reader = new Reader(Buffer.from(command)); // the parser's positions count bytes
  const parts: Part[] = [];
  const isFed = feeds(file, fed);
  // Every node of the tree, however deep: a command inside `$(…)` in a redirection inside a loop
  // is found like one at the top. A simple command is read from its Stmt, which holds its
  // redirections.
  syntax().Walk(file, (node) => {
    if (!node) return true;
    const type = syntax().NodeType(node);
    if (type === "Stmt") {
      const stmt = node as sh.Stmt;
      if (stmt.Cmd && syntax().NodeType(stmt.Cmd) === "CallExpr")
        parts.push(...callParts(stmt.Cmd as sh.CallExpr, stmt.Redirs, reader, depth, isFed(stmt)));
      else parts.push(...redirectionOfGroup(stmt, reader));
    } else if (type === "CmdSubst" && (node as sh.CmdSubst).Backquotes) {
      // In `…` bash first turns \\ \` \$ into \ ` $, then reads what is left as a command; the
      // parser does not always do the same, so the gate reads it that way too.
      const subst = node as sh.CmdSubst;
      const inside = reader.between(subst.Left.Offset() + 1, subst.Right.Offset());
      parts.push(...partsOf(inside.replace(/\\([\\`$])/g, "$1"), depth + 1, isFed(subst)));
    } else if (type === "DeclClause") parts.push(...declaration(node as sh.DeclClause, reader));
    else if (["ArithmCmd", "LetClause", "ArithmExp", "TestClause"].includes(type))
      parts.push(...arithmetic(reader.slice(node), type, testsArithmetic(node)));
    else if (type === "CoprocClause" || type === "TestDecl") parts.push(unknownPart(command));
    else parts.push(...evaluatedLater(node, type, reader));
    return true;
  });
  return parts;
}

// #region operators
/** The code the parser gives an operator, read from the parser itself (its operator enums exist
 *  only at compile time): the first `type` node of `example`'s tree, its `Op`, or its
 *  expansion's for `${…}`. The gate judges operators by these codes, never by the text as
 *  written: bash removes a line continuation (backslash, newline) before it reads an operator,
 *  so `-e\⏎q` is `-eq` to bash and to the parser, and not to a pattern on the text. */
function opOf(example: string, type: string): number {
  let op: number | undefined;
  syntax().Walk(syntax().NewParser().Parse(example, ""), (node) => {
    if (node && op === undefined && syntax().NodeType(node) === type)
      op =
        type === "ParamExp"
          ? (node as sh.ParamExp).Exp!.Op
          : (node as unknown as { Op: number }).Op;
    return op === undefined;
  });
  if (op === undefined) throw new Error(`no ${type} in ${example}`);
  return op;
}
/** The operator codes the gate judges by, read once, when the parser is first loaded:
 *  `[[ a -eq b ]]` and the others that read both sides as arithmetic; `[[ -v a ]]` and `-R`
 *  (a name, whose subscript is evaluated); `${x@Q}` and the other `@` transformations, of which
 *  only `@P` expands the value again (as a prompt, `$(…)` and all); `<<`, `<<-` and `<<<` (text
 *  the command gives itself as input); `|` and `|&` (the right side reads what the left writes). */
let codes:
  | {
      arithmeticTests: Set<number>;
      nameTests: Set<number>;
      transform: number;
      ownInput: Set<number>;
      pipes: Set<number>;
    }
  | undefined;
const ops = () =>
  (codes ??= {
    arithmeticTests: new Set(
      ["-eq", "-ne", "-lt", "-le", "-gt", "-ge"].map((op) => opOf(`[[ a ${op} b ]]`, "BinaryTest")),
    ),
    nameTests: new Set(["-v", "-R"].map((op) => opOf(`[[ ${op} a ]]`, "UnaryTest"))),
    transform: opOf("${x@Q}", "ParamExp"),
    ownInput: new Set(
      ["cat <<E\nE\n", "cat <<-E\nE\n", "cat <<< x"].map((c) => opOf(c, "Redirect")),
    ),
    pipes: new Set(["a | b", "a |& b"].map((c) => opOf(c, "BinaryCmd"))),
  });
/** The `@` transformations that only quote, case or describe a value. */
const PLAIN_TRANSFORMS = /^[QEAaKkUuL]$/;

/** Does any `[[ … ]]` test in `node` read its sides as arithmetic? */
function testsArithmetic(node: sh.Node): boolean {
  let found = false;
  syntax().Walk(node, (n) => {
    if (
      n &&
      syntax().NodeType(n) === "BinaryTest" &&
      ops().arithmeticTests.has((n as sh.BinaryTest).Op)
    )
      found = true;
    return !found;
  });
  return found;
}

/** Which commands of `file` may be given input the command line itself holds: all of them when
 *  the line has a here-document, a here-string or a process substitution anywhere (`exec` or a
 *  group can pass one to any command), or when what runs it was itself fed (`outer`); else
 *  those on the right of a pipe. A shell or `source` that reads a script by name may be reading
 *  that input (`cd /dev; source stdin <<< '…'`), which the gate would have to read as a command. */
function feeds(file: sh.File, outer: boolean): (node: sh.Node) => boolean {
  let everywhere = outer;
  const piped: [number, number][] = [];
  syntax().Walk(file, (node) => {
    if (!node) return true;
    const type = syntax().NodeType(node);
    if (type === "Redirect" && ops().ownInput.has((node as sh.Redirect).Op)) everywhere = true;
    if (type === "ProcSubst") everywhere = true;
    if (type === "BinaryCmd" && ops().pipes.has((node as sh.BinaryCmd).Op)) {
      const y = (node as sh.BinaryCmd).Y;
      if (y) piped.push([y.Pos().Offset(), y.End().Offset()]);
    }
    return true;
  });
  return (node) => {
    const at = node.Pos().Offset();
    return everywhere || piped.some(([start, end]) => at >= start && at < end);
  };
}

/** A script a shell or `source` reads by a name the gate can judge it by: a path relative to
 *  the folder the command runs in, with no `..` step, and not fed (see `feeds`). Anything else
 *  may be the command's own input however it is spelled (`//dev/stdin`, `/tmp/../dev/stdin`,
 *  `/proc/self/fd/0`, `-`, `--rcfile /dev/stdin`) or a file outside the workspace: unknown. */
function namedScript(file: Word | undefined, fed: boolean): boolean {
  if (!file || fed || !isKnown(file)) return false;
  const name = file.text;
  return name !== "" && !/^[/~-]/.test(name) && !name.split("/").includes("..");
}

/** A program named by a path into /proc or /dev is whatever that process or descriptor is
 *  (`/proc/self/exe` is the shell running the line, `/dev/fd/3` the program opened on 3). */
const programThroughKernel = (program: string) =>
  /^\/(proc|dev)(\/|$)/.test(path.posix.normalize(program));
// #endregion operators

/** A word as the shell will pass it: its text, and its shape (ANY where it cannot be known). */
interface Word {
  text: string;
  shape: string;
}
const word = (text: string, shape = text): Word => ({ text, shape });
const joined = (words: Word[]): Word => ({
  text: words.map((w) => w.text).join(" "),
  shape: words.map((w) => w.shape).join(" "),
});
const isKnown = (w: Word) => !w.shape.includes(ANY);

/** Reads words out of one parsed command. */
class Reader {
  constructor(private readonly source: Buffer) {}

  slice(node: sh.Node): string {
    return this.between(node.Pos().Offset(), node.End().Offset());
  }

  between(start: number, end: number): string {
    return this.source.subarray(start, end).toString();
  }

  word(node: sh.Word | null): Word {
    if (!node) return word("");
    const pieces = node.Parts.map((part) => this.piece(part, false));
    const text = pieces.map((p) => p.text).join("");
    // A brace expansion may span quoted parts: `{"touch",} x` runs `touch x`, though no one
    // unquoted piece holds `{…,…}`. Read on the word's skeleton, each quoted part a placeholder.
    const skeleton = node.Parts.map((part) =>
      syntax().NodeType(part) === "Lit" ? (part as sh.Lit).Value.replace(/\\./gs, "") : "q",
    ).join("");
    if (/\{.*(,|\.\.).*\}/.test(skeleton)) return word(text, ANY);
    return { text, shape: pieces.map((p) => p.shape).join("") };
  }

  private piece(part: sh.Node, quoted: boolean): Word {
    switch (syntax().NodeType(part)) {
      case "Lit": {
        const value = (part as sh.Lit).Value;
        if (quoted) return word(value.replace(/\\([$`"\\])|\\\n/g, "$1"));
        // Unquoted: a glob or a brace expansion becomes file names or several words.
        const text = value.replace(/\\\n/g, "").replace(/\\(.)/gs, "$1");
        const bare = value.replace(/\\./gs, ""); // what no backslash escapes
        return /[*?[]|\{.*(,|\.\.).*\}/.test(bare) ? word(value, ANY) : word(text);
      }
      case "SglQuoted": {
        const q = part as sh.SglQuoted;
        // $'\x67it' is `git`: ANSI-C escapes are not decoded here, so such a word is unknown.
        return q.Dollar && q.Value.includes("\\") ? word(this.slice(part), ANY) : word(q.Value);
      }
      case "DblQuoted": {
        const pieces = (part as sh.DblQuoted).Parts.map((p) => this.piece(p, true));
        return {
          text: pieces.map((p) => p.text).join(""),
          shape: pieces.map((p) => p.shape).join(""),
        };
      }
      default: // $VAR, ${…}, $(…), `…`, $((…)), <(…), @(…): known only when it runs
        return word(this.slice(part), ANY);
    }
  }

  redirection(r: sh.Redirect): Word {
    const target = this.word(r.Word);
    const op = this.source.subarray(r.Pos().Offset(), r.Word!.Pos().Offset()).toString().trim();
    const gap = op.endsWith("&") ? "" : " "; // `2>&1`, `> out`
    return { text: op + gap + target.text, shape: op + gap + target.shape };
  }

  assignment(a: sh.Assign): Word {
    if (!a.Name) return this.opaque(a);
    if (a.Array || a.Index) return this.opaque(a);
    const value = this.word(a.Value);
    const name = `${a.Name.Value}${a.Append ? "+=" : "="}`;
    return a.Naked ? word(a.Name.Value) : { text: name + value.text, shape: name + value.shape };
  }

  /** As written; whatever follows a `$` or a backtick is unknown. */
  opaque(node: sh.Node): Word {
    const text = this.slice(node);
    return word(text, text.replace(/[$`][\s\S]*/, ANY));
  }
}

/** `(( … ))`, `let`, `$(( … ))` and `[[ x -eq y ]]` evaluate arithmetic, and arithmetic on a
 *  variable runs any command the variable holds (`a[$(…)]`): with a name in it, the gate cannot
 *  know what it runs. `[[ -f x ]]` only tests. */
function arithmetic(text: string, type: string, arithmeticTest: boolean): Part[] {
  const names = /[A-Za-z_$`]/.test(text.replace(/^(\(\(|\$\(\(|let\b)/, ""));
  if (type === "TestClause" && !arithmeticTest) return [{ text, shape: text, known: true }];
  if (names) return [{ text, shape: ANY, known: false }];
  return type === "ArithmExp" ? [] : [{ text, shape: text, known: true }];
}

/** `{ a; b; } > out`: a redirection of a group is not any one command's, so it is a part of its
 *  own, which only an allow rule that names it (or allows everything) lets through. */
function redirectionOfGroup(stmt: sh.Stmt, reader: Reader): Part[] {
  return stmt.Redirs.filter((r) => r !== null).map((r) => {
    const w = reader.redirection(r);
    return { ...w, known: true };
  });
}

/** A word with a blank or an operator in it may be a command line of its own. */
const readsAsScript = (w: Word) => /[\s;&|<>()`$]/.test(w.text);

/** The parts of one simple command: itself, and — when it runs another command — that one too. */
function callParts(
  call: sh.CallExpr,
  redirections: (sh.Redirect | null)[],
  reader: Reader,
  depth: number,
  fed: boolean,
): Part[] {
  const assigns = call.Assigns.filter((a) => a !== null).map((a) => reader.assignment(a));
  const words = call.Args.filter((w) => w !== null).map((w) => reader.word(w));
  const redirs = redirections.filter((r) => r !== null).map((r) => reader.redirection(r));
  const whole = joined([...assigns, ...words, ...redirs]);
  const known = words.length === 0 || isKnown(words[0]);
  // Programs the reader does not know run a command given as their words too (`ionice -c 3 git
  // push`, `flock lock env bash -c 'git push'`): a deny rule is tried against every run of words
  // that starts with one that could name a program, and what that run would run in turn. (It
  // refuses `echo git push` as well: a deny rule that catches more is safe. A run the reader
  // cannot read, `echo bash`, is left out: every deny rule would refuse it.)
  // A call too long to try every run is one a deny rule may name anywhere.
  const scripts = words.filter((w, i) => i > 0 && isKnown(w) && readsAsScript(w));
  const tails: string[] = words.length > MAX_TAILS || scripts.length > MAX_SCRIPTS ? [ANY] : [];
  const starts: number[] = [];
  let at = 0;
  words.forEach((w, i) => {
    if (words.length <= MAX_TAILS && i > 0 && isKnown(w) && /^[\w./+][\w./+-]*$/.test(w.text)) {
      starts.push(at);
      const within = inner(words.slice(i), depth, fed).flatMap((p) => [
        p.shape,
        ...(p.tails ?? []),
      ]);
      tails.push(...within.filter((shape) => shape !== ANY));
    } else if (
      i > 0 &&
      isKnown(w) &&
      readsAsScript(w) &&
      scripts.length <= MAX_SCRIPTS &&
      depth < MAX_DEPTH
    ) {
      // A word that reads as a command line may be one: the script of a shell by any name
      // (`/proc/self/exe -c 'touch x'`, a copy of bash), of `su -c`, `ssh host '…'`. A deny
      // rule is tried against what it would run.
      const within = partsOf(w.text, depth + 1, fed).flatMap((p) => [p.shape, ...(p.tails ?? [])]);
      tails.push(...within.filter((shape) => shape !== ANY));
    }
    at += [...w.shape].length + 1;
  });
  const from = { shape: joined(words).shape, starts };
  const parts: Part[] = [{ ...whole, known, tails, from }];
  // `X=1 cmd`, `cmd > out`: the command itself is one more part, so a deny rule for `cmd` sees it.
  if (words.length > 0 && (assigns.length > 0 || redirs.length > 0))
    parts.push({ ...joined(words), known });
  if (words.length > 0) parts.push(...inner(words, depth, fed));
  return parts;
}

// #region options
/** The options a program takes, as its own manual lists them: single letters without a value
 *  (`flags`), letters that take one (`valued`: `-n 5` or `-n5`), letters whose value can only be
 *  attached (`attached`: xargs' `-i{}`), long options without a value, with one (`--chdir DIR`
 *  or `--chdir=DIR`), or with an optional `=value`. A word the reader does not find here is not
 *  guessed at: reading the rest would need to know whether it takes a value, and a wrong guess
 *  makes the value look like the command (`env --chdir . touch x` read as running `.`), so the
 *  command it runs is unknown. Abbreviated long options (`--ch`) are unknown for the same reason. */
interface Options {
  flags?: string;
  valued?: string;
  attached?: string;
  long?: string[];
  longValued?: string[];
  longOptional?: string[];
  /** `nice -5 cmd`: a number as an option. */
  numeric?: boolean;
  /** `bash +x`, `set +o`: options that start with `+` too. */
  plus?: boolean;
}

interface Read {
  /** The words after the options. */
  operands: Word[];
  /** Each option seen, by its letter or long name, with its value (`""` for none). */
  seen: Map<string, Word>;
}

/** Reads a program's options from `rest`; undefined if one is unknown or not known before the
 *  command runs (`$OPT`). */
function readOptions(rest: Word[], options: Options): Read | undefined {
  const seen = new Map<string, Word>();
  let i = 0;
  for (; i < rest.length; i++) {
    const w = rest[i].text;
    if (w === "--") return isKnown(rest[i]) ? { operands: rest.slice(i + 1), seen } : undefined;
    const starts = /^-./.test(w) || (options.plus === true && /^\+./.test(w));
    if (!starts && isKnown(rest[i])) break;
    if (!isKnown(rest[i])) return undefined; // `$OPT`, `"$@"`: an option or the command?
    if (w.startsWith("--")) {
      const [name, ...value] = w.slice(2).split("=");
      const attachedValue = value.length > 0 ? word(value.join("=")) : undefined;
      if (options.long?.includes(name) && !attachedValue) seen.set(name, word(""));
      else if (options.longOptional?.includes(name)) seen.set(name, attachedValue ?? word(""));
      else if (options.longValued?.includes(name)) {
        if (attachedValue) seen.set(name, attachedValue);
        else if (i + 1 < rest.length) seen.set(name, rest[++i]);
        else return undefined;
      } else return undefined;
      continue;
    }
    if (options.numeric && /^-\d+$/.test(w)) continue;
    for (let j = 1; j < w.length; j++) {
      const letter = w[j];
      if (options.flags?.includes(letter)) seen.set(letter, word(""));
      else if (options.attached?.includes(letter)) {
        seen.set(letter, word(w.slice(j + 1)));
        break;
      } else if (options.valued?.includes(letter)) {
        if (j + 1 < w.length) seen.set(letter, word(w.slice(j + 1)));
        else if (i + 1 < rest.length) seen.set(letter, rest[++i]);
        else return undefined;
        break;
      } else return undefined;
    }
  }
  return { operands: rest.slice(i), seen };
}

/** The options of the programs that run another command (or a script), from their manuals
 *  (GNU coreutils 9, findutils, procps, util-linux, bash 5). */
const WRAPPERS: Record<string, Options> = {
  env: {
    flags: "i0v",
    valued: "uCa",
    long: ["ignore-environment", "null", "debug", "list-signal-handling"],
    longValued: ["unset", "chdir", "argv0"],
    longOptional: ["block-signal", "default-signal", "ignore-signal"],
  },
  nice: { valued: "n", longValued: ["adjustment"], numeric: true },
  nohup: {},
  setsid: { flags: "cfw", long: ["ctty", "fork", "wait"] },
  timeout: {
    flags: "vf",
    valued: "sk",
    long: ["foreground", "preserve-status", "verbose"],
    longValued: ["signal", "kill-after"],
  },
  stdbuf: { valued: "ioe", longValued: ["input", "output", "error"] },
  time: {
    flags: "apqvV",
    valued: "fo",
    long: ["append", "portability", "quiet", "verbose"],
    longValued: ["format", "output"],
  },
  exec: { flags: "cl", valued: "a" },
  command: { flags: "pvV" },
  builtin: {},
  xargs: {
    flags: "0prtx",
    valued: "adEILnPs",
    attached: "eil",
    long: ["null", "interactive", "no-run-if-empty", "open-tty", "exit", "verbose"],
    longValued: ["arg-file", "delimiter", "max-args", "max-procs", "max-chars", "process-slot-var"],
    longOptional: ["max-lines", "replace", "eof"],
  },
  watch: {
    flags: "bcdeghprtwxqC",
    valued: "n",
    long: [
      "beep",
      "color",
      "no-color",
      "chgexit",
      "errexit",
      "exec",
      "no-linewrap",
      "no-title",
      "precise",
      "no-rerun",
    ],
    longValued: ["interval"],
    longOptional: ["differences"],
  },
};

/** The shells whose language is bash's (or a part of it): their `-c` script is read. bash's
 *  options; sh (dash) takes a subset. */
const SHELL: Options = {
  flags: "abefhkmnptuvxBCEHPTilrDcs",
  valued: "oO",
  plus: true,
  long: [
    "debugger",
    "dump-po-strings",
    "dump-strings",
    "help",
    "login",
    "noediting",
    "noprofile",
    "norc",
    "posix",
    "pretty-print",
    "restricted",
    "verbose",
    "version",
  ],
  longValued: ["init-file", "rcfile"],
};
const BASH_LIKE = /^(r?bash|sh|dash)$/;
/** Another shell reads another language (zsh runs code in a glob qualifier, fish has its own
 *  syntax): what it runs is unknown. */
const OTHER_SHELL =
  /^(zsh|ksh\d*|mksh|pdksh|oksh|ash|yash|posh|fish|csh|tcsh|elvish|xonsh|nu|pwsh|osh|ysh)$/;
// #endregion options

// #region evaluated
/** Variables bash itself runs as code or reads as its own settings: the prompts (`PS4` runs
 *  under `set -x`), `PROMPT_COMMAND`, `BASH_ENV` and `ENV` (a child shell expands and runs
 *  them), `SHELLOPTS` and `BASHOPTS` (a child shell's options), `BASH_FUNC_f%%` (a function a
 *  child bash imports), and `BASH_CMDS` and `BASH_ALIASES` (what a name runs). */
const BASH_RUNS =
  /^(PS[0-4]|PROMPT_COMMAND|BASH_ENV|ENV|SHELLOPTS|BASHOPTS|BASH_FUNC_.*|BASH_CMDS|BASH_ALIASES)$/;
/** Setting these gives a program another name: every rule would judge the wrong one. */
const RENAMES_VARIABLE = /^(BASH_CMDS|BASH_ALIASES)$/;

/** A plain variable name, or an element of an array by number: nothing in it is evaluated. */
const plainName = (w: Word) =>
  isKnown(w) && /^[A-Za-z_][A-Za-z0-9_]*(\[[0-9]*\])?$/.test(w.text) && !BASH_RUNS.test(w.text);

/** An array subscript or arithmetic with nothing but numbers and operators: bash evaluates it
 *  as arithmetic, and arithmetic reads a name's value as arithmetic again — so a name, a `$` or
 *  a quote in it may run whatever a variable holds (`x='a[$(touch p)]'; echo ${a[x]}`). */
const plainArithmetic = (text: string) => /^[\s0-9+\-*/%()<>=!&|^~?:,]*$/.test(text);
const plainIndex = (text: string) => /^\s*[@*]\s*$/.test(text) || plainArithmetic(text);

/** The name in `NAME`, `NAME=value` or `NAME+=value` as a word a builtin takes. */
function nameOf(w: Word): Word {
  const at = w.text.search(/\+?=/);
  if (at === -1) return w;
  // The shape has the same length as the text up to its first unknown piece.
  const shapeAt = w.shape.indexOf(ANY);
  return shapeAt !== -1 && shapeAt <= at ? word(w.text, ANY) : word(w.text.slice(0, at));
}

/** Where bash evaluates text the parser reads as data: a part the gate cannot know (or, for a
 *  rename, one no mode may allow). */
function evaluatedLater(node: sh.Node, type: string, reader: Reader): Part[] {
  const here = (why?: string): Part[] => [{ ...unknownPart(reader.slice(node)), why }];
  switch (type) {
    case "ParamExp": {
      const p = node as sh.ParamExp;
      const index = p.Index ? reader.slice(p.Index) : undefined;
      // `${!x}` reads x's value as a name, subscript and all (`${!a[@]}`, `${!pre*}` only list).
      if (p.Excl && !p.Names && !(index !== undefined && /^\s*[@*]\s*$/.test(index))) return here();
      if (index !== undefined && !plainIndex(index)) return here();
      if (p.Slice) {
        const { Offset, Length } = p.Slice;
        if (
          (Offset && !plainArithmetic(reader.slice(Offset))) ||
          (Length && !plainArithmetic(reader.slice(Length)))
        )
          return here();
      }
      // `${x@P}` expands x's value as a prompt: `$(…)` in it runs.
      if (p.Exp?.Op === ops().transform && !PLAIN_TRANSFORMS.test(reader.word(p.Exp.Word).text))
        return here();
      // `${PS4:=…}` assigns.
      if (p.Exp && p.Param && BASH_RUNS.test(p.Param.Value)) return here();
      return [];
    }
    case "CStyleLoop": {
      const text = reader.slice(node).replace(/^\(\(|\)\)$/g, "");
      return plainArithmetic(text.replace(/;/g, "")) ? [] : here();
    }
    case "Assign": {
      const a = node as sh.Assign;
      if (a.Name && BASH_RUNS.test(a.Name.Value))
        return here(RENAMES_VARIABLE.test(a.Name.Value) ? RENAMES : undefined);
      if (a.Index && !plainIndex(reader.slice(a.Index))) return here();
      return [];
    }
    case "ArrayElem": {
      const e = node as sh.ArrayElem;
      return e.Index && !plainIndex(reader.slice(e.Index)) ? here() : [];
    }
    case "WordIter": {
      const name = (node as sh.WordIter).Name;
      return name && BASH_RUNS.test(name.Value) ? here() : [];
    }
    case "UnaryTest": {
      // `[[ -v NAME ]]` evaluates NAME's subscript.
      const t = node as sh.UnaryTest;
      if (!ops().nameTests.has(t.Op)) return [];
      // No globbing in `[[ ]]`: the name is its text as written.
      return plainName(word(t.X ? reader.slice(t.X) : "")) ? [] : here();
    }
    default:
      return [];
  }
}

/** `declare`, `local`, `typeset`, `export`, `readonly`: the declaration as written, and a part the
 *  gate cannot know when it makes later assignments arithmetic (`-i`) or a name a reference to
 *  another (`-n`), or a name it declares is more than a name (`'a[$(…)]=1'`). */
function declaration(decl: sh.DeclClause, reader: Reader): Part[] {
  const written = { ...reader.opaque(decl), known: true };
  const variant = decl.Variant?.Value ?? "declare";
  const words: Word[] = [];
  for (const a of decl.Args) {
    if (!a) continue;
    if (a.Naked && !a.Name && a.Value) words.push(reader.word(a.Value));
    else if (a.Name) words.push(word(a.Name.Value));
  }
  return [written, ...namesTaken(variant, words, () => written.text)];
}

const RENAMES = "gives a program another name, so no rule can judge what it runs";

/** What a builtin that takes variable names (or runs a string) adds: an unknown part when a
 *  name it takes is more than a plain name, or when it keeps a string to run. */
function namesTaken(name: string, rest: Word[], text: () => string, fed = false): Part[] {
  const unknown = (why?: string): Part[] => [{ ...unknownPart(text()), why }];
  const check = (names: (Word | undefined)[]) =>
    names.every((n) => n === undefined || plainName(n)) ? [] : unknown();
  switch (name) {
    case "test":
    case "[":
      return check(rest.map((w, i) => (i > 0 && /^-[vR]$/.test(rest[i - 1].text) ? w : undefined)));
    case "printf": {
      const read = readOptions(rest, { valued: "v" });
      return read ? check([read.seen.get("v")]) : unknown();
    }
    case "wait": {
      const read = readOptions(rest, { flags: "nf", valued: "p" });
      return read ? check([read.seen.get("p")]) : unknown();
    }
    case "read": {
      const read = readOptions(rest, { flags: "ers", valued: "adinNptu" });
      return read ? check([read.seen.get("a"), ...read.operands]) : unknown();
    }
    case "mapfile":
    case "readarray": {
      const read = readOptions(rest, { flags: "t", valued: "dnOsucC" });
      if (!read || read.seen.has("C")) return unknown(); // -C runs a callback
      return check(read.operands);
    }
    case "unset":
      return check(rest.filter((w) => !/^-[fvn]+$/.test(w.text)));
    case "getopts":
      return check([rest[1] ?? word("", ANY)]);
    case "declare":
    case "typeset":
    case "local":
    case "export":
    case "readonly":
    case "nameref": {
      const options = rest.filter((w) => /^[-+]/.test(w.text));
      const integerOrReference =
        name === "nameref" ||
        (!["export", "readonly"].includes(name) && options.some((w) => /[in]/.test(w.text)));
      if (integerOrReference) return unknown();
      return check(rest.filter((w) => !/^[-+]/.test(w.text)).map(nameOf));
    }
    case "let":
      return plainArithmetic(joined(rest).text) && rest.every(isKnown) ? [] : unknown();
    // Keep a string to run later: completion callbacks and word lists (`compgen -W '$(…)'`
    // expands its list), key bindings, an editor for history, a library of builtins.
    case "compgen":
    case "complete":
    case "bind":
    case "fc":
    case "enable":
      return unknown();
    case "hash":
      return rest.some((w) => /^-\w*p/.test(w.text) || !isKnown(w)) ? unknown(RENAMES) : [];
    case "alias":
      return rest.some((w) => w.text.includes("=") || !isKnown(w)) ? unknown(RENAMES) : [];
    case "source":
    case ".": {
      // A script file is judged as `source file` (a rule sees its name, not its lines); one that
      // may be the command's own input, or a name known only when it runs, is unknown.
      const read = readOptions(rest, {});
      return read && namedScript(read.operands[0], fed) ? [] : unknown();
    }
    default:
      return [];
  }
}
// #endregion evaluated

/** The command a command runs: the one behind a wrapper (`env X=1 cmd`, `nohup cmd`, `xargs
 *  cmd`, `find -exec cmd ;`), the script of `bash -c` or `eval`, and `/usr/bin/git` as `git`.
 *  A wrapper's options are read with its manual's list (`WRAPPERS`); one it does not list makes
 *  the command it runs unknown. */
function inner(words: Word[], depth: number, fed: boolean): Part[] {
  const [first, ...rest] = words;
  if (!isKnown(first)) return [];
  const name = first.text.slice(first.text.lastIndexOf("/") + 1);
  const again = (from: Word[]): Part[] => {
    if (from.length === 0) return [];
    const w = joined(from);
    return [{ ...w, known: isKnown(from[0]) }, ...inner(from, depth, fed)];
  };
  const unknownInner = (what: string): Part[] => [unknownPart(what)];
  const whole = () => joined(words).text; // only when it is needed: a long call is read often
  if (first.text.includes("/") && programThroughKernel(first.text)) return unknownInner(whole());
  if (name !== first.text && name !== "") return again([word(name), ...rest]);
  const taken = namesTaken(name, rest, whole, fed);
  if (taken.length > 0) return taken;
  if (Object.hasOwn(WRAPPERS, name) && !["xargs", "watch"].includes(name)) {
    const read = readOptions(rest, WRAPPERS[name]);
    if (!read) return unknownInner(whole());
    let after = read.operands;
    if (name === "env") {
      if (after[0]?.text === "-") after = after.slice(1); // `env -` is `env -i`
      const assigns = after.findIndex((w) => !/^[^=]+=/.test(w.text) || !isKnown(w));
      const settings = assigns === -1 ? after : after.slice(0, assigns);
      if (settings.some((w) => BASH_RUNS.test(w.text.slice(0, w.text.indexOf("=")))))
        return unknownInner(whole());
      after = assigns === -1 ? [] : after.slice(assigns);
    }
    if (name === "timeout") after = after.slice(1); // its duration
    if (name === "command" && (read.seen.has("v") || read.seen.has("V"))) return [];
    return again(after);
  }
  switch (name) {
    case "busybox":
    case "toybox":
      return again(rest); // `busybox touch x` runs its applet `touch`
    case "xargs": {
      // The words xargs adds come from its input: the command it runs is known, its arguments
      // are not, and no allow rule can vouch for them.
      const read = readOptions(rest, WRAPPERS.xargs);
      if (!read || read.operands.length === 0) return unknownInner(whole());
      const w = joined(read.operands);
      return [
        { text: w.text, shape: `${w.shape} ${ANY}`, known: false },
        ...inner(read.operands, depth, fed),
      ];
    }
    case "find": {
      const found: Part[] = [];
      for (let i = 0; i < rest.length; i++) {
        if (!/^-(exec|execdir|ok|okdir)$/.test(rest[i].text)) continue;
        const end = rest.findIndex((w, j) => j > i && /^[;+]$/.test(w.text));
        const cmd = rest.slice(i + 1, end === -1 ? rest.length : end);
        found.push(...again(cmd.map((w) => (w.text === "{}" ? word("{}", ANY) : w))));
        if (end === -1) break;
        i = end;
      }
      return found;
    }
    case "eval":
    case "watch": {
      // Both run their words, joined, as a script (watch through sh -c, over and over).
      let from = rest;
      if (name === "watch") {
        const read = readOptions(rest, WRAPPERS.watch);
        if (!read) return unknownInner(whole());
        from = read.operands;
      }
      const script = joined(from);
      return isKnown(script) ? partsOf(script.text, depth + 1, fed) : unknownInner(script.text);
    }
    case "trap": {
      // `trap 'git push' EXIT` (or `trap -- 'git push' EXIT`) runs its first word later, as a
      // script; `trap -p` and `trap -l` only print.
      const read = readOptions(rest, { flags: "lpP" });
      if (!read) return unknownInner(whole());
      const [script] = read.operands;
      if (!script || read.seen.size > 0) return [];
      return isKnown(script) ? partsOf(script.text, depth + 1, fed) : unknownInner(script.text);
    }
    default: {
      if (OTHER_SHELL.test(name)) return unknownInner(whole());
      if (!BASH_LIKE.test(name)) return [];
      // `bash -c 'script'` (also `-lc`, `-ec`, `-O extglob -c`): the script is read like any
      // command. `bash` with no script file, or `-s`, reads its commands from its input: unknown.
      const read = readOptions(rest, SHELL);
      if (!read || read.seen.has("s") || read.operands.length === 0) return unknownInner(whole());
      // A start-up file (read before a `-c` script by an interactive shell) is a script too.
      const startup = ["rcfile", "init-file"].flatMap((o) => read.seen.get(o) ?? []);
      if (startup.some((file) => !namedScript(file, fed))) return unknownInner(whole());
      // A script file: the rules judge `bash file.sh` itself — unless it may be the command's
      // own input (`bash /dev/stdin <<< '…'`, `bash -`) or is a name known only when it runs.
      if (!read.seen.has("c"))
        return namedScript(read.operands[0], fed) ? [] : unknownInner(whole());
      const [script] = read.operands;
      return isKnown(script) ? partsOf(script.text, depth + 1, fed) : unknownInner(script.text);
    }
  }
}
