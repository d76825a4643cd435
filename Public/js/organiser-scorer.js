// "Who scored?": right after +1 the team's players appear as buttons; one tap names the scorer
// (setScorer), an optional second tap the assist. The same panel re-attributes an older goal.

import { t } from "./i18n.js";
import { $, h, replaceFor } from "./dom.js";
import { minuteText, nameOf } from "./format.js";
import { playersById } from "./state.js";

export class ScorerPicker {
  /** `perform` sends an action on the console's pitch. */
  constructor(live, perform) {
    Object.assign(this, { live, perform });
    this.goal = null; // { team, seq (null until the +1 is acknowledged), step, scorerId, whenKnown }
    $("#scorer-done").addEventListener("click", () => this.close());
  }

  /**
   * Opens at once on +1; the goal's seq arrives with the ack (the state of that version comes
   * first, so the goal is already in it).
   */
  openForNewGoal(team, reply, gatherOf) {
    const goal = { team, seq: null, step: "scorer", scorerId: null };
    goal.whenKnown = reply.then((answer) => {
      if (answer.type !== "ack") { if (this.goal === goal) this.close(); return null; }
      const mine = gatherOf().events.filter((event) => event.kind === "goal" && event.team === team && event.by === this.live.username);
      goal.seq = mine.length ? mine[mine.length - 1].seq : null;
      if (goal.seq === null && this.goal === goal) this.close();
      return goal.seq;
    });
    this.show(goal);
    // The second tap must not need a scroll first.
    $("#scorer").scrollIntoView({ block: "nearest" });
  }

  openFor(event) {
    this.show({ team: event.team, seq: event.seq, step: "scorer", scorerId: event.playerId, whenKnown: Promise.resolve(event.seq) });
    $("#scorer").scrollIntoView({ block: "nearest" });
    const first = $("#scorer-choices button");
    if (first) first.focus();
  }

  show(goal) {
    this.goal = goal;
    $("#scorer").hidden = false;
    if (this.gather) this.render(this.gather, playersById(this.live.state));
  }

  close() {
    const hadFocus = $("#scorer").contains(document.activeElement);
    const team = this.goal && this.goal.team;
    this.goal = null;
    $("#scorer").hidden = true;
    if (hadFocus && team) { const button = $(`[data-score="${team}"][data-delta="1"]`); if (button) button.focus(); }
  }

  /** Follows the state: a goal cancelled or a gather gone closes the panel. */
  render(gather, byId) {
    this.gather = gather;
    const goal = this.goal;
    if (!goal) return;
    const event = goal.seq === null ? null : gather && gather.events.find((candidate) => candidate.seq === goal.seq);
    if (!gather || gather.phase !== "live" || (goal.seq !== null && (!event || event.cancelled))) { this.close(); return; }
    const team = gather.teams[goal.team];
    const minute = event ? minuteText(event.matchMs) : "";
    const choices = goal.step === "scorer" ? team.players : team.players.filter((id) => id !== goal.scorerId);
    $("#scorer-title").textContent = goal.step === "scorer" ? t("org.who_scored") : t("org.assist_question");
    $("#scorer-hint").textContent = goal.step === "scorer"
      ? t("org.tap_the_scorer", { team: team.name, minute: minute ? `, ${minute}` : "" })
      : `${nameOf(goal.scorerId, byId)} scored. Tap who gave the assist, if anyone.`;
    $("#scorer-done").textContent = goal.step === "scorer" ? t("org.skip") : t("org.no_assist");
    const current = goal.step === "scorer" ? event && event.playerId : event && event.assistId;
    replaceFor($("#scorer-choices"), [goal, goal.step, current, team.players, this.live.state.players],
      () => choices.map((id) => h("li", {}, h("button", {
        type: "button", class: "choice", "aria-pressed": String(current === id), dataset: { player: id },
        onclick: () => this.pick(id),
      }, nameOf(id, byId)))));
  }

  async pick(playerId) {
    const goal = this.goal;
    if (!goal) return;
    if (goal.step === "scorer") {
      const hadFocus = $("#scorer").contains(document.activeElement);
      goal.scorerId = playerId;
      goal.step = "assist";
      if (this.gather) this.render(this.gather, playersById(this.live.state));
      const next = $("#scorer-choices button") || $("#scorer-done");
      if (hadFocus) next.focus();
      const seq = await goal.whenKnown;
      if (seq !== null) this.perform({ kind: "setScorer", seq, playerId, assistId: null });
    } else {
      this.close();
      const seq = await goal.whenKnown;
      if (seq !== null) this.perform({ kind: "setScorer", seq, playerId: goal.scorerId, assistId: playerId });
    }
  }
}
