// What a screen reader hears: goals, their scorers and full time, in a polite live region, never
// the clock's seconds (the clock itself sits outside any live region). What changed comes from
// pitch-watch.js, the same changes the projector celebrates.

import { t } from "./i18n.js";
import { $ } from "./dom.js";
import { nameOf } from "./format.js";
import { playersById } from "./state.js";
import { PitchWatch } from "./pitch-watch.js";

export class Announcer {
  constructor(selector = "#announcer") {
    this.region = $(selector);
    this.heard = [];
    this.watch = new PitchWatch((change) => this.heard.push(change));
  }

  /** A page that shows several pitches says which one (`namePitches`). */
  update(state, pitchIds, { namePitches = false } = {}) {
    this.heard = [];
    this.watch.update(state, pitchIds);
    const byId = playersById(state);
    const spoken = this.heard.map((change) => {
      const { pitch, gather } = change;
      const line = `${gather.teams.A.name} ${gather.score.A}, ${gather.teams.B.name} ${gather.score.B}`;
      return `${namePitches ? `${pitch.name}: ` : ""}${sentences(change, byId).join(" ")} ${line}`;
    });
    if (spoken.length) this.say(spoken.join(" "));
  }

  say(text) {
    if (this.region) this.region.textContent = text;
  }
}

function sentences({ scoreChange, namedScorers, fullTime, teams }, byId) {
  const said = [];
  for (const team of ["A", "B"]) {
    if (scoreChange[team] > 0) said.push(t("page.say_goal", { team: teams[team].name }));
    if (scoreChange[team] < 0) said.push(t("page.say_goal_cancelled", { team: teams[team].name }));
  }
  for (const playerId of namedScorers) said.push(t("page.say_scored", { name: nameOf(playerId, byId) }));
  if (fullTime) said.push(`${t("page.full_time")}.`);
  return said;
}
