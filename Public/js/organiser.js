// The organiser's console: players, the gather of the chosen pitch, signing in.

import { t } from "./i18n.js";
import { $ } from "./dom.js";
import { startPage } from "./page.js";
import { PlayersView } from "./organiser-players.js";
import { GatherView } from "./organiser-gather.js";
import { PitchSwitcher } from "./organiser-pitches.js";
import { gatherOn, pitchById } from "./state.js";
import { Tabs } from "./tabs.js";
import { Announcer } from "./announce.js";
import { ScreenWake } from "./wake.js";
import { StandingsTable } from "./spectator-table.js";
import { AccountsView, sessionEndedText } from "./organiser-accounts.js";
import { ActivityView } from "./organiser-activity.js";
import { TournamentTab } from "./organiser-tournament.js";
import { RefereesView } from "./organiser-referees.js";
import { refereeCodeIn, startRefereePage } from "./referee.js";

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

/** Sends one action and shows a rejection as the server's sentence. */
async function perform(action) {
  const reply = await live.command(action);
  // A possible duplicate is a question the match controls ask, not an error.
  if (reply.type !== "ack" && reply.code !== "possible_duplicate") notify(reply.message || t("org.did_not_work"));
  return reply;
}

// Set while the page is built: restoring the last state renders (and signs in) before
// startPage returns.
let live, tabs, pitches, players, gather, wake, accounts, activity, tournament, referees;
const currentPitch = () => pitches.current;

// A referee's link (#referee=CODE) opens the one-pitch scoring view instead of the console.
const refereeCode = refereeCodeIn();
if (refereeCode === null) startPage(buildConsole);
else live = startRefereePage(refereeCode);

function buildConsole(client) {
  live = client;
  tabs = new Tabs($("[role=tablist]"), (name) => {
    keepAwakeWhileTimerRuns();
    if (name === "invite") accounts.refresh();
    if (name === "activity") activity.load();
  });
  pitches = new PitchSwitcher(live, perform, () => { if (live.state) render(live.state); },
    (name) => notify(t("org.pitch_added", { pitch: name }), "info"));
  players = new PlayersView(live, perform, () => tabs.select("gather"), currentPitch);
  gather = new GatherView(live, perform, currentPitch);
  wake = new ScreenWake();
  accounts = new AccountsView(live, notify);
  activity = new ActivityView(live);
  const announcer = new Announcer();
  const table = new StandingsTable();
  // "Start match" and "Open match" take the console to that pitch's match.
  tournament = new TournamentTab(live, perform, (pitch) => { pitches.choose(pitch); tabs.select("gather"); });
  referees = new RefereesView(live, perform, (title, text, action) => accounts.confirm(title, text, action));
  // On a tournament day the organiser is on the Tournament tab: the Referees card is one tap away.
  $("#tournament-referees").addEventListener("click", () => {
    tabs.select("invite");
    referees.root.scrollIntoView({ block: "start" });
    $("#referees-title").focus();
  });

  function render(state) {
    pitches.render(state);
    const pitch = pitchById(state, currentPitch());
    $("#header-pitch").hidden = !pitch;
    $("#header-pitch").textContent = pitch ? pitch.name : "";
    players.render(state);
    gather.render(state);
    table.render(state);
    tournament.render(state);
    referees.render(state);
    announcer.update(state, [currentPitch()]);
    keepAwakeWhileTimerRuns();
  }

  return {
    onChange: render,
    renderClocks: () => gather.renderClock(),
    onSession: showSession,
    onPresence: (presence) => {
      const others = presence.organisers.length ? presence.organisers.join(", ") : t("org.nobody");
      $("#presence").textContent = t("org.presence", { others, count: presence.spectators });
      referees.showPresence(presence.referees);
    },
    onReferees: (message) => referees.showLinks(message),
    onNotice: (text) => notify(text),
  };
}

/** The organiser watching the gather screen during a running timer must not see it go dark. */
function keepAwakeWhileTimerRuns() {
  const current = gatherOn(live.state, currentPitch());
  const timer = current && current.timer;
  wake.want(!$("#signed-in").hidden && tabs.selected === "gather" && !!timer && timer.status === "running");
}

// MARK: - Signing in

function showSession(session) {
  const organiser = session.role === "organiser";
  $("#signed-out").hidden = organiser;
  $("#signed-in").hidden = !organiser;
  $("#whoami").textContent = organiser ? t("org.you_are", { name: session.username }) : "";
  if (organiser) accounts.showSession(session);
  const ended = sessionEndedText(session.reason);
  if (ended) notify(ended, session.reason === "logged_out" ? "info" : "error");
  keepAwakeWhileTimerRuns();
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
  if (reply.type === "session") {
    event.target.reset();
    goToLiveMatch();
  } else notify(reply.message);
});

// Asks first: a stray tap beside the pitch switcher must not end the session mid-match.
$("#logout").addEventListener("click", () => {
  if (confirm(live.username ? t("org.confirm_log_out_name", { name: live.username }) : t("org.confirm_log_out"))) live.logout();
});


// A QR code from the Group tab carries the invite code after '#': fill it in, keep it off the server,
// and put "New organiser" first (someone with an invite has no account yet).
{
  const invite = new URLSearchParams(location.hash.slice(1)).get("invite");
  if (invite) {
    $("#register-form").elements.inviteCode.value = invite;
    const register = $("#register-form").closest("section");
    register.parentElement.prepend(register);
    register.querySelector("h2").textContent = t("org.invited_heading");
    $("#login-form").closest("section").querySelector("h2").textContent = t("org.already_registered");
  }
}

/** A co-organiser who just registered mid-match lands on the match being played, not on Players. */
function goToLiveMatch() {
  const playing = (live.state ? live.state.pitches : []).filter((pitch) => pitch.gather);
  const pitch = playing.find((candidate) => candidate.gather.phase === "live") || playing[0];
  if (!pitch) return;
  pitches.choose(pitch.id);
  tabs.select("gather");
}
