// Notices, per pitch, a new goal and a scorer named for the newest goal (organisers press +1 at
// once and name the scorer a moment later), so a big screen can show "Goal! Ann" for a while.

import { gatherOn, latestGoal } from "./state.js";

export const FLASH_MS = 8000;

export class GoalWatch {
  constructor(onGoal) {
    this.onGoal = onGoal;  // (pitchId, goal, gather)
    this.seen = new Map(); // pitch id -> { gatherId, seq, key } of the newest goal seen there
  }

  /// The first sight of a pitch's gather (page opened, new gather) is shown, not celebrated.
  update(state, pitchIds) {
    const seen = new Map();
    for (const id of pitchIds) {
      const gather = gatherOn(state, id);
      if (!gather) continue;
      const goal = latestGoal(gather);
      const now = { gatherId: gather.id, seq: goal ? goal.seq : 0, key: goal ? `${goal.seq}:${goal.playerId}:${goal.assistId}` : "" };
      seen.set(id, now);
      const before = this.seen.get(id);
      // A goal cancelled makes an older one the newest: nothing to celebrate.
      if (before && before.gatherId === now.gatherId && goal && now.key !== before.key && now.seq >= before.seq) {
        this.onGoal(id, goal, gather);
      }
    }
    this.seen = seen;
  }
}
