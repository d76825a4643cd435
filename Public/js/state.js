// Questions the pages ask of a gather.v2 state: which pitch, whose gather, who scored.

export function pitchById(state, id) {
  return ((state && state.pitches) || []).find((pitch) => pitch.id === id) || null;
}

export function gatherOn(state, pitchId) {
  const pitch = pitchById(state, pitchId);
  return pitch ? pitch.gather : null;
}

/** Pitches with a gather (line-up or match), in id order. */
export function busyPitches(state) {
  return ((state && state.pitches) || []).filter((pitch) => pitch.gather);
}

/** Pitches with something to show: a gather, or the full time of the last one (until the next). */
export function shownPitches(state) {
  return ((state && state.pitches) || []).filter((pitch) => pitch.gather || pitch.lastResult);
}

/** The pitch a page was opened for: `?pitch=N` (a number), `?pitch=all`, or null without one. */
export function requestedPitch(search = location.search) {
  const value = new URLSearchParams(search).get("pitch");
  if (value === "all") return "all";
  const id = Number(value);
  return value !== null && Number.isInteger(id) && id > 0 ? id : null;
}

export function playersById(state) {
  const map = new Map();
  for (const player of (state && state.players) || []) map.set(player.id, player);
  return map;
}

/** The id of every player the gather holds (bench and both teams). */
export function membersOf(gather) {
  return gather ? [...gather.bench, ...gather.teams.A.players, ...gather.teams.B.players] : [];
}

/** Player id → the pitch whose gather holds them. */
export function pitchOfPlayers(state) {
  const map = new Map();
  for (const pitch of busyPitches(state)) for (const id of membersOf(pitch.gather)) map.set(id, pitch);
  return map;
}

export function goalsOf(gather) {
  return gather ? gather.events.filter((event) => event.kind === "goal") : [];
}

/** The newest goal not cancelled, or null. */
export function latestGoal(gather) {
  const goals = goalsOf(gather).filter((goal) => !goal.cancelled);
  return goals.length ? goals[goals.length - 1] : null;
}

export function ratingSum(ids, byId) {
  return ids.reduce((sum, id) => sum + ((byId.get(id) || {}).rating || 0), 0);
}
