// The referee's one-pitch scoring view: the match on its pitch (teams, score, clock), Start (the
// pitch's next tournament match), the clock's start/pause, +1/−1 per team, End (with the
// penalties a level knockout match needs), the duplicate-goal question and a −1's Undo. Built
// once and updated in place: a re-render never replaces a button under a thumb.

import { h, replace, setText } from "./dom.js";
import { t } from "./i18n.js";
import { clock } from "./format.js";
import { fullTimeOf, scoreText } from "./full-time.js";
import { paintKits } from "./kit.js";
import { penaltiesNeeded } from "./organiser-tournament-day.js";
import { TEXT } from "./tournament-text.js";
import { matchById, sideName, stageText, timeText } from "./tournament.js";

const UNDO_MS = 10_000;

/** The pitch's first unplayed tournament match by planned start, then id: what a referee may start. */
export function nextMatchOn(tournament, pitch) {
  if (!tournament || tournament.phase === "finished") return null;
  return tournament.matches.filter((match) => match.pitch === pitch && match.status === "scheduled")
    .sort((a, b) => a.plannedAt - b.plannedAt || a.id - b.id)[0] || null;
}

export class RefereeMatch {
  constructor(live) {
    this.live = live;
    this.question = null; // the team the duplicate question is about
    this.undo = null;     // { seq } of the goal a −1 just took back
    const side = (team) => {
      const low = team.toLowerCase();
      return h("div", { class: `side side-${low}` },
        h("span", { id: `referee-${low}-name`, class: "team-name kit-name" }),
        h("strong", { id: `referee-${low}-score`, class: "referee-score" }),
        h("div", { class: "referee-goal-buttons" },
          h("button", { type: "button", id: `referee-${low}-plus`, class: "referee-plus", onclick: () => this.addGoal(team) }, "+1"),
          h("button", { type: "button", id: `referee-${low}-minus`, class: "secondary referee-minus", onclick: () => this.takeBack(team) }, "−1")));
    };
    this.title = h("h2", { id: "referee-title", class: "match-pitch" });
    this.label = h("p", { id: "referee-label", class: "hint center" });
    this.notice = h("p", { id: "referee-notice", class: "referee-notice", role: "alert" });
    this.stage = h("p", { id: "referee-stage", class: "hint center" });
    this.clock = h("p", { id: "referee-clock", class: "clock center" });
    this.timer = h("button", { type: "button", id: "referee-timer", class: "big-action", onclick: () => this.toggleTimer() });
    this.end = h("button", { type: "button", id: "referee-end", class: "big-action end", onclick: () => this.endMatch() }, t("org.end_match"));
    this.duplicateText = h("p", { id: "referee-duplicate-text" });
    this.duplicate = h("section", { id: "referee-duplicate", class: "question", role: "alertdialog", "aria-labelledby": "referee-duplicate-text", hidden: true },
      this.duplicateText, h("div", { class: "answers" },
        h("button", { type: "button", id: "referee-duplicate-add", class: "big-action", onclick: () => this.answer(true) }, t("org.add_another")),
        h("button", { type: "button", id: "referee-duplicate-skip", class: "big-action secondary", onclick: () => this.answer(false) }, t("org.same_goal_don_t_add"))));
    this.undoText = h("span", { id: "referee-undo-text" });
    this.undoBar = h("div", { id: "referee-undo", class: "undo-bar", role: "status", hidden: true }, this.undoText,
      h("button", { type: "button", id: "referee-undo-goal", class: "big-action", onclick: () => this.restore() }, t("org.undo")));
    this.penalties = this.penaltiesForm();
    this.board = h("div", { id: "referee-match", class: "referee-match" }, this.stage,
      h("div", { class: "board-small referee-board" }, side("A"), side("B")),
      this.duplicate, this.undoBar, this.clock,
      h("div", { class: "referee-controls" }, this.timer, this.end), this.penalties);
    this.lastResult = h("div", { id: "referee-last", class: "referee-last" });
    this.next = h("p", { id: "referee-next", class: "referee-next" });
    this.start = h("button", { type: "button", id: "referee-start", class: "big-action referee-start", onclick: () => this.startNext() }, t("tour.start_match"));
    this.idle = h("div", { id: "referee-idle", class: "referee-idle" }, this.lastResult, this.next, this.start);
    this.root = h("section", { id: "referee-card", class: "card referee-card", "aria-labelledby": "referee-title" },
      this.title, this.label, this.notice, this.board, this.idle);
  }

  /** Sends an action on the referee's own pitch (a match names its own); a refusal is said on the card. */
  async perform(action) {
    const reply = await this.live.command(action.kind === "startMatch" ? action : { ...action, pitch: this.pitchId });
    if (reply.type !== "ack" && reply.code !== "possible_duplicate") this.notify(reply.message || t("org.did_not_work"));
    else if (reply.type === "ack") this.notify("");
    return reply;
  }

  notify(text) { setText(this.notice, text || ""); }

  gather() { return ((this.live.state && this.live.state.pitches) || []).find((pitch) => pitch.id === this.pitchId)?.gather || null; }

  render(state, pitch, label) {
    this.pitchId = pitch ? pitch.id : this.live.refereePitch;
    setText(this.title, pitch ? pitch.name : TEXT.pitchNumber(this.pitchId));
    setText(this.label, label ? t("ref.you_are", { label }) : "");
    const gather = pitch && pitch.gather;
    const live = !!gather && gather.phase === "live";
    this.board.hidden = !live;
    this.idle.hidden = live;
    if (!live) {
      this.closeQuestion();
      this.closeUndo();
      this.penalties.hidden = true;
      this.renderIdle(state, pitch, gather);
      return;
    }
    const tournament = state.tournament;
    const match = gather.match && tournament && gather.match.tournament === tournament.id ? matchById(tournament, gather.match.match) : null;
    setText(this.stage, match ? `${stageText(match)} · ${TEXT.matchNumber(match.id)}` : "");
    paintKits(this.board, gather.teams);
    for (const team of ["A", "B"]) {
      const low = team.toLowerCase();
      setText(this.board.querySelector(`#referee-${low}-name`), gather.teams[team].name);
      setText(this.board.querySelector(`#referee-${low}-score`), String(gather.score[team]));
      this.board.querySelector(`#referee-${low}-plus`).setAttribute("aria-label", t("org.plus_goal_for", { team: gather.teams[team].name }));
      this.board.querySelector(`#referee-${low}-minus`).setAttribute("aria-label", t("org.minus_goal_for", { team: gather.teams[team].name }));
    }
    const status = gather.timer.status;
    setText(this.timer, status === "running" ? t("org.pause") : status === "paused" ? t("org.resume") : t("ref.start_clock"));
    this.timer.hidden = status === "finished"; // at 00:00 only End is left to do
    this.end.classList.toggle("due", status === "finished");
    setText(this.end, status === "finished" ? t("org.end_the_match") : t("org.end_match"));
    this.renderClock();
  }

  /** No match being played: the last result here, then the pitch's next match and its Start. */
  renderIdle(state, pitch, gather) {
    const result = fullTimeOf(pitch);
    replace(this.lastResult, result ? [h("p", { class: "referee-full-time" }, h("strong", {}, t("page.full_time")), " ", scoreText(result))] : []);
    const tournament = state.tournament;
    const next = gather ? null : nextMatchOn(tournament, this.pitchId);
    this.start.hidden = !next;
    if (gather) {
      setText(this.next, t("ref.line_up_by_organiser"));
    } else if (next) {
      const known = next.home !== null && next.away !== null;
      const teams = `${sideName(tournament, next, "home")} ${TEXT.versus} ${sideName(tournament, next, "away")}`;
      setText(this.next, t("ref.next_match", { stage: stageText(next), teams, time: timeText(next.expectedAt) })
        + (known ? "" : ` · ${t("tour.waiting_for_teams")}`));
      this.start.disabled = !known;
      this.start.dataset.match = next.id;
      this.start.setAttribute("aria-label", t("tour.start_match_of", { home: sideName(tournament, next, "home"), away: sideName(tournament, next, "away"), pitch: pitch ? pitch.name : "" }));
    } else {
      setText(this.next, t("ref.nothing_to_start"));
    }
  }

  renderClock() {
    const gather = this.gather();
    if (!gather || gather.phase !== "live") return;
    setText(this.clock, clock(this.live.remainingMs(gather.timer)));
    this.clock.dataset.status = gather.timer.status;
  }

  /** Commands waiting for the Wi-Fi: "+1 sending…" beside a team whose goal has not been answered. */
  pending(messages) {
    for (const team of ["A", "B"]) {
      const count = messages.filter((message) => message.action && message.action.kind === "score" && message.action.team === team && message.action.delta > 0).length;
      const score = this.board.querySelector(`#referee-${team.toLowerCase()}-score`);
      let mark = score.parentElement.querySelector(".pending-goal");
      if (!mark) score.after(mark = h("span", { class: "pending-goal", role: "status" }));
      setText(mark, count > 0 ? t("org.goals_sending", { count }) : "");
    }
  }

  // MARK: - Actions

  async startNext() {
    const match = Number(this.start.dataset.match);
    if (match) await this.perform({ kind: "startMatch", match });
  }

  toggleTimer() {
    const gather = this.gather();
    if (!gather) return;
    this.perform({ kind: gather.timer.status === "running" ? "pauseTimer" : "startTimer" });
  }

  async addGoal(team, confirmed = false) {
    const reply = await this.perform(confirmed ? { kind: "score", team, delta: 1, confirmed: true } : { kind: "score", team, delta: 1 });
    if (reply.type === "rejected" && reply.code === "possible_duplicate") {
      this.question = team;
      setText(this.duplicateText, reply.message);
      this.duplicate.hidden = false;
      this.duplicate.querySelector("#referee-duplicate-add").focus();
    }
  }

  answer(addAnother) {
    const team = this.question;
    this.closeQuestion();
    if (addAnother && team) this.addGoal(team, true);
  }

  closeQuestion() {
    this.question = null;
    this.duplicate.hidden = true;
  }

  /** −1 takes back that team's newest goal; the bar offers it back for 10 s (`restoreGoal`). */
  async takeBack(team) {
    const reply = await this.perform({ kind: "score", team, delta: -1 });
    if (reply.type !== "ack") return;
    const gather = this.gather();
    const cancellations = gather ? gather.events.filter((event) => event.kind === "goalCancelled" && event.team === team && !event.undone) : [];
    const last = cancellations[cancellations.length - 1];
    if (!last) return;
    this.undo = { seq: last.cancels };
    setText(this.undoText, `${t("org.goal_cancelled")} (${gather.teams[team].name})`);
    this.undoBar.hidden = false;
    clearTimeout(this.undoTimer);
    this.undoTimer = setTimeout(() => this.closeUndo(), UNDO_MS);
  }

  restore() {
    const undo = this.undo;
    this.closeUndo();
    if (undo) this.perform({ kind: "restoreGoal", seq: undo.seq });
  }

  closeUndo() {
    clearTimeout(this.undoTimer);
    this.undo = null;
    this.undoBar.hidden = true;
  }

  /** End: a level knockout match asks for the penalties first (that form is the confirmation). */
  endMatch() {
    const gather = this.gather();
    if (!gather) return;
    const names = penaltiesNeeded(this.live.state, gather);
    if (names) {
      const form = this.penalties;
      form.querySelector("#referee-pens-a-label").textContent = t("tour.penalties_of", { name: names.A });
      form.querySelector("#referee-pens-b-label").textContent = t("tour.penalties_of", { name: names.B });
      setText(form.querySelector("#referee-pens-error"), "");
      form.hidden = false;
      form.elements.a.focus();
      return;
    }
    const result = `${gather.teams.A.name} ${gather.score.A} – ${gather.score.B} ${gather.teams.B.name}`;
    if (gather.timer.status === "finished" || confirm(t("org.confirm_end_match", { result }))) this.perform({ kind: "endGather" });
  }

  penaltiesForm() {
    const box = (name, id) => h("label", {}, h("span", { id }), " ",
      h("input", { name, type: "number", min: "0", max: "99", required: true, inputmode: "numeric" }));
    return h("form", { id: "referee-penalties", class: "question stack", hidden: true, "aria-labelledby": "referee-pens-title",
      onsubmit: (event) => {
        event.preventDefault();
        const fields = event.currentTarget.elements;
        const A = Number(fields.a.value), B = Number(fields.b.value);
        if (A === B) { setText(event.currentTarget.querySelector("#referee-pens-error"), t("tour.penalties_level")); return; }
        event.currentTarget.hidden = true;
        this.perform({ kind: "endGather", penalties: { A, B } });
      } },
    h("p", { id: "referee-pens-title" }, t("tour.penalties_question")),
    h("div", { class: "row" }, box("a", "referee-pens-a-label"), box("b", "referee-pens-b-label")),
    h("p", { id: "referee-pens-error", class: "hint", role: "alert" }),
    h("div", { class: "answers" }, h("button", { type: "submit", id: "referee-pens-end", class: "big-action" }, t("org.end_the_match")),
      h("button", { type: "button", class: "big-action secondary", onclick: (event) => { event.currentTarget.closest("form").hidden = true; } }, t("org.cancel"))));
  }
}
