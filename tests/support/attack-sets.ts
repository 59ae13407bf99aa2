// Attack inputs that the README counts: kept here so the test that uses them and the README figure
// check (tests/repo/readme-figures.test.ts) read one list.

/** Secret-bearing variables a harness's environment may hold: none may reach a command. */
export const SECRET_VARIABLES = {
  ANTHROPIC_API_KEY: "sk-ant-secret",
  ANTHROPIC_AUTH_TOKEN: "tok",
  GITHUB_TOKEN: "gh1",
  MY_PASSWORD: "pw1",
  DATABASE_URL: "postgres://u:pw2@db/x",
  MYSQL_PWD: "pw3",
  SENTRY_DSN: "https://k@sentry/1",
  GH_PAT: "ghp_x",
  DOCKER_PASS: "pw4",
  AWS_SECRET_ACCESS_KEY: "aws1",
  NPM_CONFIG__AUTH: "npm1",
  // LC_* is how variables are smuggled through SSH's AcceptEnv (found by the attacker).
  LC_SECRET: "sk-lc-smuggled",
};
