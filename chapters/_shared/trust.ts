// What a "yes" to a workspace's config (s08's .hooks.json, a1's .mcp.json) is given to. The config
// names commands, and a command like `sh hooks/guard.sh` runs a file the model can rewrite with
// one write call. So the yes is kept for a fingerprint of the config's text *and* of every
// workspace file its commands name, read through the chapter's jail (s02's safePath and
// readInside, passed in: _shared/ imports no chapter): change a script and it no longer matches,
// and the person is asked again.
import { createHash } from "node:crypto";
import { realpathSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import type sh from "mvdan-sh";

/** The jail the files are read through: s02's `safePath` and `readInside`. */
export interface Jail {
  safePath(root: string, requested: string): string;
  readInside(root: string, requested: string): string;
}

/** How a file that is run usually ends, when its word holds no `/` (`node lint.js`). */
const SCRIPT = /\.(sh|bash|zsh|js|mjs|cjs|ts|mts|cts|py|rb|pl|php|lua)$/i;

/** Programs that run the file their first operand names, whatever its name (`sh lint`). */
const INTERPRETER =
  /^(sh|bash|dash|zsh|ksh|rbash|source|\.|node|deno|bun|tsx|ts-node|python[\d.]*|ruby|perl|php|lua)$/;

/** Files a program reads from the folder it runs in without naming them: `make` its makefile
 *  (which says what runs), npm and the others a package.json (whose scripts run). A program's
 *  other configs and what a script imports are not covered (docs/threat-model.md). */
const READS_BY_ITSELF: Record<string, string[]> = {
  make: ["GNUmakefile", "makefile", "Makefile"],
  gmake: ["GNUmakefile", "makefile", "Makefile"],
  npm: ["package.json"],
  npx: ["package.json"],
  pnpm: ["package.json"],
  yarn: ["package.json"],
  bun: ["package.json"],
};

/** The words of a shell command (or of a server's argv) that may name a file it runs: a path
 *  (it holds a `/`), a script's name, the first operand of a program that runs a file
 *  (`sh lint`, with no `/` or extension), and the files a program reads by itself (`make` →
 *  `Makefile`). Output redirections are left out (they are written, not run: a hook's log may
 *  change every time), and so are options and `$` expansions; an input redirection
 *  (`sh < hooks/guard.sh`) and a path from `$PWD` are files it runs. Other words are left out
 *  too: a hook's `touch done` or `mkdir -p logs` makes its own files, and a fingerprint that
 *  covered them would change every time the hook ran. */
export function scriptWords(command: string): string[] {
  const found = command
    .replace(/\d*>+&?\s*[^\s;&|()]+/g, " ")
    .split(/[;&|()`\n]+/)
    .flatMap((segment) =>
      argvScripts(
        segment
          .split(/[\s<]+/)
          .map((word) => word.replace(/['"]/g, "").replace(/^\$\{?PWD\}?\//, ""))
          .filter((w) => w && !w.includes("$")),
      ),
    );
  return [...new Set(found)];
}

/** The same for one program's argv (a1's server: its command and args). */
export function argvScripts(argv: string[]): string[] {
  // Wherever a program that runs files stands (`env X=1 nice -n 5 sh lint` runs `sh lint`; no
  // list of wrappers and their options decides where the program is), its first operand counts.
  return argv.flatMap((w, i) => {
    const program = path.basename(w);
    const after = argv.slice(i + 1);
    const operand = after.find((a) => !a.startsWith("-"));
    const scripts = !w.startsWith("-") && (w.includes("/") || SCRIPT.test(w)) ? [w] : [];
    if (INTERPRETER.test(program) && operand !== undefined) scripts.push(operand);
    if (Object.hasOwn(READS_BY_ITSELF, program)) {
      scripts.push(...READS_BY_ITSELF[program]);
      // `make -f build.mk`, `make -C sub`: the makefile it was told to read.
      after.forEach((a, k) => {
        const value = after[k + 1];
        if (value === undefined) return;
        if (/^(-f|--file|--makefile)$/.test(a)) scripts.push(value);
        if (/^(-C|--directory)$/.test(a))
          scripts.push(...READS_BY_ITSELF.make.map((m) => path.join(value, m)));
      });
    }
    return scripts;
  });
}

// #region unpinnable
// The parser (mvdan-sh, as s07's gate reads commands) is a large bundle: loaded when a hooks
// file is first read, not when a chapter starts.
let loaded: typeof sh.syntax | undefined;
const syntax = () => (loaded ??= (createRequire(import.meta.url)("mvdan-sh") as typeof sh).syntax);

/** The redirection codes the parser gives `<` and `<>` (its enums exist only at compile time). */
let readsFrom: Set<number | undefined> | undefined;
const inputRedirects = () =>
  (readsFrom ??= new Set(
    ["sh < f", "sh <> f"].map((example) => {
      let op: number | undefined;
      syntax().Walk(syntax().NewParser().Parse(example, ""), (node) => {
        if (node && syntax().NodeType(node) === "Redirect") op ??= (node as sh.Redirect).Op;
        return true;
      });
      return op;
    }),
  ));

/** Shells whose `-c` script is itself a hook command to read. */
const SHELLS = /^(sh|bash|dash|zsh|ksh|rbash)$/;

/** What sh will pass for `word`, when it passes the text as written less its quotes: no
 *  backslash, glob (`*?[`), brace, `~` or `$`/backquote expansion outside single quotes.
 *  `$PWD/…` at the start is the workspace itself (a hook runs there): it reads as `…`.
 *  Undefined when sh would make something else of it. */
function asWritten(word: sh.Word): string | undefined {
  const pieces: string[] = [];
  const [first] = word.Parts;
  const fromPwd =
    isPwd(first) ||
    (syntax().NodeType(first) === "DblQuoted" &&
      (first as sh.DblQuoted).Parts.length === 1 &&
      isPwd((first as sh.DblQuoted).Parts[0]));
  for (const [i, part] of word.Parts.entries()) {
    const type = syntax().NodeType(part);
    if (i === 0 && fromPwd) pieces.push(".");
    else if (type === "Lit") {
      const value = (part as sh.Lit).Value;
      if (/[\\*?[\]{}]/.test(value) || (i === 0 && value.startsWith("~"))) return undefined;
      pieces.push(value);
    } else if (type === "SglQuoted" && !(part as sh.SglQuoted).Dollar) {
      pieces.push((part as sh.SglQuoted).Value);
    } else if (type === "DblQuoted") {
      const inner = (part as sh.DblQuoted).Parts;
      const lits = inner.every((p) => syntax().NodeType(p) === "Lit");
      const value = lits ? inner.map((p) => (p as sh.Lit).Value).join("") : "\\";
      if (/\\/.test(value)) return undefined;
      pieces.push(value);
    } else return undefined;
  }
  const text = pieces.join("");
  if (!fromPwd) return text;
  // `$PWD/hooks/x.sh` is `hooks/x.sh`; `${PWD}x` is another folder.
  return text === "." ? text : text.startsWith("./") ? text.slice(2) : undefined;
}

/** `$PWD` or `${PWD}`, nothing done to it. */
function isPwd(part: sh.Node | undefined): boolean {
  if (!part || syntax().NodeType(part) !== "ParamExp") return false;
  const p = part as sh.ParamExp;
  return (
    p.Param?.Value === "PWD" &&
    !p.Excl &&
    !p.Length &&
    !p.Width &&
    !p.Index &&
    !p.Slice &&
    !p.Repl &&
    !p.Names &&
    !p.Exp
  );
}

/** The words of a hook command that name a file it runs, or its program, but that sh would
 *  expand (a backslash, a glob, a variable, `$(…)`, `~`): a fingerprint of the text as written
 *  pins a file that is not the one that runs, so such a hook cannot be trusted. Each comes with
 *  the reason a person reads. A command the parser cannot read is one such reason too. */
export function unpinnable(command: string, depth = 0): string[] {
  const reason = (w: string) =>
    `${w}: the shell would expand this name, so what runs cannot be pinned; write the plain path`;
  let file: sh.File;
  try {
    file = syntax().NewParser().Parse(command, "");
  } catch {
    return [`${command}: the harness cannot read this command, so what it runs cannot be pinned`];
  }
  const source = Buffer.from(command); // the parser's positions count bytes
  const raw = (node: sh.Node) =>
    source.subarray(node.Pos().Offset(), node.End().Offset()).toString();
  const found: string[] = [];
  syntax().Walk(file, (node) => {
    if (!node) return true;
    const type = syntax().NodeType(node);
    if (type === "Redirect") {
      const r = node as sh.Redirect;
      if (inputRedirects().has(r.Op) && r.Word && asWritten(r.Word) === undefined)
        found.push(reason(raw(r.Word)));
    }
    // A search path of its own finds programs in the workspace under names with no `/`.
    if (type === "Assign" && (node as sh.Assign).Name?.Value === "PATH")
      found.push(
        `${raw(node)}: the hook sets its own PATH, so which file a program's name runs cannot ` +
          "be pinned; name the script by its path from the workspace",
      );
    if (type !== "CallExpr") return true;
    const words = (node as sh.CallExpr).Args.filter((w) => w !== null);
    if (words.length === 0) return true;
    const written = words.map(asWritten);
    const argv = words.map((w, i) => written[i] ?? raw(w));
    // The program itself, or a word the file-naming rules pick out, that sh would change.
    const scripts = new Set(argvScripts(argv));
    // A word sh expands may itself be a program that runs a file (`env "$S" lint`, S=sh): the
    // operand after it would be its script, which the fingerprint cannot know to read.
    const operandAfter = (i: number) => argv.slice(i + 1).find((a) => !a.startsWith("-"));
    words.forEach((w, i) => {
      if (written[i] !== undefined) return;
      const next = operandAfter(i);
      if (i === 0 || scripts.has(argv[i])) found.push(reason(raw(w)));
      else if (next !== undefined && !scripts.has(next))
        found.push(
          `${raw(w)}: the shell would expand this word, and it may be a program that runs ` +
            `${next}, so what runs cannot be pinned; write the program's name`,
        );
    });
    // A hook that changes folder names its scripts from there (`cd hooks && sh guard.sh`,
    // `env -C hooks sh guard.sh`): what the names mean is not what the fingerprint read.
    const moves = argv.some(
      (w, i) =>
        /^(cd|pushd|popd)$/.test(path.basename(w)) ||
        (path.basename(w) === "env" && argv.slice(i + 1).some((a) => /^(-\w*C|--chdir)/.test(a))),
    );
    if (moves)
      found.push(
        `${raw(node)}: the hook changes folder, so the names after it are not the workspace's ` +
          "and what runs cannot be pinned; name the script by its path from the workspace",
      );
    // `sh -c '…'` and `eval '…'` run a hook command of their own.
    const program = path.basename(argv[0]);
    if (depth < 4 && (SHELLS.test(program) || program === "eval"))
      argv.slice(1).forEach((w, i) => {
        const c = program === "eval" || /^-\w*c/.test(argv[i]);
        if (c && written[i + 1] !== undefined) found.push(...unpinnable(w, depth + 1));
      });
    return true;
  });
  return [...new Set(found)];
}
// #endregion unpinnable

const [OUTSIDE, FOLDER, MISSING] = ["not inside: ", "a folder", "missing"];

/** Large enough for any script; a bigger file is fingerprinted by its size and time. */
const MAX_READ = 16 * 1024 * 1024;

/** What a word names in the workspace, as text for the fingerprint. Only the jail reads: a
 *  symlink is resolved and must stay inside, the file is opened without following links and
 *  must be a regular file (a FIFO would block the harness). A word outside the workspace or
 *  missing is recorded as such, so a script created later changes the fingerprint too. */
function fileState(jail: Jail, root: string, word: string): string {
  let real: string;
  try {
    real = jail.safePath(root, word);
  } catch (err) {
    return `${OUTSIDE}${(err as Error).message}`; // the model's commands cannot write there
  }
  let st;
  try {
    st = statSync(real);
    if (st.isDirectory()) return FOLDER;
  } catch {
    return MISSING;
  }
  const rel = path.relative(realpathSync(root), real);
  // What the jail will not read (a hard link, a FIFO) or what is too big is known by its inode
  // and change time instead: a write through another name changes the ctime too.
  const stamp = `inode ${st.ino}, ${st.size} bytes, changed ${st.ctimeMs}`;
  if (st.size > MAX_READ) return `${rel}: ${stamp}`;
  try {
    return `${rel}\n${jail.readInside(root, rel)}`;
  } catch (err) {
    return `${rel}: ${(err as Error).message} (${stamp})`;
  }
}

/** Each word's file as it is now (what a yes is given to, and what is compared later). */
export function wordStates(jail: Jail, root: string, words: string[]): Map<string, string> {
  return new Map([...new Set(words)].map((w) => [w, fileState(jail, root, w)]));
}

/** The words that name a file in the workspace now (what a trust question lists). */
export const filesAmong = (states: Map<string, string>) =>
  [...states]
    .filter(([, state]) => state !== FOLDER && state !== MISSING && !state.startsWith(OUTSIDE))
    .map(([word]) => word);

/** The words whose file is no longer what `earlier` recorded (for a note that says what). */
export function changedWords(jail: Jail, root: string, earlier: Map<string, string>): string[] {
  return [...earlier]
    .filter(([word, state]) => fileState(jail, root, word) !== state)
    .map(([w]) => w);
}

/** SHA-256 of the config's text and of the states of the files its words name, sorted by word
 *  (the same files give the same hash, whatever the order of the commands). With no such words it
 *  is the hash of the text alone. */
export function fingerprint(text: string, states: Map<string, string>): string {
  const hash = createHash("sha256").update(text);
  for (const [word, state] of [...states].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
    hash.update(`\0${word}\0${state}`);
  return hash.digest("hex");
}
