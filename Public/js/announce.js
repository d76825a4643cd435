// What a screen reader hears: goals, their scorers and full time, in a polite live region, never
// the clock's seconds (the clock itself sits outside any live region).

import { $ } from "./dom.js";
import { nameOf } from "./format.js";
import { pitchById, playersById } from "./state.js";

export class Announcer {
  constructor(selector = "#announcer") {
    this.region = $(selector);
    this.last = new Map(); // pitch id -> summary of the gather last seen there
  }

  /// Compares the pitches this page shows with the state seen before; a pitch seen for the first
  /// time (page opened, another pitch chosen, a new gather) is shown, not announced. A page that
  /// shows several pitches says which one (`namePitches`).
  update(state, pitchIds, { namePitches = false } = {}) {
    const byId = playersById(state);
    const seen = new Map();
    const spoken = [];
    for (const id of pitchIds) {
      const pitch = pitchById(state, id);
      const gather = pitch && pitch.gather;
      const now = gather ? summary(gather) : null;
      seen.set(id, now);
      const before = this.last.get(id);
      if (!gather || !before || before.id !== now.id) continue;
      const sentences = changes(before, now, gather, byId);
      if (!sentences.length) continue;
      const line = `${gather.teams.A.name} ${gather.score.A}, ${gather.teams.B.name} ${gather.score.B}`;
      spoken.push(`${namePitches ? `${pitch.name}: ` : ""}${sentences.join(" ")} ${line}`);
    }
    this.last = seen;
    if (spoken.length) this.say(spoken.join(" "));
  }

  say(text) {
    if (this.region) this.region.textContent = text;
  }
}

function summary(gather) {
  const scorers = new Map();
  for (const event of gather.events) if (event.kind === "goal" && !event.cancelled) scorers.set(event.seq, event.playerId ?? null);
  return { id: gather.id, score: { ...gather.score }, finished: gather.timer.status === "finished", scorers };
}

function changes(before, now, gather, byId) {
  const sentences = [];
  for (const team of ["A", "B"]) {
    const change = now.score[team] - before.score[team];
    if (change > 0) sentences.push(`Goal for ${gather.teams[team].name}.`);
    if (change < 0) sentences.push(`Goal cancelled for ${gather.teams[team].name}.`);
  }
  for (const [seq, playerId] of now.scorers) {
    if (playerId !== null && before.scorers.get(seq) !== playerId) sentences.push(`${nameOf(playerId, byId)} scored.`);
  }
  if (now.finished && !before.finished) sentences.push("Full time.");
  return sentences;
}
