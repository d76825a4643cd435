import { $, h, replace } from "./dom.js";
import { clock, playersById, eventText, dateText } from "./format.js";

/// Line-up (tap or drag), team names, the match controls, the timeline and the history.
export class GatherView {
  constructor(live, perform) {
    Object.assign(this, { live, perform });
    for (const team of ["A", "B"]) {
      $(`#name-${team.toLowerCase()}`).addEventListener("change", (event) => this.rename(team, event.target));
    }
    $("#start-gather").addEventListener("click", () => this.perform({ kind: "startGather" }));
    for (const button of document.querySelectorAll("[data-score]")) {
      button.addEventListener("click", () => this.perform({ kind: "score", team: button.dataset.score, delta: Number(button.dataset.delta) }));
    }
    $("#timer-start").addEventListener("click", () => this.perform({ kind: "startTimer" }));
    $("#timer-pause").addEventListener("click", () => this.perform({ kind: "pauseTimer" }));
    $("#timer-reset").addEventListener("click", () => this.perform({ kind: "resetTimer" }));
    $("#timer-form").addEventListener("submit", (event) => {
      event.preventDefault();
      const form = event.target;
      this.perform({ kind: "setTimer", minutes: Number(form.minutes.value), seconds: Number(form.seconds.value) });
    });
    $("#end-gather").addEventListener("click", () => {
      const gather = this.live.state && this.live.state.gather;
      if (gather && confirm(`End the gather at ${gather.teams.A.name} ${gather.score.A} – ${gather.score.B} ${gather.teams.B.name}?`)) {
        this.perform({ kind: "endGather" });
      }
    });
    $("#cancel-gather").addEventListener("click", () => {
      if (confirm("Cancel this gather? Nothing will be saved to history.")) this.perform({ kind: "cancelGather" });
    });
    for (const column of document.querySelectorAll(".column")) this.acceptDrops(column);
  }

  render(state) {
    const gather = state.gather;
    $("#no-gather").hidden = !!gather;
    $("#gather").hidden = !gather;
    this.renderHistory(state);
    if (!gather) return;
    const byId = playersById(state);
    for (const team of ["A", "B"]) {
      const input = $(`#name-${team.toLowerCase()}`);
      if (document.activeElement !== input) input.value = gather.teams[team].name;
      $(`#col-${team.toLowerCase()}-title`).textContent = gather.teams[team].name;
      $(`#match-${team.toLowerCase()}-name`).textContent = gather.teams[team].name;
      $(`#match-${team.toLowerCase()}-score`).textContent = gather.score[team];
      // "+1" alone does not say for whom; the accessible name does.
      for (const button of document.querySelectorAll(`[data-score="${team}"]`)) {
        const sign = Number(button.dataset.delta) > 0 ? "+1" : "−1";
        button.setAttribute("aria-label", `${sign} goal for ${gather.teams[team].name}`);
      }
    }
    replace($("#col-bench"), gather.bench.map((id) => this.chip(byId.get(id), "bench")));
    replace($("#col-A"), gather.teams.A.players.map((id) => this.chip(byId.get(id), "A")));
    replace($("#col-B"), gather.teams.B.players.map((id) => this.chip(byId.get(id), "B")));
    const live = gather.phase === "live";
    $("#start-gather").hidden = live;
    $("#start-gather").disabled = !gather.teams.A.players.length || !gather.teams.B.players.length;
    $("#match").hidden = !live;
    $("#end-gather").hidden = !live;
    const timer = gather.timer;
    $("#timer-start").textContent = timer.status === "paused" ? "Resume" : "Start";
    $("#timer-start").disabled = timer.status === "running" || timer.status === "finished";
    $("#timer-pause").disabled = timer.status !== "running";
    $("#timer-form").querySelector("button").disabled = timer.status === "running";
    this.showDuration(timer.durationSeconds);
    replace($("#timeline"), gather.events.slice().reverse().map((event) => h("li", { class: event.kind }, eventText(event, gather))));
    this.renderClock();
  }

  /// The pickers show the timer's length, unless the organiser is typing a new one.
  showDuration(seconds) {
    const form = $("#timer-form");
    if (typeof seconds !== "number" || form.contains(document.activeElement)) return;
    form.minutes.value = Math.floor(seconds / 60);
    form.seconds.value = seconds % 60;
  }

  renderClock() {
    $("#match-clock").textContent = clock(this.live.remainingMs());
  }

  renderHistory(state) {
    replace($("#history"), state.history.length ? state.history.map((entry) => h("li", {},
      h("strong", {}, `${entry.teams.A.name} ${entry.score.A} – ${entry.score.B} ${entry.teams.B.name}`),
      h("small", {}, `${entry.winner === "draw" ? "Draw" : entry.teams[entry.winner].name + " won"} · `
        + dateText(entry.endedAt))))
      : [h("li", { class: "empty" }, "No finished gathers yet.")]);
  }

  // MARK: - Line-up

  chip(player, place) {
    if (!player) return null;
    const moves = ["bench", "A", "B"].filter((target) => target !== place)
      .map((target) => h("button", { type: "button", class: "move", "aria-label": `Move ${player.name} to ${target}`,
        onclick: () => this.assign(player.id, target) }, target === "bench" ? "Bench" : target));
    moves.push(h("button", { type: "button", class: "move secondary", "aria-label": `Take ${player.name} out`,
      onclick: () => this.assign(player.id, "out") }, "Out"));
    return h("li", { class: "chip", draggable: "true", dataset: { id: player.id },
      ondragstart: (event) => event.dataTransfer.setData("text/plain", String(player.id)) },
    h("span", {}, player.name), h("span", { class: "moves" }, moves));
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
