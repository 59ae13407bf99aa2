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
import sh from "mvdan-sh";

const { syntax } = sh;

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

/** `bash -c 'bash -c "…"'` is read again, but not forever. */
const MAX_DEPTH = 4;

const unknownPart = (text: string): Part => ({ text, shape: ANY, known: false });

function partsOf(command: string, depth: number): Part[] {
  if (depth > MAX_DEPTH) return [unknownPart(command)];
  let file: sh.File;
  try {
    file = syntax.NewParser().Parse(command, "");
  } catch {
    return [unknownPart(command)];
  }
  const reader = new Reader(Buffer.from(command)); // the parser's positions count bytes
  const parts: Part[] = [];
  // Every node of the tree, however deep: a command inside `$(…)` in a redirection inside a loop
  // is found like one at the top. A simple command is read from its Stmt, which holds its
  // redirections.
  syntax.Walk(file, (node) => {
    if (!node) return true;
    const type = syntax.NodeType(node);
    if (type === "Stmt") {
      const stmt = node as sh.Stmt;
      if (stmt.Cmd && syntax.NodeType(stmt.Cmd) === "CallExpr")
        parts.push(...callParts(stmt.Cmd as sh.CallExpr, stmt.Redirs, reader, depth));
      else parts.push(...redirectionOfGroup(stmt, reader));
    } else if (type === "CmdSubst" && (node as sh.CmdSubst).Backquotes) {
      // In `…` bash first turns \\ \` \$ into \ ` $, then reads what is left as a command; the
      // parser does not always do the same, so the gate reads it that way too.
      const subst = node as sh.CmdSubst;
      const inside = reader.between(subst.Left.Offset() + 1, subst.Right.Offset());
      parts.push(...partsOf(inside.replace(/\\([\\`$])/g, "$1"), depth + 1));
    } else if (type === "DeclClause") parts.push(reader.declaration(node));
    else if (["ArithmCmd", "LetClause", "ArithmExp", "TestClause"].includes(type))
      parts.push(...arithmetic(reader.slice(node), type));
    else if (type === "CoprocClause" || type === "TestDecl") parts.push(unknownPart(command));
    return true;
  });
  return parts;
}

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
    return { text: pieces.map((p) => p.text).join(""), shape: pieces.map((p) => p.shape).join("") };
  }

  private piece(part: sh.Node, quoted: boolean): Word {
    switch (syntax.NodeType(part)) {
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

  /** `export X=1`, `declare -i n`: read as written (what follows a `$` is unknown). */
  declaration(node: sh.Node): Part {
    return { ...this.opaque(node), known: true };
  }
}

/** `(( … ))`, `let`, `$(( … ))` and `[[ x -eq y ]]` evaluate arithmetic, and arithmetic on a
 *  variable runs any command the variable holds (`a[$(…)]`): with a name in it, the gate cannot
 *  know what it runs. `[[ -f x ]]` only tests. */
function arithmetic(text: string, type: string): Part[] {
  const names = /[A-Za-z_$`]/.test(text.replace(/^(\(\(|\$\(\(|let\b)/, ""));
  if (type === "TestClause" && !/\s-(eq|ne|lt|le|gt|ge)\s/.test(text))
    return [{ text, shape: text, known: true }];
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

/** The parts of one simple command: itself, and — when it runs another command — that one too. */
function callParts(
  call: sh.CallExpr,
  redirections: (sh.Redirect | null)[],
  reader: Reader,
  depth: number,
): Part[] {
  const assigns = call.Assigns.filter((a) => a !== null).map((a) => reader.assignment(a));
  const words = call.Args.filter((w) => w !== null).map((w) => reader.word(w));
  const redirs = redirections.filter((r) => r !== null).map((r) => reader.redirection(r));
  const whole = joined([...assigns, ...words, ...redirs]);
  const known = words.length === 0 || isKnown(words[0]);
  const parts: Part[] = [{ ...whole, known }];
  // `X=1 cmd`, `cmd > out`: the command itself is one more part, so a deny rule for `cmd` sees it.
  if (words.length > 0 && (assigns.length > 0 || redirs.length > 0))
    parts.push({ ...joined(words), known });
  if (words.length > 0) parts.push(...inner(words, depth));
  return parts;
}

/** The command a command runs: the one behind a wrapper (`env X=1 cmd`, `nohup cmd`, `xargs
 *  cmd`, `find -exec cmd ;`), the script of `bash -c` or `eval`, and `/usr/bin/git` as `git`. */
function inner(words: Word[], depth: number): Part[] {
  const [first, ...rest] = words;
  if (!isKnown(first)) return [];
  const name = first.text.slice(first.text.lastIndexOf("/") + 1);
  const again = (from: Word[]): Part[] => {
    if (from.length === 0) return [];
    const w = joined(from);
    return [{ ...w, known: isKnown(from[0]) }, ...inner(from, depth)];
  };
  if (name !== first.text && name !== "") return again([word(name), ...rest]);
  const skip = (options: RegExp, withValue: RegExp): Word[] | undefined => {
    let i = 0;
    while (i < rest.length) {
      const w = rest[i].text;
      if (w === "--") return rest.slice(i + 1);
      if (!isKnown(rest[i])) return undefined;
      if (withValue.test(w)) i += 2;
      else if (options.test(w)) i += 1;
      else break;
    }
    return rest.slice(i);
  };
  const unknownInner = (what: string): Part[] => [unknownPart(what)];
  switch (name) {
    case "env": {
      if (rest.some((w) => /^-[^-]*S|^--split-string/.test(w.text)))
        return unknownInner(joined(words).text);
      const after = skip(/^(-[i0]*|-|--ignore-environment|--null|[A-Za-z_]\w*=.*)$/, /^(-u|-C)$/);
      return after
        ? again(after.filter((w) => !/^--(unset|chdir)=/.test(w.text)))
        : unknownInner(joined(words).text);
    }
    case "exec":
    case "command":
    case "builtin":
    case "nohup":
    case "setsid":
    case "nice":
    case "timeout":
    case "stdbuf":
    case "time": {
      const withValue =
        {
          exec: /^-a$/,
          nice: /^-n$/,
          timeout: /^(-s|-k|--signal|--kill-after)$/,
          stdbuf: /^-[ioe]$/,
        }[name as string] ?? /^$^/;
      let after = skip(/^-/, withValue);
      if (after && name === "timeout") after = after.slice(1); // its duration
      return after ? again(after) : unknownInner(joined(words).text);
    }
    case "xargs": {
      // The words xargs adds come from its input: the command it runs is known, its arguments
      // are not, and no allow rule can vouch for them.
      const after = skip(/^-/, /^-[adEeIiLlnPs]$/);
      if (!after || after.length === 0) return unknownInner(joined(words).text);
      const w = joined(after);
      return [{ text: w.text, shape: `${w.shape} ${ANY}`, known: false }, ...inner(after, depth)];
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
      const script = joined(name === "watch" ? (skip(/^-/, /^-[nd]$/) ?? []) : rest);
      return isKnown(script) ? partsOf(script.text, depth + 1) : unknownInner(script.text);
    }
    case "trap": {
      // `trap 'git push' EXIT` runs its first word later, as a script.
      const [script] = rest;
      if (!script || /^-/.test(script.text)) return [];
      return isKnown(script) ? partsOf(script.text, depth + 1) : unknownInner(script.text);
    }
    case "sh":
    case "bash":
    case "dash":
    case "zsh":
    case "ksh": {
      // `bash -c 'script'` (also `-lc`, `-ec`, `-x -c`): the script is read like any command.
      // `bash` with no script file, or `-s`, reads its commands from its input: unknown.
      let runsString = false;
      let i = 0;
      for (; i < rest.length && /^[-+]/.test(rest[i].text); i++) {
        if (rest[i].text === "--") {
          i++;
          break;
        }
        if (/^-[a-z]*s/.test(rest[i].text)) return unknownInner(joined(words).text);
        if (/^-[a-z]*c/.test(rest[i].text)) runsString = true;
        if (/^[-+]o$/.test(rest[i].text)) i++;
      }
      if (i >= rest.length) return unknownInner(joined(words).text);
      if (!runsString) return []; // a script file: the rules judge `bash file.sh` itself
      return isKnown(rest[i]) ? partsOf(rest[i].text, depth + 1) : unknownInner(rest[i].text);
    }
    default:
      return [];
  }
}
