// A repository in the workspace is yours, and your own git runs what its files say — hooks,
// `core.fsmonitor`, filters — outside any sandbox, the next time you type `git status`. The
// model's commands may commit there (that writes `.git`), so they cannot be kept out of `.git`
// altogether. What they get: the two files that say what git runs made read-only, and a warning,
// in the command's result and on screen, when anything else in `.git` but history changed. The
// harness's own git (s12's lanes) is pinned to the one file they cannot change.
import {
  closeSync,
  constants,
  existsSync,
  fstatSync,
  lstatSync,
  openSync,
  readdirSync,
  readFileSync,
  realpathSync,
} from "node:fs";
import path from "node:path";
import { openFolder } from "./jail.ts";

/** What is at `p`, without following a link; undefined for nothing — or for a path git's
 *  folders were made too deep to name (ENAMETOOLONG), which is looked at no further. */
const kind = (p: string) => {
  try {
    return lstatSync(p, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
};

/** The repository's `.git` folder of a folder a command may write (it may be that folder). */
export function gitDirIn(dir: string): string[] {
  const git = path.basename(dir) === ".git" ? dir : path.join(dir, ".git");
  return kind(git)?.isDirectory() ? [git] : [];
}

/** A repository's `.git` in a writable folder stays writable (commits, branches), but its config
 *  and hooks are read-only. `.git` is bound onto itself too, so it cannot be renamed away and
 *  replaced by a copy with a new config. */
export function gitGuards(dir: string): { path: string; folder: boolean; readOnly: boolean }[] {
  return gitDirIn(dir).flatMap((git) => {
    const config = path.join(git, "config");
    const hooks = path.join(git, "hooks");
    return [
      ...(git === dir ? [] : [{ path: git, folder: true, readOnly: false }]),
      ...(kind(config)?.isFile() ? [{ path: config, folder: false, readOnly: true }] : []),
      ...(kind(hooks)?.isDirectory() ? [{ path: hooks, folder: true, readOnly: true }] : []),
    ];
  });
}

/** What in a git folder is history — objects, refs, their logs, the index, the last message —
 *  which git reads as data and never runs. Everything else there (config, hooks, attributes,
 *  `commondir` and other pointers, rebase, merge and bisect state, a lane's or a submodule's own
 *  folder) says what git will do or run next, so a change to it is named. A rule, not a list of
 *  dangerous files: a kind of state git adds tomorrow is named by default. Not history, though
 *  git keeps them beside it: `rr-cache` (rerere replays a recorded resolution into your next
 *  merge, and turns itself on when the folder exists) and `shallow` (which commits git shows). */
const HISTORY = new Set([
  "objects",
  "refs",
  "logs",
  "packed-refs",
  "HEAD",
  "ORIG_HEAD",
  "FETCH_HEAD",
  "AUTO_MERGE",
  "COMMIT_EDITMSG",
  "index",
  "description",
  "gc.log",
  "lfs",
  "info/exclude",
  "info/refs",
]);
/** Folders holding other git folders: a linked worktree's (`worktrees/<name>`) and a submodule's
 *  (`modules/<name>`), each looked at with the same rule. */
const NESTED = new Set(["worktrees", "modules"]);
/** How many files of one unknown folder (say, a planted copy of a repository) are fingerprinted
 *  one by one; past that the folder's own entry stands for the rest. */
const PER_FOLDER = 200;

/** How deep lanes and submodules nest (`modules/a/modules/b`) before a nested folder's own entry
 *  stands for what is inside it: a 400-deep `worktrees/a/worktrees/a/…` planted by a command is
 *  fingerprinted as one folder at that depth, not walked until its path is too long to name. */
const MAX_NESTING = 4;

/** Lists folders under `root` (relative names). This runs outside the sandbox: a folder linked
 *  to one the sandbox hides (your home) must not have its names listed in a warning to the
 *  model. So only real folders are looked into, opened part by part without following a link
 *  (s02's jail), and listed through the open handle, however a path is swapped meanwhile. */
function lister(root: string) {
  const names = (dir: string) => {
    let open: { fd: number } | undefined;
    try {
      // (`root` itself is no link — `gitDirIn` saw to that for `.git`; the path to it may be.)
      open = openFolder(realpathSync(root), dir.split(path.sep).filter(Boolean), false);
      return readdirSync(
        existsSync("/proc/self/fd") ? `/proc/self/fd/${open.fd}` : path.join(root, dir),
      ).sort();
    } catch {
      return [];
    } finally {
      if (open) closeSync(open.fd);
    }
  };
  const folder = (rel: string) => kind(path.join(root, rel))?.isDirectory() ?? false;
  /** Everything under `dir`, at most `budget.left` entries. */
  /** Git's own lock: a plain file `<name>.lock` it writes beside a file and renames over it
   *  (a teammate's commit holds `index.lock` while this command runs). Git never reads one, so
   *  it is not named; anything else by such a name is (`modules/x.lock/` is a submodule's
   *  folder, by the name `.gitmodules` gives it). */
  const gitsLock = (rel: string) =>
    rel.endsWith(".lock") && (kind(path.join(root, rel))?.isFile() ?? false);
  const walk = (dir: string, budget: { left: number }, found: string[] = []) => {
    for (const name of names(dir)) {
      const rel = path.join(dir, name);
      if (gitsLock(rel)) continue;
      if (budget.left-- <= 0) return found;
      found.push(rel);
      if (folder(rel)) walk(rel, budget, found);
    }
    return found;
  };
  return { names, folder, walk, gitsLock };
}

/** Every file and folder in a git folder that is not history, relative to it. */
function surfaceFiles(git: string, under = "", nesting = 0): string[] {
  const { names, folder, walk: walkFrom, gitsLock } = lister(git);
  const found: string[] = [];
  const walk = (dir: string, budget: { left: number }) => void walkFrom(dir, budget, found);
  for (const name of names(under)) {
    const rel = path.join(under, name);
    // Replace refs are refs, but they tell git to show one object in place of another: a commit
    // whose content your `git log -p` would show clean. Watched, in a packed-refs file too.
    if (name === "refs" && folder(rel)) {
      const replace = path.join(rel, "replace");
      if (folder(replace)) found.push(replace, ...walkFrom(replace, { left: PER_FOLDER }));
      continue;
    }
    if (name === "packed-refs" && packsReplaceRefs(path.join(git, rel))) {
      found.push(rel);
      continue;
    }
    if (HISTORY.has(name) || gitsLock(rel) || name.startsWith("sharedindex.")) continue;
    if (name === "info" && folder(rel)) {
      for (const inner of names(rel))
        if (!HISTORY.has(path.join("info", inner))) found.push(path.join(rel, inner));
      continue;
    }
    // (Not these folders' own entries: a commit in a lane changes its folder's time.)
    if (NESTED.has(name) && folder(rel)) {
      for (const inner of names(rel)) {
        const sub = path.join(rel, inner);
        if (folder(sub) && nesting < MAX_NESTING)
          found.push(...surfaceFiles(git, sub, nesting + 1));
        else found.push(sub);
      }
      continue;
    }
    found.push(rel);
    if (folder(rel)) walk(rel, { left: PER_FOLDER });
  }
  return found;
}

/** Does a packed-refs file hold a replace ref? Read without following a link or waiting. */
function packsReplaceRefs(file: string): boolean {
  let fd: number | undefined;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    return fstatSync(fd).isFile() && / refs\/replace\//.test(readFileSync(fd, "utf8"));
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** The files among those that decide what git runs or where it looks — config, hooks,
 *  attributes, pointers — as opposed to what an operation leaves behind (merge or rebase state).
 *  The harness's own git may leave the latter (a merge it was asked for), never change the former. */
const decidesWhatRuns = (file: string) =>
  file.split(path.sep).some((part) => part === "hooks") ||
  ["config", "config.worktree", "commondir", "gitdir", "attributes"].includes(path.basename(file));

/** The hooks your `.git/config` keeps in the working tree (`core.hooksPath = .husky/_`), as
 *  folders relative to it: the hooks folder, and the one above it unless that is the top (husky
 *  9's stubs in `.husky/_` run the hooks in `.husky`). Changes there can be hidden from `git
 *  status` (husky's `.gitignore` of `*`, `git update-index --skip-worktree`), so they are watched
 *  like `.git`. A path outside the working tree is the model's to write only if it is inside the
 *  workspace, which it is not (commands write the workspace only). */
function hooksInWorkTree(git: string): string[] {
  const value = configValue(path.join(git, "config"), "core", "hookspath");
  if (value === undefined || value.startsWith("~")) return [];
  const tree = path.dirname(git);
  // `/home/you/project/.husky` names the same folder as `.husky`.
  const hooks = path.isAbsolute(value) ? path.relative(tree, value) : path.normalize(value);
  if (hooks === "" || hooks === "." || hooks.startsWith("..") || path.isAbsolute(hooks)) return [];
  const above = path.dirname(hooks);
  return above === "." ? [hooks] : [hooks, above];
}

/** A fingerprint of those files (kind, size, change time, inode), per repository, and of the
 *  hooks its config keeps in the working tree; with `onlyWhatRuns`, of the files that decide
 *  what git runs. */
export function gitRunSurface(gits: string[], { onlyWhatRuns = false } = {}): Map<string, string> {
  const surface = new Map<string, string>();
  const add = (file: string) => {
    const st = kind(file);
    if (st) surface.set(file, `${st.mode}:${st.size}:${st.ctimeMs}:${st.ino}`);
  };
  for (const git of gits) {
    for (const file of surfaceFiles(git))
      if (!onlyWhatRuns || decidesWhatRuns(file)) add(path.join(git, file));
    const tree = path.dirname(git);
    const { walk } = lister(tree);
    for (const hooks of hooksInWorkTree(git)) {
      add(path.join(tree, hooks));
      for (const file of walk(hooks, { left: PER_FOLDER })) add(path.join(tree, file));
    }
  }
  return surface;
}

/** What was created, changed or removed between two fingerprints: a folder that changed stands
 *  for what changed inside it (a new `rebase-merge`, not its ten files). */
export function surfaceChanges(before: Map<string, string>, after: Map<string, string>): string[] {
  const names = new Set([...before.keys(), ...after.keys()]);
  const changed = [...names].filter((name) => before.get(name) !== after.get(name)).sort();
  const inside = (name: string) =>
    changed.some((other) => other !== name && name.startsWith(other + path.sep));
  return changed.filter((name) => !inside(name));
}

/** A watch on what git runs in the repository of `folder`, for a writer that is not one command
 *  (a1's MCP servers run all session): each look names what changed since the one before. A
 *  repository that appears in `folder` is new in everything, so all of it is named. */
export function gitWatch(folder: string) {
  const look = () => gitRunSurface(gitDirIn(folder));
  let last = look();
  return {
    changes(): string[] {
      const now = look();
      const changed = surfaceChanges(last, now);
      last = now;
      return changed;
    },
  };
}

// #region warnings
/** The warnings the harness itself wrote into commands' results. The terminal shows each one
 *  again as a harness note after the result (`harnessWarningsIn`), where the output before it
 *  cannot push it away. Only text the harness issued counts: a command that prints the same
 *  words gets no note. */
const issued = new Set<string>();

export function issueWarning(text: string): string {
  issued.add(text);
  // A warning nobody printed (a result that never reached a terminal) is not kept for ever.
  if (issued.size > 100) issued.delete(issued.values().next().value!);
  return text;
}

/** The warning that `who` ("this command", an MCP server) changed what git runs. Said in a
 *  tool's result, for the model; the terminal shows it again after the result, as a harness
 *  note (`harnessWarningsIn`), so the person sees it whatever the output was. */
export const gitChangeWarning = (who: string, changed: string[]) =>
  issueWarning(
    `[harness] ${who} changed what git runs: ${changed.join(", ")}. Your own git would ` +
      "run it, outside any sandbox: look before you run git there (git status, git config " +
      "--list --show-origin, and what a rebase, merge or bisect left behind).",
  );

/** The harness's warnings in a result, each given out once. */
export function harnessWarningsIn(output: string): string[] {
  const found = [...issued].filter((text) => output.includes(text));
  found.forEach((text) => issued.delete(text));
  return found;
}
// #endregion warnings

// #region identity
/** Commits need a name and an address. Your global ones are hidden from commands (your home is),
 *  so where a repository's own `.git/config` names none, a command (the model's, or the
 *  harness's own git) gets the harness's in its environment — never written into a config
 *  file. Your repository's own identity, where it has one, is what its commits carry. */
const HARNESS_IDENTITY = { name: "Agent Harness", email: "agent@harness.invalid" };

export function fallbackIdentity(repos: string[]): Record<string, string> {
  if (!repos.length) return {};
  const has = (key: string) => repos.every((git) => configSetsUser(path.join(git, "config"), key));
  const env: Record<string, string> = {};
  if (!has("name")) env.GIT_AUTHOR_NAME = env.GIT_COMMITTER_NAME = HARNESS_IDENTITY.name;
  if (!has("email")) env.GIT_AUTHOR_EMAIL = env.GIT_COMMITTER_EMAIL = HARNESS_IDENTITY.email;
  return env;
}

/** Does a git config file set `user.<key>`? Read here, not by running git: a `git` found on the
 *  PATH could be a file the model wrote, and this runs outside the sandbox. Includes are not
 *  followed (the harness's git does not read them either). A file it misreads costs at most an
 *  author name: the commit fails, or carries the harness's name. */
function configSetsUser(file: string, key: string): boolean {
  return configValue(file, "user", key) !== undefined;
}

/** The last value a git config file gives `section.key` (no subsection), or undefined; read
 *  as `configSetsUser` says. Quotes are taken off; escapes other than `\"` and `\\` are not
 *  decoded (a value that needs them is read as written). */
function configValue(file: string, section: string, key: string): string | undefined {
  // A plain file only, never through a link, and without waiting: a FIFO in its place (where
  // there was no config to guard) must not hold the harness.
  let text: string;
  let fd: number | undefined;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    if (!fstatSync(fd).isFile()) return undefined;
    text = readFileSync(fd, "utf8");
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  let inSection = false;
  let value: string | undefined;
  for (const raw of text.split("\n")) {
    let line = raw.trim();
    const header = /^\[\s*([A-Za-z0-9.-]+)(\s+"[^"]*")?\s*\](.*)$/.exec(line);
    if (header) {
      inSection = header[1].toLowerCase() === section && !header[2];
      line = header[3].trim();
    }
    const setting = new RegExp(`^${key}\\s*=\\s*(.*)$`, "i").exec(line);
    if (inSection && setting)
      value = setting[1]
        .replace(/\s[#;].*$/, "")
        .trim()
        .replace(/^"(.*)"$/, "$1")
        .replace(/\\(["\\])/g, "$1");
  }
  return value;
}

// #endregion identity

// #region harness-git
/** The harness's own git (s12's lanes) reads one config file: the repository's `.git/config`,
 *  which no command may write (`gitGuards`). Git would also follow `commondir`, a lane's `.git`
 *  file and `worktrees/<name>/commondir` to another config, read system and global config, and
 *  run hooks, fsmonitor and the filters that config and attributes name. So it is told where its
 *  repository is (`GIT_DIR`, `GIT_COMMON_DIR`: git then reads no pointer file at all), reads no
 *  system or global config, and runs with hooks, fsmonitor and the untracked cache off, and
 *  never looks into a nested repository (whose own config is in the working tree). A filter can
 *  only be one your `.git/config` defines. */
export const HARNESS_GIT_OPTIONS = [
  ...["core.hooksPath=/dev/null", "core.fsmonitor=false", "core.untrackedCache=false"],
  ...["core.attributesFile=/dev/null", "commit.gpgsign=false", "tag.gpgsign=false"],
  // A nested repository (a gitlink the model added in a lane) has a config of its own, in the
  // working tree: `git status` would start a git inside it, which runs that config's filters.
  // The harness's git never enters another repository.
  ...["diff.ignoreSubmodules=all", "status.submoduleSummary=false", "submodule.recurse=false"],
].flatMap((setting) => ["-c", setting]);

/** The environment of the harness's own git in `workspace`, or in its lane `lane` (a folder in
 *  `.worktrees/`, named by the harness, never read from the lane's `.git` file). */
export function harnessGitEnv(workspace: string, lane?: { name: string; folder: string }) {
  const common = path.join(workspace, ".git");
  return {
    GIT_DIR: lane ? path.join(common, "worktrees", lane.name) : common,
    GIT_COMMON_DIR: common,
    GIT_WORK_TREE: lane ? lane.folder : workspace,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_ATTR_NOSYSTEM: "1",
    GIT_TERMINAL_PROMPT: "0",
  };
}

/** Pointers in a repository's `.git` that send git elsewhere. A repository's own `.git` folder
 *  never has them (only a linked worktree's folder does): one there was planted, and your own
 *  git would follow it, so the harness names it and stops. */
export function plantedPointers(git: string): string[] {
  return ["commondir", "gitdir"].filter((name) => kind(path.join(git, name)));
}
// #endregion harness-git
