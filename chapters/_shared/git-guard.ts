// A repository in the workspace is yours, and your own git runs what its files say — hooks,
// `core.fsmonitor`, filters — outside any sandbox, the next time you type `git status`. The
// model's commands may commit there (that writes `.git`), so they cannot be kept out of `.git`
// altogether. What they get: the two files that say what git runs made read-only, and a warning
// in the command's result when anything else that does changed.
import { lstatSync, readdirSync } from "node:fs";
import path from "node:path";

const kind = (p: string) => lstatSync(p, { throwIfNoEntry: false });

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

/** Files in `.git` that also say what git runs, and that a command can still create or change:
 *  another config through `commondir`, `config.worktree`, attributes (filters), a linked
 *  worktree's pointers, a submodule's config and hooks, and `hooks` where it was missing. */
function surfaceFiles(git: string): string[] {
  const listed = (dir: string) => {
    try {
      return readdirSync(path.join(git, dir)).map((name) => path.join(dir, name));
    } catch {
      return [];
    }
  };
  const top = ["config", "commondir", "config.worktree", "info/attributes", "hooks"];
  return [
    ...top,
    ...listed("hooks"),
    ...listed("worktrees").flatMap((w) =>
      ["commondir", "gitdir", "config.worktree"].map((f) => path.join(w, f)),
    ),
    ...listed("modules").flatMap((m) => [
      path.join(m, "config"),
      path.join(m, "hooks"),
      ...listed(path.join(m, "hooks")),
    ]),
  ];
}

/** A fingerprint of those files (kind, size, change time, inode), per repository. */
export function gitRunSurface(gits: string[]): Map<string, string> {
  const surface = new Map<string, string>();
  for (const git of gits)
    for (const file of surfaceFiles(git)) {
      const st = kind(path.join(git, file));
      if (st) surface.set(path.join(git, file), `${st.mode}:${st.size}:${st.ctimeMs}:${st.ino}`);
    }
  return surface;
}

/** What was created, changed or removed between two fingerprints. */
export function surfaceChanges(before: Map<string, string>, after: Map<string, string>): string[] {
  const names = new Set([...before.keys(), ...after.keys()]);
  return [...names].filter((name) => before.get(name) !== after.get(name)).sort();
}
