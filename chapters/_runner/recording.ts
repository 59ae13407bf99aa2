// `--record FILE`: a run written down as it happens, in the player's own vocabulary, so a learner
// can open their own run (real model or scripted) on the site's "Open a recording…" page.
//
// The file is JSON Lines: the first line says what it is (RecordingHeader), every other line is
// one step of the trace (chapters/_trace/contract.ts). Each line is written whole, with one write call, the moment
// its step happens: a run that crashes, or is killed, keeps every step it had. A reader that
// finds a last line cut short shows the steps before it (site/lib/recording.ts reads them).
import {
  closeSync,
  constants,
  existsSync,
  fstatSync,
  openSync,
  realpathSync,
  writeSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { REPO_ROOT } from "../_shared/paths.ts";
import { scrubber, type Secret } from "../_trace/scrub.ts";
import {
  RECORDING_FORMAT,
  TRACE_VERSION,
  type RecordingHeader,
  type TraceEvent,
} from "../_trace/contract.ts";

/** The workspace's paths, the repository's, the home folder (each also resolved: a link in it is
 *  the same place), the user and the host name, as this machine has them: what a recording, made
 *  to be shared, must not name. */
export function machineSecrets(
  workspaces: readonly string[],
  who: { repo?: string; home?: string; user?: string; host?: string } = thisMachine(),
): Secret[] {
  const paths = (list: readonly (string | undefined)[], placeholder: string) =>
    list
      .flatMap((p) => (p ? [p, resolved(p)] : []))
      .map((p) => ({ text: p.replace(/(.)\/+$/, "$1"), placeholder }));
  return [
    ...paths(workspaces, "<workspace>"),
    ...paths([who.repo], "<repo>"),
    ...paths([who.home], "<home>"),
    ...(who.user ? [{ text: who.user, placeholder: "<user>", word: true }] : []),
    ...(who.host ? [{ text: who.host, placeholder: "<host>", word: true }] : []),
  ];
}

function resolved(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

/** This machine's: a user with no entry in the password database has no name to hide. */
function thisMachine() {
  let user: string | undefined;
  try {
    user = os.userInfo().username;
  } catch {
    user = undefined;
  }
  return { repo: REPO_ROOT, home: os.homedir(), user, host: os.hostname() };
}

/** Why a recording cannot be written where it was asked for. */
export class RecordingRefused extends Error {
  name = "RecordingRefused";
}

/** Opens `file` for writing, but never through a symbolic link (O_NOFOLLOW) and never inside one
 *  of `modelWrites` (the workspace and its state folder, resolved): the model can write there, and
 *  could have put a link to ~/.bashrc where the recording is to go. */
function openOutside(file: string, modelWrites: string[]): number {
  const real = path.join(realpathSync(path.dirname(path.resolve(file))), path.basename(file));
  const inside = (dir: string) => real === dir || real.startsWith(dir + path.sep);
  if (modelWrites.some((dir) => existsSync(dir) && inside(realpathSync(dir))))
    throw new RecordingRefused(
      "it is inside the workspace or its state folder, where the model writes; record outside them",
    );
  // O_NONBLOCK: a FIFO no one reads would hold the open forever; it fails at once instead (and
  // is refused below). It changes nothing for a regular file.
  const { O_WRONLY, O_CREAT, O_TRUNC, O_NOFOLLOW, O_NONBLOCK } = constants;
  let fd: number;
  try {
    fd = openSync(real, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_NONBLOCK, 0o644);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ELOOP") throw new RecordingRefused("it is a symbolic link");
    if (code === "ENXIO") throw new RecordingRefused("it is not a regular file");
    throw err;
  }
  if (!fstatSync(fd).isFile()) {
    closeSync(fd);
    throw new RecordingRefused("it is not a regular file");
  }
  return fd;
}

/** Opens `file` (created, or emptied if it exists) and writes the header; `write` adds a step.
 *  `workspaces` are the run's workspace paths: the recording is not written inside one, nor inside
 *  `stateDir`, and names none of them, nor the repository, the home folder, the user or the host
 *  (`secrets`, this machine's unless given): each becomes a placeholder, in values and keys. */
export function startRecording(
  file: string,
  header: Omit<RecordingHeader, "format" | "version" | "started">,
  workspaces: string[],
  stateDir?: string,
  secrets: readonly Secret[] = machineSecrets(workspaces),
): { write(step: TraceEvent): void; close(): void } {
  const fd = openOutside(file, [...workspaces, ...(stateDir ? [stateDir] : [])]);
  const scrub = scrubber(secrets);
  const line = (value: unknown) => writeSync(fd, `${JSON.stringify(value)}\n`);
  line({
    format: RECORDING_FORMAT,
    version: TRACE_VERSION,
    ...scrub(header),
    started: new Date().toISOString(),
  } satisfies RecordingHeader);
  let open = true;
  return {
    write(step) {
      if (open) line(scrub(step));
    },
    close() {
      if (open) closeSync(fd);
      open = false;
    },
  };
}
