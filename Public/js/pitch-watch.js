// What changed on each pitch a page shows since its last state: goals given or cancelled,
// scorers named (organisers press +1 at once and name the scorer a moment later), the newest
// goal, full time. The screen reader's announcements and the projector's goal flash both read
// these changes. The first sight of a pitch's gather (page opened, another pitch chosen, a new
// gather) is shown, not reported.

import { goalsOf, latestGoal, pitchById } from "./state.js";

/** How long a projector shows "Goal! <scorer>" for the newest goal. */
export const FLASH_MS = 8000;

export class PitchWatch {
  /**
   * `onChange({ pitch, gather, scoreChange, namedScorers, newestGoal, fullTime })` for each shown
   * pitch where something changed; `newestGoal` is the goal to celebrate, or null.
   */
  constructor(onChange) {
    this.onChange = onChange;
    this.last = new Map(); // pitch id -> summary of the gather last seen there
  }

  update(state, pitchIds) {
    const seen = new Map();
    const changes = [];
    for (const id of pitchIds) {
      const pitch = pitchById(state, id);
      const gather = pitch && pitch.gather;
      if (!gather) continue;
      const now = summary(gather);
      seen.set(id, now);
      const before = this.last.get(id);
      if (!before || before.id !== now.id) continue;
      const change = compare(before, now, gather);
      if (change) changes.push({ pitch, gather, ...change });
    }
    this.last = seen;
    for (const change of changes) this.onChange(change);
  }
}

function summary(gather) {
  const scorers = new Map();
  for (const goal of goalsOf(gather)) if (!goal.cancelled) scorers.set(goal.seq, goal.playerId ?? null);
  const newest = latestGoal(gather);
  return {
    id: gather.id,
    score: { ...gather.score },
    finished: gather.timer.status === "finished",
    scorers,
    newest: newest ? { seq: newest.seq, key: `${newest.seq}:${newest.playerId}:${newest.assistId}`, goal: newest } : null,
  };
}

/** null when nothing worth telling changed. */
function compare(before, now, gather) {
  const scoreChange = { A: now.score.A - before.score.A, B: now.score.B - before.score.B };
  const namedScorers = [];
  for (const [seq, playerId] of now.scorers) {
    if (playerId !== null && before.scorers.get(seq) !== playerId) namedScorers.push(playerId);
  }
  // A goal cancelled makes an older one the newest: nothing to celebrate.
  const newestGoal = now.newest && (!before.newest || (now.newest.key !== before.newest.key && now.newest.seq >= before.newest.seq))
    ? now.newest.goal : null;
  const fullTime = now.finished && !before.finished;
  if (!scoreChange.A && !scoreChange.B && !namedScorers.length && !newestGoal && !fullTime) return null;
  return { scoreChange, namedScorers, newestGoal, fullTime, teams: gather.teams };
}
