// What every page asks of the state's `tournament` (docs/PROTOCOL.md §17): names of teams and
// places, a team's matches, a pitch's current and next match, how late a match is running.
// Pure functions over the state; the words are in tournament-text.js.

import { timeText as clockText } from "./i18n.js";
import { TEXT } from "./tournament-text.js";

export function teamById(tournament, id) {
  return (tournament && tournament.teams.find((team) => team.id === id)) || null;
}

export function matchById(tournament, id) {
  return (tournament && tournament.matches.find((match) => match.id === id)) || null;
}

/** "A1" (group A's first), "W5" (match 5's winner), "L9": in words a spectator understands. */
export function placeText(label) {
  if (!label) return TEXT.unknownTeam;
  const number = label.slice(1);
  if (label[0] === "W") return TEXT.winnerOf(number);
  if (label[0] === "L") return TEXT.loserOf(number);
  return TEXT.groupPlace(label[0], Number(number));
}

/** The team's name, or where the place comes from while it is not known. */
export function sideName(tournament, match, side) {
  const team = teamById(tournament, match[side]);
  return team ? team.name : placeText(match[`${side}From`]);
}

export function stageText(match) {
  return match.stage === "group" ? TEXT.group(match.group) : TEXT.stages[match.stage] || match.stage;
}

/** "Reds 2–1 Blues", with "(4–3 pens)" after a level knockout match. */
export function scoreText(tournament, match) {
  const home = sideName(tournament, match, "home");
  const away = sideName(tournament, match, "away");
  if (!match.score) return `${home} ${TEXT.versus} ${away}`;
  const penalties = match.penalties ? ` ${TEXT.penalties(match.penalties.home, match.penalties.away)}` : "";
  return `${home} ${match.score.home}–${match.score.away} ${away}${penalties}`;
}

/** Minutes a scheduled match starts after its planned time (0 when on time or early). */
export function delayMinutes(match) {
  return Math.max(0, Math.round((match.expectedAt - match.plannedAt) / 60000));
}

/** "running 7 min late", or "" on time. */
export function delayText(match) {
  const minutes = delayMinutes(match);
  return minutes > 0 ? TEXT.late(minutes) : "";
}

/** "14:30" in the page's language. */
export function timeText(epochMs) {
  return clockText(new Date(epochMs));
}

export function pitchName(state, id) {
  const pitch = ((state && state.pitches) || []).find((candidate) => candidate.id === id);
  return pitch ? pitch.name : TEXT.pitchNumber(id);
}

export function matchesOf(tournament, teamId) {
  return tournament ? tournament.matches.filter((match) => match.home === teamId || match.away === teamId) : [];
}

/** The team's match being played, else its next one (by expected start), else null. */
export function nextMatchOf(tournament, teamId) {
  const open = matchesOf(tournament, teamId).filter((match) => match.status !== "finished");
  const live = open.find((match) => match.status === "live");
  return live || open.sort((a, b) => a.expectedAt - b.expectedAt || a.id - b.id)[0] || null;
}

/** The group a team plays in, or null. */
export function groupOf(tournament, teamId) {
  return (tournament && tournament.groups.find((group) => group.teams.includes(teamId))) || null;
}

/** Per pitch of the tournament: its live match (or null) and its next scheduled one (or null). */
export function pitchLines(tournament) {
  if (!tournament) return [];
  return tournament.rules.pitches.map((pitch) => {
    const onPitch = tournament.matches.filter((match) => match.pitch === pitch);
    const live = onPitch.find((match) => match.status === "live") || null;
    const next = onPitch.filter((match) => match.status === "scheduled")
      .sort((a, b) => a.expectedAt - b.expectedAt || a.id - b.id)[0] || null;
    return { pitch, live, next };
  });
}

/** The knockout rounds in order, each { stage, matches }. */
export function knockoutRounds(tournament) {
  const rounds = [];
  for (const match of (tournament ? tournament.matches : []).filter((candidate) => candidate.stage !== "group")) {
    let round = rounds.find((candidate) => candidate.stage === match.stage);
    if (!round) rounds.push(round = { stage: match.stage, matches: [] });
    round.matches.push(match);
  }
  return rounds;
}

/** The team a page follows: `?team=N` (a whole number) or null. */
export function requestedTeam(search = location.search) {
  const value = new URLSearchParams(search).get("team");
  const id = Number(value);
  return value !== null && Number.isInteger(id) && id > 0 ? id : null;
}

/**
 * The calendar feed of one team (or the whole schedule): `webcal:` where the platform hands it to
 * the calendar app (iOS, macOS), the https/http address elsewhere (Android opens it as a file).
 */
export function calendarLink(teamId, where = location, agent = navigator.userAgent) {
  const path = `/api/tournament.ics${teamId ? `?team=${teamId}` : ""}`;
  const webcal = /iPhone|iPad|Macintosh/.test(agent) && !/Android/.test(agent);
  return webcal ? `webcal://${where.host}${path}` : path;
}

/** The class a table row's certain fate gives it: "through" once `qualified`, "out" once `eliminated`, none before. */
export function fateClass(row) {
  return row.qualified ? "through" : row.eliminated ? "out" : "";
}

/** Whether the tournament being played (not finished) uses this pitch: its empty moments then wait for a match, not a gather. */
export function isTournamentPitch(state, pitchId) {
  const tournament = state && state.tournament;
  return !!tournament && tournament.phase !== "finished" && tournament.rules.pitches.includes(pitchId);
}

/** Whether a tournament is being played at the venue (not finished). */
export function tournamentRunning(state) {
  const tournament = state && state.tournament;
  return !!tournament && tournament.phase !== "finished";
}
