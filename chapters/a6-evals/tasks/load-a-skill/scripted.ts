// The scripted model loads the release skill when the harness lists skills (load_skill);
// otherwise it looks around the workspace and reads the skill file it finds.
import { say, use } from "../../../_shared/scripted.ts";
import type { TaskScript } from "../../tasks.ts";

const STEPS = [
  use("read", { path: "package.json" }, "Reading what the skill says to change."),
  use("read", { path: "CHANGELOG.md" }),
  use("edit", {
    path: "package.json",
    old_text: '"version": "1.0.0"',
    new_text: '"version": "1.1.0"',
  }),
  use("edit", {
    path: "CHANGELOG.md",
    old_text: "# Changelog\n",
    new_text: "# Changelog\n\n## 1.1.0\n- release 1.1.0\n",
  }),
  use("write", { path: "RELEASE", content: "1.1.0\n" }),
  say("Released 1.1.0 as the release skill says."),
];

export default ((tools) => ({
  lead: tools.has("load_skill")
    ? [use("load_skill", { name: "release" }, "There is a release skill; loading it."), ...STEPS]
    : [
        use("glob", { pattern: "**/*.md" }, "How does this project release? Looking around."),
        ({ lastResult }) =>
          /skills\/release\/SKILL\.md/.test(lastResult())
            ? use("read", { path: "skills/release/SKILL.md" })
            : use("read", { path: "README.md" }),
        ...STEPS,
      ],
})) satisfies TaskScript;
