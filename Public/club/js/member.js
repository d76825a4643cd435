// The member's page, /club/m/TOKEN: the personal link is the only key (no account). It reads the
// member's dates, answers In / Out / guests, claims or passes an offer, and stays live. A link
// from a mail (`?date=ID&answer=in`) only ASKS here: a GET never changes anything.

import { $, replace, connectionPill } from "/js/dom.js";
import { languageSwitch } from "/js/i18n.js";
import { t, translate, setTimeZone, leftText, whenText } from "./words.js";
import { request } from "./api.js";
import { followClub } from "./live.js";
import { dateCard, answerable } from "./member-date.js";

const token = (location.pathname.match(/^\/club\/m\/([A-Za-z0-9_-]{1,64})\/?$/) || [])[1] || null;
const base = token ? `/club/api/m/${token}` : null;
const openLists = new Set();
let view = null; // the last answer of GET /club/api/m/TOKEN
let asked = readAsked();
let reading = null;
let readAgain = false;

function readAsked() {
  const query = new URLSearchParams(location.search);
  const date = query.get("date");
  const answer = query.get("answer");
  return date && /^[A-Za-z0-9_-]{1,64}$/.test(date) && (answer === "in" || answer === "out") ? { date, answer } : null;
}

function notice(text, kind = "error") {
  const element = $("#notice");
  element.textContent = text || "";
  element.dataset.kind = kind;
  element.hidden = !text;
}

function forgetAsked() {
  asked = null;
  const url = new URL(location.href);
  url.searchParams.delete("date");
  url.searchParams.delete("answer");
  history.replaceState(null, "", url.pathname + url.search + url.hash);
  $("#ask").hidden = true;
}

function renderAsk() {
  const box = $("#ask");
  if (!asked || !view) { box.hidden = true; return; }
  const date = view.dates.find((candidate) => candidate.id === asked.date);
  if (!date || !answerable(date)) {
    forgetAsked();
    notice(t("ask.not_open"), "info");
    return;
  }
  $("#ask-text").textContent = t(`ask.${asked.answer}`, { title: date.title, when: whenText(date.startsAt) });
  $("#ask-yes").textContent = t(`ask.yes_${asked.answer}`);
  box.hidden = false;
}

/** The club's clock as the server last told it (`now` in the member's view): offers and windows
 * count down on the club's time, also when a test moves it or the phone's clock is wrong. */
let clockSkew = 0;
const clubNow = () => Date.now() + clockSkew;

function render() {
  $("#loading").hidden = true;
  $("#club-name").textContent = view.club.name;
  document.title = `${view.club.name} · ${t("member.title")}`;
  $("#hello").textContent = t("member.hello", { name: view.member.name });
  const now = clubNow();
  replace($("#dates"), view.dates.map((date) => dateCard(date, act, openLists, now)));
  $("#no-dates").hidden = view.dates.length > 0;
  renderAsk();
}

async function read() {
  if (reading) { readAgain = true; return reading; } // one at a time; a change meanwhile reads again after
  reading = (async () => {
    try {
      view = await request("GET", base);
      if (Number.isFinite(view.now)) clockSkew = view.now - Date.now();
      setTimeZone(view.club.timeZone);
      render();
    } catch (error) {
      notice(error.status === 404 ? t("member.link_ended") : error.message);
      if (error.status === 404) $("#loading").hidden = true;
    } finally {
      reading = null;
      if (readAgain) { readAgain = false; read(); }
    }
  })();
  return reading;
}

async function act(kind, date, extra = {}) {
  const body = kind === "answer" ? { date: date.id, answer: extra.answer, guests: extra.guests } : { date: date.id };
  const card = document.getElementById(`date-${date.id}`);
  for (const button of card ? card.querySelectorAll("button, select") : []) button.disabled = true;
  try {
    const answer = await request("POST", `${base}/${kind}`, body);
    notice("");
    if (answer.date && view) view.dates = view.dates.map((old) => (old.id === answer.date.id ? answer.date : old));
    if (view) render();
  } catch (error) {
    notice(error.message);
    if (view) render(); // the buttons back, and the page as the server last said
    if (error.status !== 0) read();
  }
}

function tick() {
  const now = clubNow();
  let expired = false;
  for (const element of document.querySelectorAll(".countdown[data-expires]")) {
    const left = Number(element.dataset.expires) - now;
    const text = leftText(left);
    if (element.textContent !== text) element.textContent = text;
    if (left <= 0) expired = true;
  }
  if (expired && !reading) setTimeout(read, 1500); // the server ends the offer within 1 s of its time
}

function start() {
  translate();
  $("#footer").append(languageSwitch());
  if (!token) {
    $("#loading").hidden = true;
    notice(t("member.bad_link"));
    return;
  }
  $("#calendar").href = `/club/m/${token}/calendar.ics`;
  $("#ask-yes").addEventListener("click", () => {
    const date = view && view.dates.find((candidate) => candidate.id === asked?.date);
    const answer = asked?.answer;
    forgetAsked();
    if (date) act("answer", date, { answer, guests: answer === "in" && date.mine ? date.mine.guests : 0 });
  });
  $("#ask-no").addEventListener("click", forgetAsked);
  const pill = $("#connection");
  const words = { connecting: t("live.connecting"), live: t("live.live"), reconnecting: t("live.reconnecting") };
  followClub({ member: token }, {
    onStatus: (status) => connectionPill(pill, status, words),
    onChanged: () => read(),
    onRefused: () => { connectionPill(pill, "reconnecting", { reconnecting: t("live.stopped") }); notice(t("member.link_ended")); },
  });
  setInterval(tick, 1000);
  read();
}

start();
