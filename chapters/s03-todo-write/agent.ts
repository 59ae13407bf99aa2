/**
 * s03 · Planning with todo
 *
 * On a task of more than a few steps a model drifts: it forgets the step it meant to take next,
 * does one twice, or stops before the end. The fix is small. Give it a `todo` tool so its plan is
 * written down where both of you can see it, and let the harness notice when the plan goes stale:
 * after three rounds of work without an update, a reminder rides along with the next tool results.
 * Tools: the five base tools of s02 plus `todo`. The loop is the loop of s02 plus one counter.
 */
import {
  BASE_HANDLERS,
  BASE_TOOLS,
  normalizeMessages,
  runTool,
  type ToolHandler,
} from "../s02-tool-use/agent.ts";
import { MARKS } from "../_shared/marks.ts";
import type {
  Agent,
  AgentEnv,
  ContentBlockParam,
  IO,
  MessageParam,
  Tool,
} from "../_shared/types.ts";

const SYSTEM = `You are a coding agent working in a scratch workspace. Use your tools to inspect and
change files: read before you edit, prefer edit over rewriting whole files. Paths are relative to
the workspace.
For any task with more than two steps, first write a plan with the todo tool. Keep exactly one item
in_progress while you work on it, and mark items completed as soon as they are done.
When the task is done, say so briefly.`;

// #region todo
export type TodoStatus = "pending" | "in_progress" | "completed";
export interface TodoItem {
  id: string;
  text: string;
  status: TodoStatus;
}

export const MAX_TODOS = 20;
const STATUSES: readonly TodoStatus[] = ["pending", "in_progress", "completed"];

/** The model's plan. Every `todo` call sends the whole list; it replaces the old list only if it
 *  is valid, so a bad update becomes an error result and the previous plan stays as it was. */
export class TodoList {
  private items: TodoItem[] = [];

  get current(): readonly TodoItem[] {
    return this.items;
  }

  update(input: Record<string, unknown>): string {
    const refuse = (why: string) => new Error(`${why}. The previous plan is unchanged.`);
    const raw = input.items;
    if (!Array.isArray(raw)) throw refuse("items must be an array of {id?, text, status}");
    if (raw.length > MAX_TODOS)
      throw refuse(`${raw.length} items is too many: keep the plan to ${MAX_TODOS} or fewer`);
    const next = raw.map((item, i) => {
      const { id, text, status } = (item ?? {}) as Record<string, unknown>;
      if (typeof text !== "string" || !text.trim())
        throw refuse(`item ${i + 1}: text must be a non-empty string`);
      if (!STATUSES.includes(status as TodoStatus))
        throw refuse(`item ${i + 1}: status must be ${STATUSES.join(", ")}`);
      return {
        id: id === undefined ? String(i + 1) : String(id),
        text: text.trim(),
        status: status as TodoStatus,
      };
    });
    const active = next.filter((t) => t.status === "in_progress");
    // One thing at a time: a plan with two current steps is a plan the model has lost track of.
    if (active.length > 1) {
      throw refuse(
        `only one item may be in_progress, got ${active.length} (${active.map((t) => `#${t.id}`).join(", ")})`,
      );
    }
    if (new Set(next.map((t) => t.id)).size !== next.length)
      throw refuse("item ids must be unique");
    this.items = next;
    return this.render();
  }

  render(): string {
    if (this.items.length === 0) return "(no plan yet)";
    const done = this.items.filter((t) => t.status === "completed").length;
    const lines = this.items.map((t) => `${MARKS[t.status]} #${t.id} ${t.text}`);
    return [...lines, `(${done}/${this.items.length} completed)`].join("\n");
  }
}

export const TODO_TOOL: Tool = {
  name: "todo",
  description:
    "Replace your plan with this list of items. status is pending, in_progress (at most one item) " +
    `or completed. At most ${MAX_TODOS} items. Returns the plan as it now stands.`,
  input_schema: {
    type: "object",
    properties: {
      items: {
        type: "array",
        items: {
          type: "object",
          properties: {
            id: { type: "string" },
            text: { type: "string" },
            status: { type: "string", enum: [...STATUSES] },
          },
          required: ["text", "status"],
        },
      },
    },
    required: ["items"],
  },
};

export const TOOLS: Tool[] = [...BASE_TOOLS, TODO_TOOL];

/** The todo tool's handler: the plan updated, and reported to the trace as it now stands (the
 *  site's player shows it). A refused update reports nothing: the plan did not change. */
export function todoHandler(todos: TodoList, io: Pick<IO, "event">): ToolHandler {
  return (input) => {
    const answer = todos.update(input);
    io.event("todos", { items: todos.current.map(({ status, text }) => ({ status, text })) });
    return answer;
  };
}
// #endregion todo

// #region reminder
/** After this many rounds without a `todo` call, the harness nudges the model. */
export const REMIND_AFTER = 3;
export const REMINDER =
  `<reminder>You have not updated your todo list for ${REMIND_AFTER} rounds. Mark what you finished as ` +
  "completed and what you are doing now as in_progress (or write a plan if you have none).</reminder>";

/** The harness's side of planning: the plan, and how many rounds it has gone untouched. */
export interface Planning {
  todos: TodoList;
  roundsWithoutTodo: number;
}

/** Called once per round (one model reply with tool calls). Returns the reminder when it is due. */
export function reminderDue(planning: Planning, calledTodo: boolean): string | undefined {
  // Any todo call resets the count, even a rejected one: the model is looking at its plan.
  planning.roundsWithoutTodo = calledTodo ? 0 : planning.roundsWithoutTodo + 1;
  if (planning.roundsWithoutTodo < REMIND_AFTER) return undefined;
  planning.roundsWithoutTodo = 0;
  return REMINDER;
}
// #endregion reminder

// #region loop
export async function agentLoop(
  env: AgentEnv,
  messages: MessageParam[],
  planning: Planning,
): Promise<void> {
  const handlers: Record<string, ToolHandler> = {
    ...BASE_HANDLERS,
    todo: todoHandler(planning.todos, env.io),
  };
  for (;;) {
    const response = await env.model.messages.create({
      model: env.modelId,
      system: SYSTEM,
      messages: normalizeMessages(messages),
      tools: TOOLS,
      max_tokens: 8000,
    });
    messages.push({ role: "assistant", content: response.content });
    env.io.assistant(response);
    if (response.stop_reason !== "tool_use") return;

    const content: ContentBlockParam[] = [];
    let calledTodo = false;
    for (const block of response.content) {
      if (block.type !== "tool_use") continue;
      await env.io.toolCall(block);
      const { output, isError } = await runTool(
        handlers,
        block,
        { root: env.workspace, sandbox: env.sandbox },
        TOOLS,
      );
      env.io.toolResult(block, output, isError);
      content.push({
        type: "tool_result",
        tool_use_id: block.id,
        content: output,
        is_error: isError,
      });
      if (block.name === "todo") calledTodo = true;
    }
    // The reminder is a text block after the results, in the same user message: the model reads
    // it right where it looks next, and the history stays a valid user/assistant alternation.
    const reminder = reminderDue(planning, calledTodo);
    if (reminder) {
      content.push({ type: "text", text: reminder });
      env.io.note(`reminder injected: ${REMIND_AFTER} rounds without a todo update`);
    }
    messages.push({ role: "user", content });
  }
}
// #endregion loop

export function createAgent(env: AgentEnv): Agent {
  const messages: MessageParam[] = [];
  const planning: Planning = { todos: new TodoList(), roundsWithoutTodo: 0 };
  return {
    messages,
    commands: {
      "/todos": { help: "show the model's current plan", run: () => planning.todos.render() },
    },
    async send(prompt) {
      messages.push({ role: "user", content: prompt });
      await agentLoop(env, messages, planning);
    },
  };
}
