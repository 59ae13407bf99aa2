// The labels a player carries in its page's language: the legend of its symbols, the speeds, and
// what its script needs for the state and code panels. One place for the chapter players
// (Player.astro) and the player a learner's recording is shown in (OpenRecording.astro).
import type { Translate } from "./player";
import type { PanelId } from "./run-state";

export const SPEEDS = [0.5, 1, 2, 4];

const PANELS: PanelId[] = [
  "todos",
  "skills",
  "permissions",
  "hooks",
  "memory",
  "tasks",
  "jobs",
  "lanes",
  "roster",
  "recovery",
  "requests",
  "files",
  "checkpoints",
  "sessions",
  "goal",
];

export function playerLabels(t: Translate) {
  const legend = [
    ["you ›", t("player.legend.user")],
    ["→", t("player.legend.request")],
    ["←", t("player.legend.response")],
    ["⚙", t("player.legend.call")],
    ["↳", t("player.legend.result")],
    ["✗", t("player.legend.error")],
    ["◆", t("player.legend.note")],
    ["◇", t("player.legend.event")],
  ];
  const stateLabels = Object.fromEntries(
    PANELS.map((p) => [p, { title: t(`state.${p}`), cols: t(`state.${p}.cols`).split("|") }]),
  );
  const codeLabels = {
    from: t("player.codeFrom", { chapter: "{chapter}", region: "{region}" }),
    imported: t("player.codeImported", { chapter: "{chapter}" }),
    none: t("player.codeNone"),
    loading: t("player.codeLoading"),
  };
  return { legend, stateLabels, codeLabels };
}
