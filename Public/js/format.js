// Small pure helpers shared by the pages.

/// MM:SS, rounding up so 00:00 appears only when time is really up (as the app did).
export function clock(ms) {
  if (ms === null || ms === undefined) return "--:--";
  const total = Math.max(0, Math.ceil(ms / 1000));
  const minutes = Math.floor(total / 60);
  const seconds = total % 60;
  return `${String(minutes).padStart(2, "0")}:${String(seconds).padStart(2, "0")}`;
}

/// A history entry carries its players' names; the active gather only ids.
export function names(ids, byId) {
  return ids.map((id) => nameOf(id, byId));
}

export function nameOf(id, byId) {
  return (byId.get(id) || { name: `#${id}` }).name;
}

/// "Ann (assist Bob)", "Ann", or "" while nobody is named; `withAssist: false` for small spaces.
export function scorerText(goal, byId, withAssist = true) {
  if (goal.playerId === null || goal.playerId === undefined) return "";
  const assist = !withAssist || goal.assistId === null || goal.assistId === undefined ? "" : ` (assist ${nameOf(goal.assistId, byId)})`;
  return nameOf(goal.playerId, byId) + assist;
}

export function minuteText(matchMs) {
  return typeof matchMs === "number" ? `${Math.floor(matchMs / 60000) + 1}'` : "";
}

/// "Last goal 12': Ann", for a card with room for one line.
export function lastGoalText(goal, gather, byId) {
  if (!goal) return "";
  const minute = minuteText(goal.matchMs);
  return `Last goal${minute ? ` ${minute}` : ""}: ${scorerText(goal, byId, false) || gather.teams[goal.team].name}`;
}

/// The projector's goal flash: "Goal! Ann · Reds", or "Goal! Reds" while nobody is named. The
/// scorer alone, without the assist: more would not read from across a hall.
export function flashText(goal, gather, byId) {
  const team = gather.teams[goal.team].name;
  const scorer = scorerText(goal, byId, false);
  return scorer ? `Goal! ${scorer} · ${team}` : `Goal! ${team}`;
}

/// "5 games · 3W 1D 1L · 4 goals": a player's record in words a phone has room for.
/// (No-break spaces inside each part: a narrow screen breaks the line between parts only.)
export function recordText(stats) {
  if (!stats || !stats.games) return "No\u00a0games\u00a0yet";
  return [`${stats.games}\u00a0game${stats.games === 1 ? "" : "s"}`, `${stats.wins}W\u00a0${stats.draws}D\u00a0${stats.losses}L`,
    `${stats.goals}\u00a0goal${stats.goals === 1 ? "" : "s"}`].join(" · ");
}

export function capitalise(text) {
  return text ? text[0].toUpperCase() + text.slice(1) : "";
}

/// One line of a timeline. `byId` names scorers; `withOrganiser` adds who pressed the button.
export function eventText(event, gather, byId = new Map(), withOrganiser = true) {
  const team = event.team ? gather.teams[event.team].name : "";
  const minute = minuteText(event.matchMs);
  const by = event.by && withOrganiser ? ` · ${event.by}` : "";
  switch (event.kind) {
    case "goal": {
      const scorer = scorerText(event, byId);
      return `${minute} Goal ${team}${scorer ? ` — ${scorer}` : ""}${event.cancelled ? " (cancelled)" : ""}${by}`;
    }
    case "goalCancelled": return `${minute} Goal cancelled ${team}${event.undone ? " (undone)" : ""}${by}`;
    case "goalRestored": return `${minute} Goal brought back ${team}${by}`;
    case "kickoff": return `Kick-off${by}`;
    case "timerSet": return `Timer set${by}`;
    case "timerStarted": return `Timer started${by}`;
    case "timerPaused": return `Timer paused${by}`;
    case "timerReset": return `Timer reset${by}`;
    case "fullTime": return "Full time";
    case "teamsBalanced": return `Teams balanced, rating difference ${event.difference}${by}`;
    default: return event.kind;
  }
}

/// The scorers of a finished gather: "12' Ann, 30' Bob (assist Cid), 41' Reds" (minute first, as
/// in the timeline; a goal nobody was named for goes by its team's name).
export function historyGoalsText(entry, byId) {
  const known = new Map(byId); // the names they had that evening win over today's
  for (const team of ["A", "B"]) for (const player of entry.teams[team].players) known.set(player.id, player);
  return (entry.goals || []).map((goal) => {
    const who = goal.playerId === null || goal.playerId === undefined ? entry.teams[goal.team].name : scorerText(goal, known);
    return `${minuteText(goal.matchMs)} ${who}`.trim();
  }).join(", ");
}

export function resultText(entry) {
  const winner = entry.winner === "draw" ? "Draw" : `${entry.teams[entry.winner].name} won`;
  return `${entry.teams.A.name} ${entry.score.A} – ${entry.score.B} ${entry.teams.B.name} · ${winner}`;
}

export function dateText(epochMs) {
  return new Date(epochMs).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

export const statusText = {
  connecting: "Connecting…",
  live: "Live",
  reconnecting: "Reconnecting…",
  delayed: "Delayed",
};

/// "12 watching", or with a relay's followers beyond the Wi-Fi "312 watching (290 remotely)".
export function watchingText(presence) {
  const remote = Number.isInteger(presence.remote) && presence.remote > 0 ? presence.remote : 0;
  const total = presence.spectators + remote;
  return remote ? `${total} watching (${remote} remotely)` : `${total} watching`;
}

/// What a relay's page says while the relay hears nothing from the venue.
export function linkLostText(since) {
  const at = new Date(since);
  const time = Number.isNaN(at.getTime()) ? "" : ` at ${String(at.getHours()).padStart(2, "0")}:${String(at.getMinutes()).padStart(2, "0")}`;
  return `Connection to the pitch lost${time}`;
}
