import { LiveClient } from "./live.js";
import { $, connectionPill } from "./dom.js";
import { clock, statusText } from "./format.js";

const live = new LiveClient({
  onStatus: (status) => connectionPill($("#connection"), status, statusText),
  onChange: render,
  onTick: renderClock,
});

function render(state) {
  const gather = state.gather;
  if (!gather) {
    $("#status").textContent = state.history.length ? "Thanks for playing" : "Waiting for a gather";
    const last = state.history[0];
    $("#team-a-name").textContent = last ? last.teams.A.name : "Team A";
    $("#team-b-name").textContent = last ? last.teams.B.name : "Team B";
    $("#score-a").textContent = last ? last.score.A : 0;
    $("#score-b").textContent = last ? last.score.B : 0;
  } else {
    $("#team-a-name").textContent = gather.teams.A.name;
    $("#team-b-name").textContent = gather.teams.B.name;
    $("#score-a").textContent = gather.score.A;
    $("#score-b").textContent = gather.score.B;
    const timer = gather.timer.status;
    $("#status").textContent = timer === "finished" ? "Full time"
      : gather.phase === "setup" ? "Kick-off soon" : timer === "paused" ? "Paused" : timer === "running" ? "" : "Ready";
  }
  document.body.dataset.finished = String(!!(gather && gather.timer.status === "finished"));
  renderClock();
}

function renderClock() {
  $("#clock").textContent = clock(live.remainingMs());
}

setInterval(renderClock, 200);

// MARK: - Projector comforts

$("#fullscreen").addEventListener("click", () => {
  if (document.fullscreenElement) document.exitFullscreen();
  else document.documentElement.requestFullscreen().catch(() => {});
});

let wakeLock = null;
async function keepAwake() {
  if (!("wakeLock" in navigator) || document.visibilityState !== "visible") return;
  try { wakeLock = await navigator.wakeLock.request("screen"); } catch { wakeLock = null; }
}
document.addEventListener("visibilitychange", keepAwake);
keepAwake();
