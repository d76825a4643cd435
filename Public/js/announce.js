// What a screen reader hears: goals and full time, in a polite live region, never the clock's
// seconds (the clock itself sits outside any live region).

import { $ } from "./dom.js";

export class Announcer {
  constructor(selector = "#announcer") {
    this.region = $(selector);
    this.last = null; // { id, score, finished } of the gather last seen
  }

  /// Compares with the state seen before; the first state (page opened, reconnected to another
  /// gather) is shown, not announced.
  update(state) {
    const gather = state && state.gather;
    const now = gather ? { id: gather.id, score: { ...gather.score }, finished: gather.timer.status === "finished" } : null;
    const before = this.last;
    this.last = now;
    if (!gather || !before || before.id !== now.id) return;
    const line = `${gather.teams.A.name} ${gather.score.A}, ${gather.teams.B.name} ${gather.score.B}`;
    const sentences = [];
    for (const team of ["A", "B"]) {
      const change = now.score[team] - before.score[team];
      if (change > 0) sentences.push(`Goal for ${gather.teams[team].name}.`);
      if (change < 0) sentences.push(`Goal cancelled for ${gather.teams[team].name}.`);
    }
    if (now.finished && !before.finished) sentences.push("Full time.");
    if (sentences.length) this.say(`${sentences.join(" ")} ${line}`);
  }

  say(text) {
    if (this.region) this.region.textContent = text;
  }
}
