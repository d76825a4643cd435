// Small pure helpers shared by the pages, in the page's language (i18n.js).

import { t, dateTimeText, timeText } from "./i18n.js";

/** MM:SS, rounding up so 00:00 appears only when time is really up (as the app did). */
export function clock(ms) {
  if (ms === null || ms === undefined) return "--:--";
  const total = Math.max(0, Math.ceil(ms / 1000));
  const minutes = Math.floor(total / 60);
  const seconds = total % 60;
  return `${String(minutes).padStart(2, "0")}:${String(seconds).padStart(2, "0")}`;
}

/** A history entry carries its players' names; the active gather only ids. */
export function names(ids, byId) {
  return ids.map((id) => nameOf(id, byId));
}

export function nameOf(id, byId) {
  return (byId.get(id) || { name: `#${id}` }).name;
}

/** "Ann (assist Bob)", "Ann", or "" while nobody is named; `withAssist: false` for small spaces. */
export function scorerText(goal, byId, withAssist = true) {
  if (goal.playerId === null || goal.playerId === undefined) return "";
  const assist = !withAssist || goal.assistId === null || goal.assistId === undefined ? "" : ` (${t("page.assist_by", { name: nameOf(goal.assistId, byId) })})`;
  return nameOf(goal.playerId, byId) + assist;
}

export function minuteText(matchMs) {
  return typeof matchMs === "number" ? `${Math.floor(matchMs / 60000) + 1}'` : "";
}

/** "Last goal 12': Ann", for a card with room for one line. */
export function lastGoalText(goal, gather, byId) {
  if (!goal) return "";
  const minute = minuteText(goal.matchMs);
  return t("page.last_goal", { minute, who: scorerText(goal, byId, false) || gather.teams[goal.team].name }).replace("  ", " ");
}

/**
 * The projector's goal flash: "Goal! Ann · Reds", or "Goal! Reds" while nobody is named. The
 * scorer alone, without the assist: more would not read from across a hall.
 */
export function flashText(goal, gather, byId) {
  const team = gather.teams[goal.team].name;
  const scorer = scorerText(goal, byId, false);
  return scorer ? t("page.goal_flash_scorer", { scorer, team }) : t("page.goal_flash", { team });
}

/**
 * "5 games · 3W 1D 1L · 4 goals": a player's record in words a phone has room for.
 * (No-break spaces inside each part: a narrow screen breaks the line between parts only.)
 */
export function recordText(stats) {
  const nb = (text) => text.replace(/ /g, "\u00a0");
  if (!stats || !stats.games) return nb(t("page.no_games_yet"));
  return [nb(t("page.games", { count: stats.games })), nb(t("page.record_wdl", stats)),
    nb(t("page.goals_count", { count: stats.goals }))].join(" · ");
}

export function capitalise(text) {
  return text ? text[0].toUpperCase() + text.slice(1) : "";
}

/** One line of a timeline. `byId` names scorers; `withOrganiser` adds who pressed the button. */
export function eventText(event, gather, byId = new Map(), withOrganiser = true) {
  const team = event.team ? gather.teams[event.team].name : "";
  const minute = minuteText(event.matchMs);
  const by = event.by && withOrganiser ? ` · ${event.by}` : "";
  switch (event.kind) {
    case "goal": {
      const scorer = scorerText(event, byId);
      return `${minute} ${t("page.event_goal", { team })}${scorer ? ` — ${scorer}` : ""}${event.cancelled ? ` (${t("page.cancelled")})` : ""}${by}`;
    }
    case "goalCancelled": return `${minute} ${t("page.event_goal_cancelled", { team })}${event.undone ? ` (${t("page.undone")})` : ""}${by}`;
    case "goalRestored": return `${minute} ${t("page.event_goal_restored", { team })}${by}`;
    case "kickoff": return `${t("page.kick_off")}${by}`;
    case "timerSet": return `${t("page.event_timer_set")}${by}`;
    case "timerStarted": return `${t("page.event_timer_started")}${by}`;
    case "timerPaused": return `${t("page.event_timer_paused")}${by}`;
    case "timerReset": return `${t("page.event_timer_reset")}${by}`;
    case "fullTime": return t("page.full_time");
    case "teamsBalanced": return `${t("page.event_teams_balanced", { difference: event.difference })}${by}`;
    default: return event.kind;
  }
}

/**
 * The scorers of a finished gather: "12' Ann, 30' Bob (assist Cid), 41' Reds" (minute first, as
 * in the timeline; a goal nobody was named for goes by its team's name).
 */
export function historyGoalsText(entry, byId) {
  const known = new Map(byId); // the names they had that evening win over today's
  for (const team of ["A", "B"]) for (const player of entry.teams[team].players) known.set(player.id, player);
  return (entry.goals || []).map((goal) => {
    const who = goal.playerId === null || goal.playerId === undefined ? entry.teams[goal.team].name : scorerText(goal, known);
    return `${minuteText(goal.matchMs)} ${who}`.trim();
  }).join(", ");
}

/** Who won a history entry or a pitch's last result: "Draw" only when no shoot-out decided it;
 *  a shoot-out's winner with its score, the winner's first ("Olympique on penalties 4–3"). */
export function winnerWords(result) {
  if (result.winner === "draw") return t("page.draw");
  const team = result.teams[result.winner].name;
  const shootOut = result.penalties;
  if (!shootOut) return t("page.team_won", { team });
  const loser = result.winner === "A" ? "B" : "A";
  return t("page.won_on_penalties", { team, won: shootOut[result.winner], lost: shootOut[loser] });
}

export function resultText(entry) {
  return `${entry.teams.A.name} ${entry.score.A} – ${entry.score.B} ${entry.teams.B.name} · ${winnerWords(entry)}`;
}

export function dateText(epochMs) {
  return dateTimeText(epochMs);
}

export const statusText = {
  connecting: t("page.connecting", {}, "Connecting…"),
  live: t("page.live", {}, "Live"),
  reconnecting: t("page.reconnecting", {}, "Reconnecting…"),
  delayed: t("page.delayed", {}, "Delayed"),
};

/** "12 watching", or with a relay's followers beyond the Wi-Fi "312 watching (290 remotely)". */
export function watchingText(presence) {
  const remote = Number.isInteger(presence.remote) && presence.remote > 0 ? presence.remote : 0;
  const total = presence.spectators + remote;
  return remote ? t("page.watching_remote", { count: total, remote }) : t("page.watching", { count: total });
}

/** What a relay's page says while the relay hears nothing from the venue. */
export function linkLostText(since) {
  const at = new Date(since);
  if (Number.isNaN(at.getTime())) return t("page.link_lost");
  return t("server.link_lost", { time: timeText(at) });
}
