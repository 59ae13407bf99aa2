// The offline demo for s09. Prompt 1 states a preference and the model saves it as a memory.
// Prompt 2 asks for code; the scripted turn looks at the real system prompt it was sent and
// follows the memory only if it is there. Run the chapter again without --reset: the new
// session starts with the memory in its very first system prompt.
import { say, use } from "../_shared/scripted.ts";
import type { Scenario, TurnContext } from "../_shared/types.ts";

const NAME = "JSDoc on exports";
/** Did the harness put our memory into the system prompt of this very request? */
const remembers = ({ request }: TurnContext) => String(request.system ?? "").includes(`## ${NAME}`);

const PLAIN =
  'export const slugify = (text) =>\n  text.toLowerCase().trim().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "");\n';
const DOCUMENTED =
  '/**\n * Turns a title into a URL slug: lower case, words joined by "-".\n' +
  " * @param {string} text\n * @returns {string}\n */\n" +
  PLAIN;

export default {
  summary:
    "the model saves a user preference as a memory; the next round's system prompt (and the next session's) carries it",
  prompts: [
    "Please remember: every exported function you write for me needs a JSDoc comment.",
    "Write src/slugify.js with a slugify(text) function.",
  ],
  script: {
    lead: [
      (ctx) =>
        use(
          "save_memory",
          {
            name: NAME,
            description: "The user wants a JSDoc comment above every exported function",
            type: "feedback",
            content:
              "Put a JSDoc comment (what it does, @param, @returns) above every exported function.\n" +
              "Why: the user asked for it explicitly; it applies to all code written for them.",
          },
          remembers(ctx)
            ? "That is already in my memory from an earlier session (it is in my system prompt). Saving it again updates it in place."
            : "Saving that as a feedback memory, so it holds in later sessions too.",
        ),
      say(
        "Noted. From the next step on — and in future sessions — every exported function gets a JSDoc comment.",
      ),
      (ctx) =>
        remembers(ctx)
          ? use(
              "write",
              { path: "src/slugify.js", content: DOCUMENTED },
              "My memory says every export gets a JSDoc comment:",
            )
          : use("write", { path: "src/slugify.js", content: PLAIN }),
      use("bash", {
        command:
          "node -e \"import('./src/slugify.js').then(m => console.log(m.slugify('Hello Memory World')))\"",
      }),
      (ctx) =>
        say(
          `Done: src/slugify.js is written${remembers(ctx) ? ", with the JSDoc comment my memory asks for" : ""}, ` +
            `and slugify('Hello Memory World') gives "${ctx.lastResult()}".`,
        ),
    ],
  },
} satisfies Scenario;
