// Small pure helpers shared by the pages.

/// MM:SS, rounding up so 00:00 appears only when time is really up (as the app did).
export function clock(ms) {
  if (ms === null || ms === undefined) return "--:--";
  const total = Math.max(0, Math.ceil(ms / 1000));
  const minutes = Math.floor(total / 60);
  const seconds = total % 60;
  return `${String(minutes).padStart(2, "0")}:${String(seconds).padStart(2, "0")}`;
}

export function playersById(state) {
  const map = new Map();
  for (const player of (state && state.players) || []) map.set(player.id, player);
  return map;
}

/// A history entry carries its players' names; the active gather only ids.
export function names(ids, byId) {
  return ids.map((id) => (byId.get(id) || { name: `#${id}` }).name);
}

export function capitalise(text) {
  return text ? text[0].toUpperCase() + text.slice(1) : "";
}

export function eventText(event, gather) {
  const team = event.team ? gather.teams[event.team].name : "";
  const minute = typeof event.matchMs === "number" ? `${Math.floor(event.matchMs / 60000) + 1}'` : "";
  const by = event.by ? ` · ${event.by}` : "";
  switch (event.kind) {
    case "goal": return `${minute} Goal ${team}${by}`;
    case "goalCancelled": return `${minute} Goal cancelled ${team}${by}`;
    case "kickoff": return `Kick-off${by}`;
    case "timerSet": return `Timer set${by}`;
    case "timerStarted": return `Timer started${by}`;
    case "timerPaused": return `Timer paused${by}`;
    case "timerReset": return `Timer reset${by}`;
    case "fullTime": return "Full time";
    default: return event.kind;
  }
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
};
