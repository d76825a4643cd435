import { LiveClient } from "./live.js";
import { $, connectionPill } from "./dom.js";
import { statusText } from "./format.js";
import { PlayersView } from "./organiser-players.js";
import { GatherView } from "./organiser-gather.js";

// MARK: - Feedback

let noticeTimer;
function notify(text, kind = "error") {
  const notice = $("#notice");
  notice.textContent = text;
  notice.dataset.kind = kind;
  notice.hidden = false;
  clearTimeout(noticeTimer);
  noticeTimer = setTimeout(() => { notice.hidden = true; }, 6000);
}

/// Sends one action and shows a rejection as the server's sentence.
async function perform(action) {
  const reply = await live.command(action);
  if (reply.type !== "ack") notify(reply.message || "That did not work.");
  return reply;
}

const live = new LiveClient({
  onStatus: (status) => connectionPill($("#connection"), status, statusText),
  onChange: (state) => { players.render(state); gather.render(state); },
  onTick: () => gather.renderClock(),
  onSession: showSession,
  onPresence: (presence) => {
    const others = presence.organisers.length ? presence.organisers.join(", ") : "nobody";
    $("#presence").textContent = `Organising: ${others} · ${presence.spectators} watching`;
  },
  onNotice: (text) => notify(text),
});

const players = new PlayersView(live, perform, () => selectTab("gather"));
const gather = new GatherView(live, perform);
setInterval(() => gather.renderClock(), 250);

// MARK: - Signing in

function showSession(session) {
  const organiser = session.role === "organiser";
  $("#signed-out").hidden = organiser;
  $("#signed-in").hidden = !organiser;
  $("#whoami").textContent = organiser ? `you are ${session.username}` : "";
  $("#invite-code").textContent = session.inviteCode || "";
}

function formFields(form) { return Object.fromEntries(new FormData(form).entries()); }

$("#login-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const { username, password } = formFields(event.target);
  const reply = await live.login(username.trim(), password);
  if (reply.type === "session") event.target.reset();
  else notify(reply.message);
});

$("#register-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const { username, password, inviteCode } = formFields(event.target);
  const reply = await live.register(username.trim(), password, inviteCode.trim());
  if (reply.type === "session") event.target.reset();
  else notify(reply.message);
});

$("#logout").addEventListener("click", () => live.logout());

// MARK: - Tabs

function selectTab(name) {
  for (const button of document.querySelectorAll("[data-tab]")) {
    button.setAttribute("aria-selected", String(button.dataset.tab === name));
  }
  for (const section of document.querySelectorAll(".tab")) section.hidden = section.id !== `tab-${name}`;
}

for (const button of document.querySelectorAll("[data-tab]")) {
  button.addEventListener("click", () => selectTab(button.dataset.tab));
}
