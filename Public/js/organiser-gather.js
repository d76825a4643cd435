import { $, h, replace, replaceFor, setText } from "./dom.js";
import { t } from "./i18n.js";
import { clock, eventText, dateText, historyGoalsText, minuteText, winnerWords } from "./format.js";
import { gatherOn, pitchById, playersById, ratingSum } from "./state.js";
import { ScorerPicker } from "./organiser-scorer.js";
import { MatchControls } from "./organiser-match.js";
import { KIT_COLOURS, kitName, paintKits } from "./kit.js";
import { nextOnPitchText } from "./organiser-tournament-day.js";

/**
 * The gather on the console's pitch: line-up (tap or drag, or balanced by rating), team names,
 * the match controls, the scorers, the timeline; and the history of every pitch.
 */
export class GatherView {
  /** `pitch()` is the console's pitch; every gather action goes to it. */
  constructor(live, perform, pitch) {
    Object.assign(this, { live, pitch });
    this.perform = (action) => perform({ ...action, pitch: this.pitch() });
    this.scorer = new ScorerPicker(live, this.perform);
    for (const team of ["A", "B"]) {
      $(`#name-${team.toLowerCase()}`).addEventListener("change", (event) => this.rename(team, event.target));
    }
    this.match = new MatchControls(live, this.perform, pitch, (team, reply) => {
      this.markPending(team, reply);
      // A team without players (a tournament's, named but not rostered) has nobody to name.
      const gather = this.gather();
      if (gather && gather.teams[team].players.length) this.scorer.openForNewGoal(team, reply, () => this.gather());
    });
    this.noGatherHint = $("#no-gather-next").textContent;
    for (const team of ["A", "B"]) {
      const select = $(`#kit-${team.toLowerCase()}`);
      replace(select, Object.entries(KIT_COLOURS).map(([value, kit]) => h("option", { value }, t(`org.kit_${value}`, {}, kit.label))));
      select.addEventListener("change", () => this.perform({ kind: "setTeamColour", team, colour: select.value }));
    }
    $("#start-gather").addEventListener("click", () => this.perform({ kind: "startGather" }));
    $("#balance-teams").addEventListener("click", () => this.perform({ kind: "balanceTeams" }));
    $("#timer-start").addEventListener("click", () => this.perform({ kind: "startTimer" }));
    $("#timer-pause").addEventListener("click", () => this.perform({ kind: "pauseTimer" }));
    $("#timer-reset").addEventListener("click", () => this.perform({ kind: "resetTimer" }));
    $("#timer-form").addEventListener("submit", (event) => {
      event.preventDefault();
      const form = event.target;
      this.perform({ kind: "setTimer", minutes: Number(form.minutes.value), seconds: Number(form.seconds.value) });
    });
    for (const column of document.querySelectorAll(".column")) this.acceptDrops(column);
  }

  gather() { return gatherOn(this.live.state, this.pitch()); }

  /**
   * A +1 not yet acknowledged (offline, or a slow Wi-Fi) shows "+1 sending…" beside the score
   * until the server answers: the score itself only counts what the server has.
   */
  markPending(team, reply) {
    this.pendingGoals = this.pendingGoals || { A: 0, B: 0 };
    this.pendingGoals[team] += 1;
    const show = setTimeout(() => this.showPending(), 300); // an answer within 300 ms shows nothing
    Promise.resolve(reply).finally(() => {
      clearTimeout(show);
      this.pendingGoals[team] -= 1;
      this.showPending();
    });
  }

  showPending() {
    for (const team of ["A", "B"]) {
      const score = $(`#match-${team.toLowerCase()}-score`);
      let mark = score.parentElement.querySelector(`.pending-goal[data-team="${team}"]`);
      if (!mark) {
        mark = h("span", { class: "pending-goal", dataset: { team }, role: "status" });
        score.after(mark);
      }
      const count = this.pendingGoals[team];
      mark.textContent = count > 0 ? t("org.goals_sending", { count }) : "";
    }
  }

  render(state) {
    const gather = gatherOn(state, this.pitch());
    const pitch = pitchById(state, this.pitch());
    // On a pitch of the tournament the words are a match's, and what comes next is its next match.
    const next = nextOnPitchText(state, this.pitch());
    $("#no-gather-pitch").textContent = pitch ? t(next ? "org.no_match_on" : "org.no_gather_on", { pitch: pitch.name }) : t("org.no_gather_on_this_pitch");
    $("#no-gather-next").textContent = next || this.noGatherHint;
    const tournamentDay = !!state.tournament && state.tournament.phase !== "finished";
    $("#show-gather").textContent = t(tournamentDay ? "page.match" : "org.gather");
    $("#gather").hidden = !gather;
    this.match.render(state);
    this.renderHistory(state);
    const byId = playersById(state);
    if (this.shownPitch !== this.pitch()) this.scorer.close(); // its goal belongs to the other pitch
    this.shownPitch = this.pitch();
    this.scorer.render(gather, byId);
    if (!gather) return;
    const pitchName = pitch ? pitch.name : "";
    const timerStatus = gather.timer.status;
    $("#match-pitch").textContent = `${pitchName} · ${timerStatus === "finished" ? t("page.full_time") : timerStatus === "paused" ? t("page.paused") : t("page.live")}`;
    $("#lineup-title").textContent = `${t("org.line_up")} · ${pitchName}`;
    paintKits($("#gather"), gather.teams);
    for (const team of ["A", "B"]) {
      const low = team.toLowerCase();
      const input = $(`#name-${low}`);
      if (document.activeElement !== input) input.value = gather.teams[team].name;
      const players = gather.teams[team].players;
      $(`#col-${low}-title`).textContent = `${gather.teams[team].name} · ${t("org.players_count", { count: players.length })} · ${t("org.rating_of", { rating: String(ratingSum(players, byId)) })}`;
      $(`#match-${low}-name`).textContent = gather.teams[team].name;
      $(`#match-${low}-score`).textContent = gather.score[team];
      const kit = $(`#kit-${low}`);
      if (document.activeElement !== kit) kit.value = kitName(gather.teams[team], team);
      // "+1" alone does not say for whom; the accessible name does.
      for (const button of document.querySelectorAll(`[data-score="${team}"]`)) {
        const sign = Number(button.dataset.delta) > 0 ? "+1" : "−1";
        button.setAttribute("aria-label", t(sign === "+1" ? "org.plus_goal_for" : "org.minus_goal_for", { team: gather.teams[team].name }));
      }
    }
    for (const [place, ids] of [["bench", gather.bench], ["A", gather.teams.A.players], ["B", gather.teams.B.players]]) {
      replaceFor($(`#col-${place}`), [ids, state.players], () => ids.map((id) => this.chip(byId.get(id), place)));
    }
    const live = gather.phase === "live";
    $("#start-gather").hidden = live;
    $("#start-gather").disabled = !gather.teams.A.players.length || !gather.teams.B.players.length;
    $("#balance-teams").hidden = live;
    this.renderBalance(gather, byId);
    $("#match").hidden = !live;
    const timer = gather.timer;
    $("#timer-start").textContent = timer.status === "paused" ? t("org.resume") : t("org.start");
    $("#timer-start").disabled = timer.status === "running" || timer.status === "finished";
    $("#timer-pause").disabled = timer.status !== "running";
    $("#timer-form").querySelector("button").disabled = timer.status === "running";
    this.showDuration(timer.durationSeconds);
    replaceFor($("#timeline"), [gather.events, gather.teams, gather.phase, state.players],
      () => gather.events.slice().reverse().map((event) => this.timelineRow(event, gather, byId)));
    this.renderClock();
  }

  /**
   * The balancer's difference, then the teams as they stand (players may be moved by hand after).
   * Ratings are written as the rating system writes them ("1200"), never grouped ("1.200").
   */
  renderBalance(gather, byId) {
    const balanced = gather.events.filter((event) => event.kind === "teamsBalanced").pop();
    const now = Math.abs(ratingSum(gather.teams.A.players, byId) - ratingSum(gather.teams.B.players, byId));
    $("#balance-result").textContent = !balanced ? ""
      : now === balanced.difference ? t("org.balanced", { difference: String(balanced.difference) })
      : t("org.balanced_then_moved", { difference: String(balanced.difference), now: String(now) });
  }

  /**
   * A cancelled goal is struck through (and can be brought back); the line saying it was
   * cancelled is not: it is what happened.
   */
  timelineRow(event, gather, byId) {
    const text = eventText(event, gather, byId);
    const minute = minuteText(event.matchMs);
    const what = event.team ? t(minute ? "org.the_goal_for_at" : "org.the_goal_for", { team: gather.teams[event.team].name, minute }) : "";
    if (event.kind === "goal" && event.cancelled && gather.phase === "live") {
      return h("li", { class: "goal cancelled", dataset: { seq: event.seq } }, h("s", {}, text), h("span", { class: "moves" },
        h("button", { type: "button", class: "move secondary", "aria-label": t("org.bring_back_what", { what }),
          onclick: () => this.perform({ kind: "restoreGoal", seq: event.seq }) }, t("org.bring_back"))));
    }
    if (event.kind !== "goal" || event.cancelled || gather.phase !== "live") {
      return h("li", { class: event.cancelled ? "goal cancelled" : event.kind, dataset: { seq: event.seq } }, event.cancelled ? h("s", {}, text) : text);
    }
    const rostered = gather.teams[event.team].players.length > 0; // else there is nobody to name
    return h("li", { class: "goal", dataset: { seq: event.seq } }, h("span", {}, text), h("span", { class: "moves" },
      rostered ? h("button", { type: "button", class: "move secondary", "aria-label": t(event.playerId === null ? "org.name_scorer_of" : "org.change_scorer_of", { what }),
        onclick: () => this.scorer.openFor(event) }, event.playerId === null ? t("org.who_scored") : t("org.change_scorer")) : null,
      h("button", { type: "button", class: "move danger", "aria-label": t("org.cancel_what", { what }),
        onclick: () => this.match.cancelGoal(event.seq) }, t("org.cancel_goal"))));
  }

  /** The pickers show the timer's length, unless the organiser is typing a new one. */
  showDuration(seconds) {
    const form = $("#timer-form");
    if (typeof seconds !== "number" || form.contains(document.activeElement)) return;
    form.minutes.value = Math.floor(seconds / 60);
    form.seconds.value = seconds % 60;
  }

  renderClock() {
    const gather = this.gather();
    setText($("#match-clock"), clock(this.live.remainingMs(gather && gather.timer)));
  }

  renderHistory(state) {
    const byId = playersById(state);
    const named = state.pitches.length > 1;
    replace($("#history"), state.history.length ? state.history.map((entry) => {
      const goals = historyGoalsText(entry, byId);
      return h("li", { dataset: { key: entry.id } },
        h("strong", {}, `${entry.teams.A.name} ${entry.score.A} – ${entry.score.B} ${entry.teams.B.name}`),
        goals ? h("span", { class: "scorers" }, t("page.goals_list", { goals })) : null,
        h("small", {}, `${named && entry.pitch ? `${entry.pitch.name} · ` : ""}`
          + `${winnerWords(entry)} · ${dateText(entry.endedAt)}`));
    })
      : [h("li", { class: "empty" }, t("page.no_results_yet"))]);
  }

  // MARK: - Line-up

  chip(player, place) {
    if (!player) return null;
    const moves = ["bench", "A", "B"].filter((target) => target !== place)
      .map((target) => h("button", { type: "button", class: "move", "aria-label": t("org.move_to", { name: player.name, target: target === "bench" ? t("org.bench") : target }),
        onclick: () => this.assign(player.id, target) }, target === "bench" ? t("org.bench") : target));
    moves.push(h("button", { type: "button", class: "move secondary", "aria-label": t("org.take_out", { name: player.name }),
      onclick: () => this.assign(player.id, "out") }, t("org.out")));
    return h("li", { class: "chip", draggable: "true", dataset: { id: player.id },
      ondragstart: (event) => event.dataTransfer.setData("text/plain", String(player.id)) },
    h("span", {}, player.name, " ", h("small", {}, t("org.rating_of", { rating: String(player.rating) }))), h("span", { class: "moves" }, moves));
  }

  acceptDrops(column) {
    column.addEventListener("dragover", (event) => { event.preventDefault(); column.classList.add("over"); });
    column.addEventListener("dragleave", () => column.classList.remove("over"));
    column.addEventListener("drop", (event) => {
      event.preventDefault();
      column.classList.remove("over");
      const id = Number(event.dataTransfer.getData("text/plain"));
      if (id) this.assign(id, column.dataset.place);
    });
  }

  assign(playerId, to) { return this.perform({ kind: "assign", playerId, to }); }

  rename(team, input) {
    const name = input.value.trim();
    if (!name) return;
    this.perform({ kind: "renameTeam", team, name });
  }
}
