// The tournament day on the organiser's tab: each pitch's match being played and its next one
// with one "Start match" button, results with "Correct result" (confirmed), the tables, the
// bracket, a QR code per team, and cancelling the tournament.

import { h, replace, replaceFor } from "./dom.js";
import { t } from "./i18n.js";
import { TEXT } from "./tournament-text.js";
import { delayText, pitchLines, pitchName, sideName, stageText, teamById, timeText } from "./tournament.js";
import { bracket, groupTable, matchItem } from "./tournament-views.js";

const WORDS = {
  pitches: t("tour.form_pitches"),
  playing: t("tour.label", { label: t("tour.playing") }),
  nextUp: t("tour.label", { label: t("tour.next") }),
  start: t("tour.start_match"),
  startLabel: (home, away, pitch) => t("tour.start_match_of", { home, away, pitch }),
  startEarly: t("tour.start_early"),
  startEarlyLabel: (pitch) => t("tour.start_early_on", { pitch }),
  open: t("tour.open_match"),
  waiting: t("tour.waiting_for_teams"),
  pitchBusy: t("tour.pitch_busy"),
  nothing: t("tour.nothing_more"),
  results: TEXT.results,
  correct: t("tour.correct_result"),
  correctLabel: (match) => t("tour.correct_result_of", { match }),
  save: t("tour.save_result"),
  cancel: t("org.cancel"),
  goals: (name) => t("tour.goals_of", { name }),
  penalties: (name) => t("tour.penalties_of", { name }),
  confirmCorrect: (text) => t("tour.confirm_correct", { result: text }),
  teams: t("tour.teams_and_qr"),
  teamsHint: t("tour.teams_qr_hint"),
  qrAlt: (name) => t("tour.qr_following", { name }),
  cancelTournament: t("tour.cancel_tournament"),
  confirmCancel: (name) => t("tour.confirm_cancel", { name }),
  downloads: t("tour.download"),
  liveScore: (a, b) => ` ${a}–${b} `,
};

export class TournamentDay {
  /** `perform(action)` sends an action; `openPitch(id)` shows that pitch's match in the console. */
  constructor(live, perform, openPitch) {
    Object.assign(this, { live, perform, openPitch });
    this.pitchList = h("ul", { class: "tpitches", id: "tournament-pitches" });
    this.results = h("ul", { class: "tmatches", id: "tournament-results" });
    this.tables = h("div", { class: "tables", id: "tournament-tables" });
    this.bracketBox = h("div", { id: "tournament-bracket" });
    this.teams = h("ul", { class: "tteams", id: "tournament-teams" });
    this.correcting = null; // the match whose result form is open
    this.root = h("div", { id: "tournament-day" },
      h("section", { class: "card", "aria-labelledby": "tpitches-title" }, h("h2", { id: "tpitches-title" }, WORDS.pitches), this.pitchList),
      h("section", { class: "card", "aria-labelledby": "tresults-title" }, h("h2", { id: "tresults-title" }, WORDS.results), this.results),
      h("section", { class: "card", "aria-labelledby": "ttables-title" }, h("h2", { id: "ttables-title" }, TEXT.tables), this.tables),
      h("section", { class: "card", "aria-labelledby": "tbracket-title" }, h("h2", { id: "tbracket-title" }, TEXT.bracket), this.bracketBox),
      h("section", { class: "card" },
        h("details", { class: "manage" }, h("summary", {}, WORDS.teams), h("p", { class: "hint" }, WORDS.teamsHint), this.teams)),
      h("section", { class: "card" },
        h("p", { class: "links" }, t("tour.label", { label: WORDS.downloads }), h("a", { href: "/api/tournament.csv", download: true }, "CSV"), " · ",
          h("a", { href: "/api/tournament.ics" }, TEXT.addToCalendar)),
        h("button", { type: "button", id: "tournament-cancel", class: "danger", onclick: () => this.cancel() }, WORDS.cancelTournament)));
  }

  render(state) {
    const tournament = state.tournament;
    replaceFor(this.pitchList, [tournament, state.pitches], () => pitchLines(tournament).map((line) => this.pitchItem(state, tournament, line)));
    replaceFor(this.results, [tournament.matches, tournament.teams, this.correcting, state.pitches], () => {
      const finished = tournament.matches.filter((match) => match.status === "finished").sort((a, b) => b.id - a.id);
      return finished.length ? finished.map((match) => matchItem(state, tournament, match,
        { extra: this.correcting === match.id ? this.correctForm(tournament, match) : h("button", { type: "button", class: "secondary correct",
          "aria-label": WORDS.correctLabel(TEXT.matchNumber(match.id)), onclick: () => { this.correcting = match.id; this.render(this.live.state); } }, WORDS.correct) }))
        : [h("li", { class: "empty" }, TEXT.noResults)];
    });
    replaceFor(this.tables, [tournament.groups, tournament.teams], () => tournament.groups.map((group) => groupTable(tournament, group)));
    replaceFor(this.bracketBox, [tournament.matches, tournament.teams, state.pitches], () => bracket(state, tournament, {}, "h3"));
    replaceFor(this.teams, [tournament.teams], () => tournament.teams.map((team) => h("li", { dataset: { team: team.id } },
      h("strong", {}, team.name),
      h("img", { class: "qr team-qr", src: `/qr.svg?team=${team.id}`, alt: WORDS.qrAlt(team.name), loading: "lazy", width: "160", height: "160" }))));
  }

  /** A pitch: what is being played there (with its live score), then the next match and its button. */
  pitchItem(state, tournament, { pitch, live, next }) {
    const gather = (state.pitches.find((candidate) => candidate.id === pitch) || {}).gather || null;
    const name = pitchName(state, pitch);
    const liveLine = live ? h("p", { class: "tpitch-live" }, h("strong", {}, WORDS.playing),
      sideName(tournament, live, "home"), gather ? WORDS.liveScore(gather.score.A, gather.score.B) : ` ${TEXT.versus} `, sideName(tournament, live, "away"),
      " ", h("button", { type: "button", class: "secondary", onclick: () => this.openPitch(pitch) }, WORDS.open)) : null;
    let nextLine = h("p", { class: "hint" }, WORDS.nothing);
    if (next) {
      const known = next.home !== null && next.away !== null;
      const reason = !known ? WORDS.waiting : gather ? WORDS.pitchBusy : "";
      const late = delayText(next);
      nextLine = h("div", { class: "tpitch-next" },
        h("p", {}, h("strong", {}, WORDS.nextUp), `${stageText(next)} · ${sideName(tournament, next, "home")} ${TEXT.versus} ${sideName(tournament, next, "away")}`),
        h("p", { class: "hint" }, `${timeText(next.expectedAt)}${late ? ` · ${late}` : ""}${reason ? ` · ${reason}` : ""}`),
        h("button", { type: "button", class: "start-match", disabled: !!reason, dataset: { match: next.id },
          "aria-label": WORDS.startLabel(sideName(tournament, next, "home"), sideName(tournament, next, "away"), name),
          onclick: () => this.start(next.id, pitch) }, WORDS.start),
        // Before its planned time the day may run early: its pitch's next matches then move earlier
        // too (`startEarly`); the plain button keeps them at their planned times.
        !reason && Date.now() < next.plannedAt ? h("button", { type: "button", class: "secondary start-early", dataset: { match: next.id },
          "aria-label": WORDS.startEarlyLabel(name), onclick: () => this.start(next.id, pitch, true) }, WORDS.startEarly) : null);
    }
    return h("li", { class: "tpitch", dataset: { pitch } }, h("h3", {}, name), liveLine, nextLine);
  }

  async start(match, pitch, startEarly = false) {
    const reply = await this.perform({ kind: "startMatch", match, ...(startEarly ? { startEarly: true } : {}) });
    if (reply.type === "ack") this.openPitch(pitch);
  }

  /** The corrected score (and penalties, shown for a knockout match) with a confirmation. */
  correctForm(tournament, match) {
    const home = sideName(tournament, match, "home"), away = sideName(tournament, match, "away");
    const knockout = match.stage !== "group";
    const box = (name, label, value) => h("label", {}, label, " ", h("input", { name, type: "number", min: "0", max: "99", required: true, inputmode: "numeric", value }));
    // Read from the event's form: the list is updated in place, so the page's form may be one an
    // earlier render built.
    const form = h("form", { class: "correct-form stack", dataset: { match: match.id },
      onsubmit: (event) => { event.preventDefault(); this.correct(match, event.currentTarget, home, away); } },
      h("div", { class: "row" }, box("home", WORDS.goals(home), match.score.home), box("away", WORDS.goals(away), match.score.away)),
      knockout ? h("div", { class: "row" }, box("homePens", WORDS.penalties(home), match.penalties ? match.penalties.home : ""),
        box("awayPens", WORDS.penalties(away), match.penalties ? match.penalties.away : "")) : null,
      h("div", { class: "row" }, h("button", { type: "submit" }, WORDS.save),
        h("button", { type: "button", class: "secondary", onclick: () => { this.correcting = null; this.render(this.live.state); } }, WORDS.cancel)));
    if (knockout) for (const input of form.querySelectorAll("[name$=Pens]")) input.required = false;
    return form;
  }

  async correct(match, form, home, away) {
    const fields = form.elements;
    const score = { home: Number(fields.home.value), away: Number(fields.away.value) };
    const action = { kind: "correctResult", match: match.id, score };
    let text = `${home} ${score.home}–${score.away} ${away}`;
    if (match.stage !== "group" && score.home === score.away && fields.homePens) {
      action.penalties = { home: Number(fields.homePens.value), away: Number(fields.awayPens.value) };
      text += ` ${TEXT.penalties(action.penalties.home, action.penalties.away)}`;
    }
    if (!confirm(WORDS.confirmCorrect(text))) return;
    const reply = await this.perform(action);
    if (reply.type === "ack") {
      this.correcting = null;
      this.render(this.live.state);
    }
  }

  cancel() {
    const tournament = this.live.state && this.live.state.tournament;
    if (tournament && confirm(WORDS.confirmCancel(tournament.name))) this.perform({ kind: "cancelTournament" });
  }
}

/**
 * The team names of a gather playing a knockout match that is level: what the End button asks
 * penalties for (null when none are needed).
 */
export function penaltiesNeeded(state, gather) {
  const link = gather && gather.match;
  const tournament = state && state.tournament;
  if (!link || !tournament || link.tournament !== tournament.id) return null;
  const match = tournament.matches.find((candidate) => candidate.id === link.match);
  if (!match || match.stage === "group" || gather.score.A !== gather.score.B) return null;
  return { A: (teamById(tournament, match.home) || gather.teams.A).name, B: (teamById(tournament, match.away) || gather.teams.B).name };
}

/**
 * On a pitch of the tournament being played, what the console says where a weekly gather says "go
 * to Players": the next match there ("Next on Pitch 1: Match 5 · 14:30 · Reds v Blues. Start it
 * from the Tournament tab.") or that there is none. Null on any other pitch, or with no tournament.
 */
export function nextOnPitchText(state, pitchId) {
  const tournament = state && state.tournament;
  if (!tournament || tournament.phase === "finished" || !tournament.rules.pitches.includes(pitchId)) return null;
  const pitch = pitchName(state, pitchId);
  const next = (pitchLines(tournament).find((line) => line.pitch === pitchId) || {}).next;
  if (!next) return t("org.no_more_on_pitch", { pitch });
  const match = `${TEXT.matchNumber(next.id)} · ${timeText(next.expectedAt)} · ${sideName(tournament, next, "home")} ${TEXT.versus} ${sideName(tournament, next, "away")}`;
  return t("org.next_on_pitch", { pitch, match });
}

/** Whether the gather is one of the tournament's matches (its words then talk about matches). */
export function isTournamentMatch(state, gather) {
  const link = gather && gather.match;
  return !!(link && state && state.tournament && link.tournament === state.tournament.id);
}
