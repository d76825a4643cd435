// The tournament on the spectator page: the tables, the bracket and every result, each team's name
// a link to following it; and, at `/?team=ID`, that team's card on top: its next match (where,
// when, how late), its results, its group's table, "Add to calendar".

import { $, h, replace, replaceFor } from "./dom.js";
import { TEXT } from "./tournament-text.js";
import { calendarLink, groupOf, matchesOf, nextMatchOf, pitchName, requestedTeam, sideName, stageText, teamById } from "./tournament.js";
import { bracket, groupTable, resultsList, whereAndWhen } from "./tournament-views.js";

const LINKS = { linkTeams: true };

export class SpectatorTournament {
  constructor() {
    this.team = requestedTeam();
  }

  render(state) {
    const tournament = state.tournament;
    $("#tournament").hidden = !tournament;
    $("#tournament-follow").hidden = !tournament || !this.team;
    if (!tournament) return;
    const champion = teamById(tournament, tournament.champion);
    $("#tournament-title").textContent = tournament.name;
    $("#tournament-phase").textContent = champion ? TEXT.championIs(champion.name) : TEXT.phases[tournament.phase] || "";
    replaceFor($("#tournament-tables"), [tournament.groups, tournament.teams],
      () => tournament.groups.map((group) => groupTable(tournament, group, LINKS)));
    replaceFor($("#tournament-bracket"), [tournament.matches, tournament.teams, state.pitches], () => bracket(state, tournament, LINKS));
    replaceFor($("#tournament-results"), [tournament.matches, tournament.teams, state.pitches],
      () => resultsList(state, tournament, tournament.matches, LINKS));
    replaceFor($("#tournament-teams"), [tournament.teams], () => tournament.teams.map((team) =>
      h("li", {}, h("a", { href: `/?team=${team.id}`, class: "team-link" }, team.name))));
    if (this.team) this.renderFollowed(state, tournament);
  }

  renderFollowed(state, tournament) {
    const team = teamById(tournament, this.team);
    const card = $("#tournament-follow");
    if (!team) {
      replace(card, h("p", {}, TEXT.unknownFollowed), h("p", {}, h("a", { href: "/", class: "tap" }, TEXT.stopFollowing)));
      return;
    }
    const next = nextMatchOf(tournament, team.id);
    const group = groupOf(tournament, team.id);
    const pitch = next && (state.pitches.find((candidate) => candidate.id === next.pitch) || {});
    const gather = next && next.status === "live" && pitch ? pitch.gather : null;
    replace(card,
      h("h2", { id: "follow-title" }, TEXT.following(team.name)),
      h("section", { class: "follow-next", "aria-labelledby": "follow-next-title" },
        h("h3", { id: "follow-next-title" }, next && next.status === "live" ? TEXT.playingNow : TEXT.nextMatch),
        next ? this.nextMatch(state, tournament, next, gather) : h("p", {}, TEXT.noMoreMatches)),
      h("p", { class: "links" }, h("a", { id: "follow-calendar", href: calendarLink(team.id) }, TEXT.addToCalendar), " · ",
        h("a", { href: "/" }, TEXT.stopFollowing)),
      h("h3", {}, TEXT.results),
      resultsList(state, tournament, matchesOf(tournament, team.id), LINKS),
      group ? groupTable(tournament, group, { ...LINKS, highlight: team.id }) : null);
  }

  nextMatch(state, tournament, match, gather) {
    const home = sideName(tournament, match, "home"), away = sideName(tournament, match, "away");
    const score = gather ? ` ${gather.score.A}–${gather.score.B} ` : ` ${TEXT.versus} `;
    return h("div", { id: "follow-next", dataset: { match: match.id } },
      h("p", { class: "follow-teams" }, home, score, away),
      h("p", { class: "follow-where" }, h("strong", {}, pitchName(state, match.pitch)), ` · ${stageText(match)}`),
      h("p", { class: "follow-when" }, whereAndWhen(state, match).split(" · ").slice(1).join(" · ")));
  }
}
