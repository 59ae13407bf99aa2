// Which files a "yes" to a hooks or MCP config covers. Found by the independent attacker: a
// guard script named through an input redirection or from $PWD was not covered, so the model
// rewrote it and the trusted hook ran the new one without a question.
import { describe, expect, it } from "vitest";
import { scriptWords } from "../../chapters/_shared/trust.ts";

describe("the trust covers the scripts a command runs, however it names them", () => {
  it("an input redirection and a $PWD path name the script; output redirections do not", () => {
    expect(scriptWords("sh < hooks/guard.sh")).toEqual(["hooks/guard.sh"]);
    expect(scriptWords("sh <hooks/guard.sh")).toEqual(["hooks/guard.sh"]);
    expect(scriptWords('sh "$PWD"/hooks/guard.sh')).toEqual(["hooks/guard.sh"]);
    expect(scriptWords("sh ${PWD}/hooks/guard.sh")).toEqual(["hooks/guard.sh"]);
    expect(scriptWords("sh hooks/check.sh >> logs/hooks.log 2>&1")).toEqual(["hooks/check.sh"]);
    expect(scriptWords("node lint.js --fix $FILE")).toEqual(["lint.js"]);
  });
});
