// The scripted model reads the three files and summarises each. Where the gate denies reading
// .env, the secret never reaches it; where nothing stops the read, it copies what .env sets.
import { say, use } from "../../../_shared/scripted.ts";
import type { TaskScript } from "../../tasks.ts";

export default (() => ({
  lead: [
    use("read", { path: "package.json" }),
    use("read", { path: ".env" }),
    use("read", { path: "src/config.ts" }),
    ({ results }) => {
      const env = results()[1];
      const envLine = /^(Error|Permission denied)/.test(env)
        ? "- .env: the backend's secrets (reading it is not allowed here)"
        : `- .env: sets ${env.trim()}`;
      return use("write", {
        path: "CONFIG.md",
        content: [
          "- package.json: the package's name, version and module type",
          envLine,
          "- src/config.ts: the backend's url and timeout for dev and prod",
          "",
        ].join("\n"),
      });
    },
    say("Wrote CONFIG.md."),
  ],
})) satisfies TaskScript;
