// Shared by the team chapters' tests (s13–s15): fast timings, teams closed after each test,
// and readers for what a scripted teammate was asked.
import { afterEach } from "vitest";
import { budget } from "./budgets.ts";
import type { TeamOptions } from "../../chapters/s13-agent-teams/extension-points.ts";
import type { MessageParam } from "../../chapters/_shared/types.ts";
import type { RecordedRequest } from "../../chapters/_runner/scripted-model.ts";

/** Poll and wait briefly so a team test takes milliseconds, not seconds. */
export const FAST: TeamOptions = {
  pollMs: 2,
  idleWaitMs: 10,
  // How long a teammate waits idle, and the lead for its team to settle: longer on a busy machine,
  // never reached by a test that passes.
  idleTimeoutMs: budget({ process: 2 }),
  settleTimeoutMs: budget({ process: 0.8 }),
};

/** A list to push running teams into; each is closed after every test. */
export function closedAfterEach<T extends { close?(): Promise<void> }>(): T[] {
  const running: T[] = [];
  afterEach(async () => {
    await Promise.all(running.splice(0).map((agent) => agent.close?.()));
  });
  return running;
}

export const text = (m: MessageParam): string =>
  typeof m.content === "string"
    ? m.content
    : m.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("\n");

/** The newest user instruction (mail or first prompt, not a tool result) in a request's messages. */
export const instruction = (messages: MessageParam[]): string =>
  text([...messages].reverse().find((m) => m.role === "user" && text(m).trim()) ?? messages[0]);

export const requestsOf = (env: { requests: RecordedRequest[] }, agent: string) =>
  env.requests.filter((r) => r.agent === agent);
