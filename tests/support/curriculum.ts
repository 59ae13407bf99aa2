// The curriculum's tool lists (shared/curriculum.md), in one table the chapter tests read: what
// each chapter's model is offered, by agent, in order. A chapter test compares the tools its
// first request really carried with this table, so a list is written down once, here.
const BASE = ["bash", "read", "write", "edit", "glob"];
const BOARD = ["task_create", "task_get", "task_update", "task_list"];
const LANES = ["worktree_create", "worktree_list", "worktree_run", "worktree_remove"];
const TEAM_LEAD = ["bash", "read", "write", ...BOARD, "spawn", "send", "inbox"];
const TEAMMATE = [...BASE, "send"];
const PROTOCOL_LEAD = ["request_shutdown", "request_plan", "review_plan"];
const PROTOCOL_TEAMMATE = ["handle_shutdown", "submit_plan"];

interface ToolLists {
  /** What the lead (the agent the user talks to) is offered. */
  lead: readonly string[];
  /** A teammate's tools (s13 on). */
  teammate?: readonly string[];
  /** A subagent's tools (s06, a2). */
  subagent?: readonly string[];
}

export const CURRICULUM_TOOLS = {
  s01: { lead: ["bash"] },
  s02: { lead: BASE },
  s03: { lead: [...BASE, "todo"] },
  s04: { lead: [...BASE, "load_skill"] },
  s05: { lead: [...BASE, "compact"] },
  s06: { lead: [...BASE, "task"], subagent: BASE },
  s07: { lead: BASE },
  s08: { lead: BASE },
  s09: { lead: [...BASE, "save_memory"] },
  s10: { lead: [...BASE, ...BOARD] },
  s11: { lead: [...BASE, "background_run", "check_background"] },
  s12: { lead: [...BASE, ...BOARD, ...LANES] },
  s13: { lead: TEAM_LEAD, teammate: TEAMMATE },
  s14: { lead: TEAM_LEAD, teammate: TEAMMATE },
  s15: {
    lead: [...TEAM_LEAD, ...PROTOCOL_LEAD],
    teammate: [...TEAMMATE, ...PROTOCOL_TEAMMATE],
  },
  /** Before its servers start: s07's tools; each server's tools follow as mcp__<server>__<tool>. */
  a1: { lead: BASE },
  a4: { lead: BASE },
  a2: {
    lead: [
      ...BASE,
      ...["todo", "load_skill", "compact", "task", "save_memory"],
      ...BOARD,
      ...["background_run", "check_background"],
      ...LANES,
      ...["spawn", "send", "inbox"],
      ...PROTOCOL_LEAD,
    ],
    teammate: [...TEAMMATE, ...PROTOCOL_TEAMMATE],
    subagent: BASE,
  },
  /** s02's five with a strict edit, and apply_patch. */
  a3: { lead: [...BASE, "apply_patch"] },
  a5: { lead: BASE },
  /** a5's five; the judge model is offered only its verdict tool. */
  a7: { lead: BASE },
} satisfies Record<string, ToolLists>;
