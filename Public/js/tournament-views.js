// The tournament's pieces on a phone, shared by the spectator page and the organiser's tab: a
// group's table, the bracket, a list of results, a match's "where and when" line. A team's name
// is a link to following it (`/?team=ID`) where `linkTeams` is set.

import { h } from "./dom.js";
import { TEXT } from "./tournament-text.js";
import { delayText, fateClass, knockoutRounds, pitchName, sideName, stageText, teamById, timeText } from "./tournament.js";

const COLUMNS = ["played", "won", "drawn", "lost", "goalDifference", "points"];

export function teamLink(tournament, teamId, linkTeams, fallback = TEXT.unknownTeam) {
  const team = teamById(tournament, teamId);
  if (!team) return fallback;
  return linkTeams ? h("a", { href: `/?team=${team.id}`, class: "team-link", dataset: { team: team.id } }, team.name) : team.name;
}

/** A group's table, first to last; a place is marked only once certain, the followed team bold. */
export function groupTable(tournament, group, { linkTeams = false, highlight = null } = {}) {
  return h("table", { class: "standings group-table", dataset: { group: group.name } },
    h("caption", {}, TEXT.group(group.name)),
    h("thead", {}, h("tr", {},
      h("th", { scope: "col" }, TEXT.table.team),
      COLUMNS.map((key) => h("th", { scope: "col", class: "num" }, h("abbr", { title: TEXT.tableFull[key] }, TEXT.table[key]))))),
    h("tbody", {}, group.table.map((row, index) => h("tr", {
      class: [fateClass(row), row.team === highlight ? "followed" : ""].filter(Boolean).join(" ") || null,
      dataset: { team: row.team } },
    h("th", { scope: "row" }, h("span", { class: "rank" }, `${index + 1}.`), " ", teamLink(tournament, row.team, linkTeams),
      row.qualified || row.eliminated ? h("span", { class: "visually-hidden" }, ` (${row.qualified ? TEXT.through : TEXT.out})`) : null),
    COLUMNS.map((key) => h("td", {}, key === "goalDifference" && row[key] > 0 ? `+${row[key]}` : row[key]))))));
}

/** "Pitch 2 · 14:30 · running 7 min late" (a scheduled match), "Pitch 2 · Live", or when it was played. */
export function whereAndWhen(state, match) {
  const parts = [pitchName(state, match.pitch)];
  if (match.status === "live") parts.push(TEXT.live);
  else {
    parts.push(timeText(match.expectedAt));
    if (match.status === "scheduled" && delayText(match)) parts.push(delayText(match));
  }
  return parts.join(" · ");
}

/** One match as a line: "Group A · Reds 2–1 Blues", its where and when under it. */
export function matchItem(state, tournament, match, { linkTeams = false, extra = null } = {}) {
  const side = (key) => teamLink(tournament, match[key], linkTeams, sideName(tournament, match, key));
  const score = match.score ? `${match.score.home}–${match.score.away}` : TEXT.versus;
  const penalties = match.penalties ? ` ${TEXT.penalties(match.penalties.home, match.penalties.away)}` : "";
  return h("li", { class: "tmatch", dataset: { match: match.id, status: match.status } },
    h("span", { class: "tmatch-stage" }, `${TEXT.matchNumber(match.id)} · ${stageText(match)}`),
    h("span", { class: "tmatch-teams" }, side("home"), ` ${score} `, side("away"), penalties),
    h("small", { class: "tmatch-when" }, whereAndWhen(state, match)),
    extra);
}

export function resultsList(state, tournament, matches, options = {}) {
  const finished = matches.filter((match) => match.status === "finished").sort((a, b) => b.expectedAt - a.expectedAt || b.id - a.id);
  return h("ul", { class: "tmatches results-list" }, finished.length
    ? finished.map((match) => matchItem(state, tournament, match, options))
    : h("li", { class: "empty" }, TEXT.noResults));
}

/**
 * The knockout, round by round; the champion above it once the final is played. `heading` is the
 * rounds' heading level (under the page's own headings).
 */
export function bracket(state, tournament, options = {}, heading = "h4") {
  const champion = teamById(tournament, tournament.champion);
  return h("div", { class: "bracket" },
    champion ? h("p", { class: "champion-line" }, TEXT.championIs(champion.name)) : null,
    knockoutRounds(tournament).map((round) => h("section", { class: "bracket-round", dataset: { stage: round.stage } },
      h(heading, {}, TEXT.stages[round.stage]),
      h("ol", { class: "tmatches" }, round.matches.map((match) => matchItem(state, tournament, match, options))))));
}

