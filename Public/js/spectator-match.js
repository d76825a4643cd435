// The spectator page's view of one pitch: score, clock, line-ups and the goals with their scorers.

import { t } from "./i18n.js";
import { $, h, replace, setText } from "./dom.js";
import { clock, names, eventText } from "./format.js";
import { pitchById, playersById } from "./state.js";
import { asOfText, isDelayed, shownRemainingMs } from "./link-delay.js";
import { fullTimeOf, goalLines, resultNames, winnerText } from "./full-time.js";
import { paintKits } from "./kit.js";
import { isTournamentPitch } from "./tournament.js";

const phaseText = { setup: t("page.picking_line_up"), live: t("page.live") };
const TIMELINE = new Set(["goal", "goalCancelled", "goalRestored", "fullTime"]);

/** `named`: the venue has several pitches, so the heading says which one this is. */
export function renderMatch(state, pitchId, named) {
  const pitch = pitchById(state, pitchId);
  const gather = pitch && pitch.gather;
  const title = $("#match-title");
  title.textContent = pitch ? pitch.name : t("page.match");
  title.className = named ? "match-title" : "visually-hidden";
  // Without a gather there are no line-ups or goals to show: the last result ("Full time")
  // until the next gather, else only the empty score.
  const result = fullTimeOf(pitch);
  $("#goals-card").hidden = !gather && !result;
  $("#teams-card").hidden = !gather;
  $("#clock").hidden = !!result;
  paintKits($("#single"), (gather || result || {}).teams);
  if (result) {
    const names = resultNames(result, state, playersById(state));
    $("#phase").textContent = t("page.full_time");
    for (const team of ["A", "B"]) {
      const low = team.toLowerCase();
      $(`#team-${low}-name`).textContent = result.teams[team].name;
      $(`#score-${low}`).textContent = result.teams[team].score;
    }
    $("#goals-title").textContent = t("page.full_time");
    const goals = goalLines(result, names);
    replace($("#goals"), [h("li", { class: "ft-winner" }, winnerText(result)),
      ...(goals.length ? goals.map((line) => h("li", { class: "goal" }, line)) : [h("li", { class: "empty" }, t("page.no_goals"))])]);
    return;
  }
  $("#goals-title").textContent = t("page.goals");
  if (!gather) {
    // A pitch of the tournament being played waits for its next match, not for a weekly gather.
    $("#phase").textContent = !pitch ? t("page.no_such_pitch")
      : isTournamentPitch(state, pitchId) ? t("page.no_tournament_match_now") : t("page.no_match_now");
    for (const id of ["#score-a", "#score-b"]) $(id).textContent = "0";
    for (const [id, name] of [["#team-a-name", t("page.team_a")], ["#team-b-name", t("page.team_b")], ["#list-a-title", t("page.team_a")], ["#list-b-title", t("page.team_b")]]) $(id).textContent = name;
    replace($("#list-a")); replace($("#list-b")); replace($("#goals"));
    return;
  }
  const byId = playersById(state);
  const finished = gather.timer.status === "finished";
  const paused = gather.phase === "live" && gather.timer.status === "paused";
  $("#phase").textContent = finished ? t("page.full_time") : paused ? t("page.paused")
    : isDelayed() && gather.phase === "live" ? t("page.delayed") : phaseText[gather.phase] || gather.phase;
  for (const team of ["A", "B"]) {
    const low = team.toLowerCase();
    $(`#team-${low}-name`).textContent = gather.teams[team].name;
    $(`#list-${low}-title`).textContent = gather.teams[team].name;
    $(`#score-${low}`).textContent = gather.score[team];
    replace($(`#list-${low}`), names(gather.teams[team].players, byId).map((name) => h("li", {}, name)));
  }
  const lines = gather.events.filter((event) => TIMELINE.has(event.kind));
  replace($("#goals"), lines.length
    ? lines.map((event) => h("li", { class: event.cancelled ? "goal cancelled" : event.kind, dataset: { seq: event.seq } },
      eventText(event, gather, byId, false)))
    : [h("li", { class: "empty" }, t("page.no_goals_yet"))]);
}

export function renderMatchClock(live, pitchId) {
  const gather = (pitchById(live.state, pitchId) || {}).gather;
  const timer = gather && gather.timer;
  const element = $("#clock");
  setText(element, clock(shownRemainingMs(live, timer)));
  element.dataset.status = timer ? timer.status : "none";
  const asOf = asOfText();
  $("#as-of").hidden = !asOf;
  $("#as-of").textContent = asOf;
}
