// The referee's page: organiser.html#referee=CODE in a one-pitch mode chosen by the session's role
// (docs/PROTOCOL.md "Referees"). The phone signs in with the link's code, keeps the token it is
// given for the next connection, and shows only its pitch's match: nothing else of the console.
// Commands are queued with their ids through Wi-Fi drops like the organiser's (live-commands.js).

import { $, h, replace } from "./dom.js";
import { t } from "./i18n.js";
import { startPage } from "./page.js";
import { pitchById } from "./state.js";
import { RefereeMatch } from "./referee-match.js";
import { ScreenWake } from "./wake.js";

/** The code after '#referee=': a string (maybe malformed: "" then), or null on an organiser's page. */
export function refereeCodeIn(hash = location.hash) {
  const code = new URLSearchParams(hash.slice(1)).get("referee");
  if (code === null) return null;
  return /^[A-Za-z0-9_-]{16,64}$/.test(code) ? code : "";
}

/** Why the page stopped, in words: the link revoked, expired, not valid, in use on 3 phones, left. */
function endedText(reason, message) {
  switch (reason) {
    case "revoked": return t("ref.ended_revoked");
    case "expired": return t("ref.ended_expired");
    case "unauthorized": return t("ref.ended_invalid");
    case "logged_out": return t("ref.ended_left");
    case "in_use": return t("ref.ended_in_use");
    default: return message || t("ref.ended_invalid");
  }
}

/** The page's one-pitch view, replacing the console (whose elements stay hidden). */
export function startRefereePage(code) {
  document.title = `${t("ref.referee")} · Football Gather Live`;
  const heading = $("header.bar h1");
  heading.removeAttribute("data-i18n"); // the page's fixed text is filled in later: not "Organiser" here
  heading.textContent = t("ref.referee");
  $("#signed-out").hidden = true;
  $("#signed-in").hidden = true;
  $("#header-pitch").hidden = true; // the card names the pitch; the header keeps its room for "Referee"
  const root = $("#referee");
  root.hidden = false;
  // A new link opened in this tab (another QR code scanned) is another page.
  addEventListener("hashchange", () => location.reload());
  if (!code) {
    replace(root, endedCard("unauthorized"));
    return null;
  }
  let match;
  let live;
  const wake = new ScreenWake(); // the screen stays on while the clock runs
  let ended = null; // the reason this page stopped, while it is stopped
  const status = h("p", { id: "referee-status", class: "hint referee-status", role: "status" });
  const leave = h("button", { type: "button", id: "referee-leave", class: "link", onclick: () => {
    if (confirm(t("ref.confirm_leave"))) live.logout();
  } }, t("ref.leave"));

  function render(state) {
    if (ended) return;
    const pitchId = live.refereePitch;
    const pitch = pitchById(state, pitchId);
    if (!pitchId) {
      replace(root, h("section", { class: "card" }, h("p", {}, t("ref.opening"))), status);
      return;
    }
    match.render(state, pitch, live.session.label);
    wake.want(!!(pitch && pitch.gather && pitch.gather.timer.status === "running"));
    replace(root, match.root, status, h("p", { class: "center referee-leave" }, leave));
  }

  function showEnded(reason, message) {
    ended = reason;
    live.commands.clear();
    wake.want(false);
    replace(root, endedCard(reason, message, () => {
      ended = null;
      replace(root, h("section", { class: "card" }, h("p", {}, t("ref.opening"))));
      live.refereeAgain();
    }));
  }

  live = startPage((client) => {
    live = client;
    match = new RefereeMatch(client);
    return {
      onChange: render,
      renderClocks: () => match.renderClock(),
      onSession: (session) => {
        if (session.role === "referee") {
          ended = null;
          if (client.state) render(client.state);
          else replace(root, h("section", { class: "card" }, h("p", {}, t("ref.opening"))), status);
        } else if (session.reason) showEnded(session.reason, session.message);
        else if (client.session.ended === "logged_out") showEnded("logged_out");
      },
      onPending: (messages) => {
        status.textContent = messages.length ? t("ref.sending", { count: messages.length }) : "";
        match.pending(messages);
      },
      onNotice: (text) => match.notify(text),
    };
  }, { refereeCode: code });
  return live;
}

/** The message a stopped page shows, with "Try again" where trying again can work. */
function endedCard(reason, message, again) {
  const retry = again && !["revoked", "expired", "unauthorized"].includes(reason);
  return h("section", { id: "referee-ended", class: "card referee-ended", role: "alert" },
    h("h2", {}, reason === "revoked" || reason === "expired" ? t("ref.session_ended") : t("ref.referee")),
    h("p", {}, endedText(reason, message)),
    retry ? h("button", { type: "button", id: "referee-again", class: "big-action", onclick: again },
      reason === "logged_out" ? t("ref.referee_again") : t("ref.try_again")) : null);
}
