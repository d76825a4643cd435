// The organisers' club page, /club/: sign in or register (an invite link's `#invite=CODE` fills
// the code in), then three tabs (dates, members, fixtures) drawn from GET /club/api/club and kept
// live through /club/live. The session token is kept on this device (localStorage) and sent as
// `Authorization: Bearer`; a 401 anywhere ends it here.

import { $, connectionPill } from "/js/dom.js";
import { languageSwitch } from "/js/i18n.js";
import { t, translate, setTimeZone } from "./words.js";
import { request } from "./api.js";
import { followClub } from "./live.js";
import { datesView } from "./organiser-dates.js";
import { membersView } from "./organiser-members.js";
import { fixturesView } from "./organiser-fixtures.js";

const KEPT = "gather.club.session";

function keptSession() {
  try {
    const session = JSON.parse(localStorage.getItem(KEPT) || "null");
    return session && typeof session.token === "string" ? session : null;
  } catch {
    return null;
  }
}

function keep(session) {
  try {
    if (session) localStorage.setItem(KEPT, JSON.stringify(session));
    else localStorage.removeItem(KEPT);
  } catch { /* private mode: this page only */ }
}

function notice(text, kind = "error") {
  const element = $("#notice");
  element.textContent = text || "";
  element.dataset.kind = kind;
  element.hidden = !text;
}

/** Asks before something that cannot be undone; resolves true for "yes". */
function confirmFirst(text, yes) {
  const dialog = $("#confirm");
  $("#confirm-text").textContent = text;
  $("#confirm-yes").textContent = yes;
  return new Promise((resolve) => {
    dialog.addEventListener("close", () => resolve(dialog.returnValue === "yes"), { once: true });
    dialog.returnValue = "";
    dialog.showModal();
  });
}

let session = keptSession();
let live = null;
let club = null;
let reading = null;
let readAgain = false;
const pill = $("#connection");
const liveWords = { connecting: t("live.connecting"), live: t("live.live"), reconnecting: t("live.reconnecting"), signedOut: t("live.signed_out") };

/** What the tabs share: the API with this session, the notice, the confirm dialog, a re-read. */
const page = {
  t,
  notice,
  confirmFirst,
  get club() { return club; },
  get owner() { return Boolean(session && session.owner); },
  /** A change or a read as this organiser; shows the server's message and rethrows on failure. */
  async call(method, path, body = null) {
    try {
      const answer = await request(method, path, body, session && session.token);
      if (method !== "GET") notice("");
      return answer;
    } catch (error) {
      if (error.status === 401) signOut(t("org.session_ended"));
      else notice(error.message);
      throw error;
    }
  },
  refresh: () => readClub(),
};

const dates = datesView(page);
const members = membersView(page);
const fixtures = fixturesView(page);

async function readClub(changedDates = null) {
  if (!session) return;
  if (reading) { readAgain = true; return reading; }
  reading = (async () => {
    try {
      club = await page.call("GET", "/club/api/club");
      setTimeZone(club.timeZone);
      $("#club-name").textContent = club.name || t("org.title");
      document.title = `${club.name || t("org.title")} · ${t("org.organisers")}`;
      dates.render(club, changedDates);
      members.render(club);
      fixtures.render(club);
    } catch { /* said in the notice */ } finally {
      reading = null;
      if (readAgain) { readAgain = false; readClub(); }
    }
  })();
  return reading;
}

function showSignedIn() {
  $("#signed-out").hidden = true;
  $("#signed-in").hidden = false;
  $("#whoami").textContent = t("org.signed_in_as", { name: session.username || "" });
  if (live) live.stop();
  live = followClub({ organiser: session.token }, {
    onStatus: (status) => connectionPill(pill, status, liveWords),
    onChanged: (changed) => readClub(changed),
    onRefused: () => signOut(t("org.session_ended")),
  });
  readClub();
}

function signOut(why = "") {
  if (live) { live.stop(); live = null; }
  session = null;
  club = null;
  keep(null);
  connectionPill(pill, "signedOut", liveWords);
  $("#signed-in").hidden = true;
  $("#signed-out").hidden = false;
  notice(why, "info");
}

function signInForm(form, path) {
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const fields = Object.fromEntries(new FormData(form));
    const button = form.querySelector("button[type=submit]");
    button.disabled = true;
    try {
      const answer = await request("POST", path, fields);
      session = { token: answer.token, username: answer.username, owner: Boolean(answer.owner) };
      keep(session);
      form.reset();
      notice("");
      showSignedIn();
    } catch (error) {
      notice(error.message);
    } finally {
      button.disabled = false;
    }
  });
}

function tabs() {
  const buttons = [...document.querySelectorAll("[role=tab]")];
  const choose = (chosen) => {
    for (const button of buttons) {
      const selected = button === chosen;
      button.setAttribute("aria-selected", String(selected));
      button.tabIndex = selected ? 0 : -1;
      $(`#tab-${button.dataset.tab}`).hidden = !selected;
    }
  };
  for (const button of buttons) {
    button.addEventListener("click", () => choose(button));
    button.addEventListener("keydown", (event) => {
      const step = { ArrowRight: 1, ArrowLeft: -1 }[event.key];
      if (!step) return;
      const next = buttons[(buttons.indexOf(button) + step + buttons.length) % buttons.length];
      choose(next);
      next.focus();
    });
  }
}

function start() {
  translate();
  $("#footer").append(languageSwitch());
  tabs();
  signInForm($("#login-form"), "/club/api/login");
  signInForm($("#register-form"), "/club/api/register");
  const invite = new URLSearchParams(location.hash.slice(1)).get("invite");
  if (invite && /^[A-Za-z0-9_-]{1,64}$/.test(invite)) {
    $("#register-form [name=inviteCode]").value = invite;
    history.replaceState(null, "", location.pathname + location.search); // the code leaves the address bar
  }
  $("#logout").addEventListener("click", async () => {
    if (!(await confirmFirst(t("org.log_out_question"), t("org.log_out")))) return;
    try { await request("POST", "/club/api/logout", {}, session && session.token); } catch { /* ended here anyway */ }
    signOut();
  });
  if (session) showSignedIn();
  else signOut();
}

start();
