// s04's exercises: the checks pass on the answers, fail on the stub and on these wrong answers.
import { exerciseSuite, swap, both } from "../support/exercises.ts";

exerciseSuite("s04", {
  s04: {
    "puts each body in the index": {
      skills: both(
        swap(
          "const { name, description } = parseSkill(readInside(root, file), folder);",
          "const { name, description, body } = parseSkill(readInside(root, file), folder);",
        ),
        swap(
          "index.skills.push({ name, description, file });",
          "index.skills.push({ name, description: `${description}\\n${body}`, file });",
        ),
      ),
    },
    "takes a plain file in skills/ for a skill folder": {
      skills: swap(
        `listFolderInside(root, SKILLS_DIR)
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)`,
        `listFolderInside(root, SKILLS_DIR)
      .map((entry) => entry.name)`,
      ),
    },
    "lists a broken skill anyway": {
      skills: swap(
        "      index.problems.push({ folder, reason: (err as Error).message });",
        "      index.skills.push({ name: folder, description: (err as Error).message, file });",
      ),
    },
    "offers every folder for an unknown name, broken ones too": {
      load: swap(
        'const available = index.skills.map((s) => s.name).join(", ")',
        'const available = [...index.skills.map((s) => s.name), ...index.problems.map((p) => p.folder)].sort().join(", ")',
      ),
    },
    "one broken skill stops the scan": {
      skills: swap(
        "      index.problems.push({ folder, reason: (err as Error).message });",
        "      throw err;",
      ),
    },
    "an unknown name does not say which skills there are": {
      load: swap(
        'throw new Error(`unknown skill "${String(name)}". Available skills: ${available}`);',
        'throw new Error(`unknown skill "${String(name)}"`);',
      ),
    },
    "keeps a body once it has been loaded": {
      load: both(
        swap(
          "/** The body is read from disk only now",
          "const LOADED: Record<string, { body: string }> = {};\n\n/** The body is read from disk only now",
        ),
        swap(
          "const { body } = parseSkill(readInside(root, skill.file), skill.name);",
          "const { body } = (LOADED[skill.file] ??= parseSkill(readInside(root, skill.file), skill.name));",
        ),
      ),
    },
  },
  "s04.2": {
    "shows the size of the whole file, not of the body": {
      agent: swap(
        "bodies += tokens(body);\n            return `${s.name}: ${s.description} (body ~${tokens(body)} tokens)`;",
        "const file = readInside(env.workspace, s.file);\n            bodies += tokens(body);\n            return `${s.name}: ${s.description} (body ~${tokens(file)} tokens)`;",
      ),
    },
    "shows the sizes but not the saving": {
      agent: swap("~${bodies - index} saved per request", "~${bodies - index} in all"),
    },
  },
});
