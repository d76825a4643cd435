import { LiveClient } from "./live.js";
import { $, h, replace, connectionPill } from "./dom.js";
import { clock, playersById, names, eventText, resultText, dateText, statusText } from "./format.js";
import { Announcer } from "./announce.js";
import { keepShellOffline } from "./offline.js";

keepShellOffline();
const announcer = new Announcer();

const phaseText = { setup: "Line-up being picked", live: "Live" };

const live = new LiveClient({
  onStatus: (status) => connectionPill($("#connection"), status, statusText),
  onChange: (state) => { render(state); announcer.update(state); },
  onTick: renderClock,
  onPresence: (presence) => { $("#watching").textContent = `${presence.spectators} watching`; },
});

function render(state) {
  const gather = state.gather;
  const byId = playersById(state);
  if (!gather) {
    $("#phase").textContent = "No gather right now.";
    for (const id of ["#score-a", "#score-b"]) $(id).textContent = "0";
    for (const [id, name] of [["#team-a-name", "Team A"], ["#team-b-name", "Team B"], ["#list-a-title", "Team A"], ["#list-b-title", "Team B"]]) $(id).textContent = name;
    replace($("#list-a")); replace($("#list-b")); replace($("#goals"));
  } else {
    const finished = gather.timer.status === "finished";
    $("#phase").textContent = finished ? "Full time" : phaseText[gather.phase] || gather.phase;
    $("#team-a-name").textContent = gather.teams.A.name;
    $("#team-b-name").textContent = gather.teams.B.name;
    $("#list-a-title").textContent = gather.teams.A.name;
    $("#list-b-title").textContent = gather.teams.B.name;
    $("#score-a").textContent = gather.score.A;
    $("#score-b").textContent = gather.score.B;
    replace($("#list-a"), names(gather.teams.A.players, byId).map((name) => h("li", {}, name)));
    replace($("#list-b"), names(gather.teams.B.players, byId).map((name) => h("li", {}, name)));
    const goals = gather.events.filter((event) => event.kind === "goal" || event.kind === "goalCancelled" || event.kind === "fullTime");
    replace($("#goals"), goals.length ? goals.map((event) => h("li", { class: event.kind }, eventText(event, gather)))
      : [h("li", { class: "empty" }, "No goals yet.")]);
  }
  replace($("#history"), state.history.length
    ? state.history.slice(0, 5).map((entry) => h("li", {}, h("strong", {}, resultText(entry)), h("small", {}, dateText(entry.endedAt))))
    : [h("li", { class: "empty" }, "No finished gathers yet.")]);
  renderClock();
}

function renderClock() {
  $("#clock").textContent = clock(live.remainingMs());
  const timer = live.state && live.state.gather && live.state.gather.timer;
  $("#clock").dataset.status = timer ? timer.status : "none";
}

setInterval(renderClock, 250);
live.restoreLastState();
