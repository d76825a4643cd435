// The match controls of the organiser's console that keep a Sunday free of surprises: the
// "possible duplicate" question when another organiser has just added the same goal, the
// "Goal cancelled — Undo" bar (10 s), the "Full time — end the match?" offer at 00:00, ending
// and cancelling, and the full-time card with Share once the gather has ended.

import { t } from "./i18n.js";
import { $, replace } from "./dom.js";
import { fullTimeDetails, fullTimeOf, resultNames, scoreText } from "./full-time.js";
import { pitchById, playersById } from "./state.js";
import { shareResult, venueName } from "./result-card.js";
import { isTournamentMatch, nextOnPitchText, penaltiesNeeded } from "./organiser-tournament-day.js";
import { askPenalties } from "./organiser-tournament.js";

export const UNDO_MS = 10_000;

export class MatchControls {
  /**
   * `perform` sends an action on the console's pitch and resolves with the server's reply;
   * `onGoal(team, reply)` opens the scorer picker for a goal that was sent.
   */
  constructor(live, perform, pitch, onGoal) {
    Object.assign(this, { live, perform, pitch, onGoal });
    this.question = null; // the score action the duplicate question is about
    this.undo = null;     // { seq, until } of the goal just cancelled
    for (const button of document.querySelectorAll("[data-score]")) {
      const team = button.dataset.score;
      const delta = Number(button.dataset.delta);
      button.addEventListener("click", () => (delta > 0 ? this.addGoal(team) : this.takeBack(team)));
    }
    $("#duplicate-add").addEventListener("click", () => this.answer(true));
    $("#duplicate-skip").addEventListener("click", () => this.answer(false));
    $("#undo-goal").addEventListener("click", () => this.restore());
    $("#end-gather").addEventListener("click", () => this.end(true));
    // The question at 00:00 is the confirmation: one tap ends the match.
    $("#fulltime-end").addEventListener("click", () => this.end(false));
    $("#cancel-gather").addEventListener("click", () => {
      const question = isTournamentMatch(this.live.state, this.gather()) ? "org.confirm_cancel_match" : "org.confirm_cancel_gather";
      if (confirm(t(question))) this.perform({ kind: "cancelGather" });
    });
    $("#share-result").addEventListener("click", () => this.share());
  }

  /**
   * A level knockout match of a tournament asks for the penalties (that question is the
   * confirmation); any other match ends as it always did.
   */
  async end(confirmFirst) {
    const gather = this.gather();
    if (!gather) return;
    const names = penaltiesNeeded(this.live.state, gather);
    if (names) {
      const penalties = await askPenalties(names);
      if (penalties) this.perform({ kind: "endGather", penalties });
      return;
    }
    if (!confirmFirst || confirm(t("org.confirm_end_match", { result: `${gather.teams.A.name} ${gather.score.A} – ${gather.score.B} ${gather.teams.B.name}` }))) {
      this.perform({ kind: "endGather" });
    }
  }

  gather() { return (pitchById(this.live.state, this.pitch()) || {}).gather || null; }

  // MARK: - Goals

  addGoal(team, confirmed = false) {
    const action = confirmed ? { kind: "score", team, delta: 1, confirmed: true } : { kind: "score", team, delta: 1 };
    const reply = this.perform(action);
    this.onGoal(team, reply);
    reply.then((answer) => {
      if (answer.type === "rejected" && answer.code === "possible_duplicate") this.ask(team, answer.message);
    });
  }

  /** "maria added a goal for Whites 3 s ago. Add another?" with two large buttons. */
  ask(team, message) {
    this.question = { team, pitch: this.pitch() };
    $("#duplicate-text").textContent = message;
    $("#duplicate").hidden = false;
    $("#duplicate-add").focus();
  }

  answer(addAnother) {
    const question = this.question;
    this.closeQuestion();
    if (addAnother && question && question.pitch === this.pitch()) this.addGoal(question.team, true);
  }

  closeQuestion() {
    this.question = null;
    $("#duplicate").hidden = true;
  }

  /** −1: the server takes back that team's latest goal; the bar offers it back for 10 s. */
  async takeBack(team) {
    const gather = this.gather();
    const goals = gather ? gather.events.filter((event) => event.kind === "goal" && event.team === team && !event.cancelled) : [];
    const seq = goals.length ? goals[goals.length - 1].seq : null;
    const reply = await this.perform({ kind: "score", team, delta: -1 });
    if (reply.type === "ack") this.offerUndo(this.cancelledSince(seq, team));
  }

  async cancelGoal(seq) {
    const reply = await this.perform({ kind: "cancelGoal", seq });
    if (reply.type === "ack") this.offerUndo(seq);
  }

  /**
   * The goal a −1 took back is the one the state now marks cancelled (another organiser's goal
   * may have landed in between, so the newest cancellation of that team is asked for).
   */
  cancelledSince(guess, team) {
    const gather = this.gather();
    const cancellations = gather ? gather.events.filter((event) => event.kind === "goalCancelled" && event.team === team && !event.undone) : [];
    const last = cancellations[cancellations.length - 1];
    return last ? last.cancels : guess;
  }

  offerUndo(seq) {
    if (seq === null || seq === undefined) return;
    const gather = this.gather();
    const goal = gather && gather.events.find((event) => event.seq === seq);
    const team = goal && gather.teams[goal.team] ? gather.teams[goal.team].name : "";
    this.undo = { seq, pitch: this.pitch(), until: Date.now() + UNDO_MS };
    $("#undo-text").textContent = `${t("org.goal_cancelled")}${team ? ` (${team})` : ""}`;
    $("#undo-bar").hidden = false;
    clearTimeout(this.undoTimer);
    this.undoTimer = setTimeout(() => this.closeUndo(), UNDO_MS);
  }

  async restore() {
    const undo = this.undo;
    this.closeUndo();
    if (undo && undo.pitch === this.pitch()) await this.perform({ kind: "restoreGoal", seq: undo.seq });
  }

  closeUndo() {
    clearTimeout(this.undoTimer);
    this.undo = null;
    $("#undo-bar").hidden = true;
  }

  // MARK: - Following the state

  render(state) {
    const pitch = pitchById(state, this.pitch());
    const gather = pitch && pitch.gather;
    // A question or an undo about another pitch, or a gather that is gone, no longer applies.
    if (this.question && (this.question.pitch !== this.pitch() || !gather)) this.closeQuestion();
    if (this.undo && (this.undo.pitch !== this.pitch() || !gather)) this.closeUndo();
    const finished = !!gather && gather.phase === "live" && gather.timer.status === "finished";
    $("#fulltime-prompt").hidden = !finished;
    $("#end-gather").hidden = !gather || gather.phase !== "live";
    $("#cancel-gather").textContent = t(isTournamentMatch(state, gather) ? "org.cancel_match_back_to_schedule" : "org.cancel_gather_nothing_saved");
    this.renderFullTime(state, pitch);
  }

  renderFullTime(state, pitch) {
    const result = fullTimeOf(pitch);
    $("#full-time").hidden = !result;
    $("#no-gather").hidden = !!(pitch && pitch.gather) || !!result;
    if (!result) return;
    this.venue = this.venue || venueName(); // asked before Share is tapped: the tap's activation is not spent waiting
    const names = resultNames(result, state, playersById(state));
    $("#full-time-title").textContent = `${t("page.full_time")} · ${pitch.name}`;
    $("#full-time-score").textContent = scoreText(result);
    // A tournament's pitch: its next match, not "go to Players".
    $("#full-time-next").textContent = nextOnPitchText(state, pitch.id) || t("org.next_gather_go_to_players");
    replace($("#full-time-details"), fullTimeDetails(result, names));
    if (this.sharedFor !== result.historyId) $("#share-status").textContent = "";
  }

  async share() {
    const state = this.live.state;
    const pitch = pitchById(state, this.pitch());
    const result = fullTimeOf(pitch);
    if (!result) return;
    this.venue = this.venue || venueName(); // asked once, before the first share needs it
    const venue = await this.venue;
    const outcome = await shareResult(result, { pitchName: pitch.name, names: resultNames(result, state, playersById(state)), venue });
    this.sharedFor = result.historyId;
    $("#share-status").textContent = outcome.how === "shared" ? t("org.shared")
      : outcome.how === "downloaded" ? t("org.shared_downloaded") : "";
  }
}
