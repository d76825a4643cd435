// "Full time" as every page shows it: a pitch's `lastResult` (the last gather that ended there,
// kept until the next gather on that pitch) in words — score, winner, scorers.

import { t, lang } from "./i18n.js";
import { h } from "./dom.js";
import { minuteText, nameOf, winnerWords } from "./format.js";

/** The result to show in place of the match, or null while a gather is on (or none ended). */
export function fullTimeOf(pitch) {
  return pitch && !pitch.gather && pitch.lastResult ? pitch.lastResult : null;
}

export function winnerText(result) {
  return winnerWords(result);
}

export function scoreText(result) {
  return `${result.teams.A.name} ${result.teams.A.score} – ${result.teams.B.score} ${result.teams.B.name}`;
}

/** Names as they were that evening when history still has them, else today's roster. */
export function resultNames(result, state, byId) {
  const known = new Map(byId);
  const entry = ((state && state.history) || []).find((candidate) => candidate.id === result.historyId);
  if (entry) for (const side of ["A", "B"]) for (const player of entry.teams[side].players) known.set(player.id, player);
  return known;
}

/** "12' Ann (Whites)" per goal, in order; a goal nobody was named for goes by its team. */
export function goalLines(result, names) {
  return (result.goals || []).map((goal) => {
    const who = goal.playerId === null || goal.playerId === undefined ? result.teams[goal.team].name
      : `${nameOf(goal.playerId, names)}${goal.assistId === null || goal.assistId === undefined ? "" : ` (${t("page.assist_by", { name: nameOf(goal.assistId, names) })})`}`;
    return `${minuteText(goal.matchMs)} ${who}`.trim();
  });
}

/**
 * "Ann 2, Cid" — each scorer once (with a count past one), for a line read from across a hall;
 * goals nobody was named for go by their team.
 */
export function scorerNames(result, names) {
  const counts = new Map();
  for (const goal of result.goals || []) {
    const who = goal.playerId === null || goal.playerId === undefined ? result.teams[goal.team].name : nameOf(goal.playerId, names);
    counts.set(who, (counts.get(who) || 0) + 1);
  }
  return [...counts].map(([who, count]) => (count > 1 ? `${who} ${count}` : who));
}

/** The plain-text summary Share sends beside the image. */
export function summaryText(result, pitchName, names, venue = "") {
  const goals = goalLines(result, names);
  return [`${t("page.full_time")}${pitchName ? ` · ${pitchName}` : ""}: ${scoreText(result)}. ${winnerText(result)}.`,
    goals.length ? `${t("page.goals_list", { goals: goals.join(", ") })}.` : t("page.no_goals"),
    [new Date(result.endedAt).toLocaleDateString(lang, { dateStyle: "medium" }), venue].filter(Boolean).join(" · ")].join("\n");
}

/** The card body pages put in place of the match: winner and the list of goals. */
export function fullTimeDetails(result, names) {
  const goals = goalLines(result, names);
  return [
    h("p", { class: "ft-winner" }, winnerText(result)),
    goals.length ? h("ol", { class: "ft-goals" }, goals.map((line) => h("li", {}, line)))
      : h("p", { class: "ft-goals empty" }, t("page.no_goals")),
  ];
}
