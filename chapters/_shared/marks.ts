// How a piece of work's status looks on one line: the same marks in s03's plan and s10's board
// (the site's player shows them too, from the `todos` and `task` events these chapters record).
export type WorkStatus = "pending" | "in_progress" | "completed";

export const MARKS: Record<WorkStatus, string> = {
  pending: "[ ]",
  in_progress: "[>]",
  completed: "[x]",
};
