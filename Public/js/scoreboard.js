import { LiveClient } from "./live.js";
import { $, connectionPill } from "./dom.js";
import { clock, statusText } from "./format.js";
import { Announcer } from "./announce.js";
import { ScreenWake } from "./wake.js";
import { keepShellOffline } from "./offline.js";

keepShellOffline();
const announcer = new Announcer();

const live = new LiveClient({
  onStatus: (status) => connectionPill($("#connection"), status, statusText),
  onChange: (state) => { render(state); announcer.update(state); },
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
  fitNames();
  renderClock();
}

function renderClock() {
  $("#clock").textContent = clock(live.remainingMs());
}

setInterval(renderClock, 200);
live.restoreLastState();

// MARK: - Names that fit

/// Shrinks a long team name until it fits its third of the screen on at most two lines
/// (.team's max-height), in at most 20 steps; a single word too long for that breaks anywhere.
/// Returns the size it settled on.
function fitName(box) {
  box.style.fontSize = "";
  box.classList.remove("fallback");
  const overflows = () => box.scrollWidth > box.clientWidth + 1 || box.scrollHeight > box.clientHeight + 1;
  let size = parseFloat(getComputedStyle(box).fontSize);
  for (let step = 0; step < 20 && overflows(); step += 1) {
    size *= 0.94;
    box.style.fontSize = `${size}px`;
  }
  if (overflows()) box.classList.add("fallback");
  return size;
}

/// Both names at the same size, the one the longer name needs: a scoreboard, not a ransom note.
function fitNames() {
  const boxes = [...document.querySelectorAll(".team")];
  const size = Math.min(...boxes.map(fitName));
  for (const box of boxes) box.style.fontSize = `${size}px`;
}

window.addEventListener("resize", fitNames);

// MARK: - Projector comforts

const fullscreen = $("#fullscreen");
fullscreen.hidden = !document.fullscreenEnabled; // iPhones have no full screen for pages
fullscreen.addEventListener("click", () => {
  if (document.fullscreenElement) document.exitFullscreen();
  else document.documentElement.requestFullscreen().catch(() => {});
});

new ScreenWake().want(true);
