// Which files a "yes" to a hooks or MCP config covers. Found by the independent attackers: a
// guard script named through an input redirection or from $PWD was not covered, nor one run by a
// name with no `/` or extension (`sh lint`), nor the makefile `make` reads by itself — the model
// rewrote them and the trusted hook ran the new one without a question.
import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { argvScripts, scriptWords } from "../../chapters/_shared/trust.ts";

describe("the trust covers the scripts a command runs, however it names them", () => {
  it("an input redirection and a $PWD path name the script; output redirections do not", () => {
    expect(scriptWords("sh < hooks/guard.sh")).toEqual(["hooks/guard.sh"]);
    expect(scriptWords("sh <hooks/guard.sh")).toEqual(["hooks/guard.sh"]);
    expect(scriptWords('sh "$PWD"/hooks/guard.sh')).toEqual(["hooks/guard.sh"]);
    expect(scriptWords("sh ${PWD}/hooks/guard.sh")).toEqual(["hooks/guard.sh"]);
    expect(scriptWords("sh hooks/check.sh >> logs/hooks.log 2>&1")).toEqual(["hooks/check.sh"]);
    expect(scriptWords("node lint.js --fix $FILE")).toEqual(["lint.js"]);
  });

  const plainName = fc.stringMatching(/^[a-z][a-z0-9_]{0,8}$/);
  test.prop(
    [
      fc.constantFrom("sh", "bash", "/bin/sh", "node", "python3", "ruby", "perl", "source", "."),
      fc.subarray(["-e", "-u", "-x"]),
      plainName,
      fc.constantFrom("", "true && ", "echo start; ", "env X=1 ", "nice -n 5 ", "exec "),
    ],
    { seed: 32 },
  )(
    "the file a program that runs files is given, with no / or extension (sh lint)",
    (program, options, name, before) => {
      expect(scriptWords(`${before}${[program, ...options, name].join(" ")} arg`)).toContain(name);
      const argv = [...before.split(" ").filter((w) => /^(env|nice|exec|X=1|-n|5)$/.test(w))];
      expect(argvScripts([...argv, program, ...options, name, "arg"])).toContain(name);
    },
  );

  it("the makefile make reads and the package.json npm reads, unnamed", () => {
    expect(scriptWords("make -s check")).toEqual(expect.arrayContaining(["Makefile", "makefile"]));
    expect(scriptWords("npm run lint")).toContain("package.json");
    expect(scriptWords("make -f build.mk -C sub check")).toEqual(
      expect.arrayContaining(["build.mk", "sub/Makefile"]),
    );
  });

  it("not the files a hook makes itself (a fingerprint over them would change at every run)", () => {
    expect(scriptWords("touch done && mkdir -p logs")).toEqual([]);
  });
});
