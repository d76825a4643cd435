// The spectator page without `?pitch`, at a venue with several matches: one small live card per
// pitch (teams, score, clock, the last scorer), each leading to that pitch's page.

import { t } from "./i18n.js";
import { $, h, replace, setText } from "./dom.js";
import { clock, lastGoalText } from "./format.js";
import { latestGoal, pitchById, playersById } from "./state.js";
import { fullTimeOf, goalLines, resultNames, winnerText } from "./full-time.js";
import { paintKits } from "./kit.js";
import { asOfText, isDelayed, shownRemainingMs } from "./link-delay.js";

export function renderCards(state, pitchIds) {
  const byId = playersById(state);
  replace($("#pitch-cards"), pitchIds.map((id) => card(pitchById(state, id), byId, state)));
}

function card(pitch, byId, state) {
  const result = fullTimeOf(pitch);
  if (result) return fullTimeCard(pitch, result, resultNames(result, state, byId));
  const gather = pitch.gather;
  const goal = latestGoal(gather);
  const phase = gather.phase === "setup" ? t("page.picking_line_up")
    : gather.timer.status === "finished" ? t("page.full_time") : gather.timer.status === "paused" ? t("page.paused")
      : isDelayed() ? t("page.delayed") : t("page.live");
  const element = h("li", { class: "card pitch-card", dataset: { pitch: pitch.id } },
    h("h3", {}, h("a", { href: `/?pitch=${pitch.id}`, class: "stretched" }, pitch.name)),
    h("p", { class: "phase" }, phase),
    h("p", { class: "score-line" },
      h("span", { class: "team-name kit-a" }, gather.teams.A.name),
      h("span", { class: "score" }, h("span", { class: "score-a" }, gather.score.A), h("span", { class: "dash" }, "–"),
        h("span", { class: "score-b" }, gather.score.B)),
      h("span", { class: "team-name kit-b" }, gather.teams.B.name)),
    h("p", { class: "clock", dataset: { clockPitch: pitch.id } }, "--:--"),
    h("p", { class: "as-of", hidden: !asOfText() }, asOfText()),
    h("p", { class: "last-goal" }, goal ? lastGoalText(goal, gather, byId) : t("page.no_goals_yet")));
  paintKits(element, gather.teams);
  return element;
}

/** A pitch whose gather ended: its result stays up until the next gather there. */
function fullTimeCard(pitch, result, names) {
  const goals = goalLines(result, names);
  const element = h("li", { class: "card pitch-card", dataset: { pitch: pitch.id, fullTime: "true" } },
    h("h3", {}, h("a", { href: `/?pitch=${pitch.id}`, class: "stretched" }, pitch.name)),
    h("p", { class: "phase" }, `${t("page.full_time")} · ${winnerText(result)}`),
    h("p", { class: "score-line" },
      h("span", { class: "team-name kit-a" }, result.teams.A.name),
      h("span", { class: "score" }, h("span", { class: "score-a" }, result.teams.A.score), h("span", { class: "dash" }, "–"),
        h("span", { class: "score-b" }, result.teams.B.score)),
      h("span", { class: "team-name kit-b" }, result.teams.B.name)),
    h("p", { class: "last-goal" }, goals.length ? t("page.goals_list", { goals: goals.join(", ") }) : t("page.no_goals")));
  paintKits(element, result.teams);
  return element;
}

export function renderCardClocks(live) {
  for (const element of document.querySelectorAll("#pitch-cards [data-clock-pitch]")) {
    const pitch = pitchById(live.state, Number(element.dataset.clockPitch));
    const timer = pitch && pitch.gather && pitch.gather.timer;
    setText(element, clock(shownRemainingMs(live, timer)));
    element.dataset.status = timer ? timer.status : "none";
  }
}
