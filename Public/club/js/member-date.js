// One date on the member's page: when and where, the count, the member's own answer with In /
// Out / guests, an open offer with its countdown and Claim / Pass, who is in and who waits.
// Pure rendering: what a button does is the caller's `act(kind, date, extra)`.

import { h } from "/js/dom.js";
import { t, whenText, timeText, leftText, countText, nameWithGuests, ordinal, number } from "./words.js";

export const MAX_GUESTS = 3;

/** Whether members may answer this date now (the server says so too; this only hides buttons). */
export function answerable(date, now = Date.now()) {
  return date.status === "scheduled" && date.opensAt <= now && now < date.closesAt;
}

function stateLine(date, now) {
  if (date.status === "cancelled") return h("p", { class: "date-state cancelled" }, t("date.cancelled"));
  if (date.status === "played") return h("p", { class: "date-state" }, t("date.played"));
  if (now < date.opensAt) return h("p", { class: "date-state" }, t("date.opens", { when: timeText(date.opensAt, now) }));
  if (now >= date.closesAt) return h("p", { class: "date-state" }, t("date.closed"));
  return h("p", { class: "date-state" }, t("date.closes", { when: timeText(date.closesAt, now) }));
}

function mineLine(mine) {
  if (!mine) return t("mine.none");
  const guests = mine.guests ? ` ${t("mine.guests", { count: mine.guests })}` : "";
  switch (mine.state) {
    case "confirmed": return t("mine.confirmed") + guests;
    case "waiting": return t("mine.waiting", { position: ordinal(mine.position || 0) }) + guests;
    case "offered": return t("mine.offered") + guests;
    default: return t("mine.out");
  }
}

function offerBox(date, act, now) {
  const until = date.mine.offerExpiresAt;
  return h("div", { class: "offer", role: "group", "aria-labelledby": `offer-${date.id}` },
    h("p", { id: `offer-${date.id}`, class: "offer-text" }, t("offer.yours_until", { time: timeText(until, now) })),
    h("p", { class: "offer-left" }, h("span", { class: "countdown", dataset: { expires: String(until) } }, leftText(until - now)),
      " ", t("offer.left")),
    h("div", { class: "answers" },
      h("button", { type: "button", class: "big-action claim", onclick: () => act("claim", date) }, t("offer.claim")),
      h("button", { type: "button", class: "big-action secondary pass", onclick: () => act("pass", date) }, t("offer.pass"))));
}

function answerControls(date, act) {
  const mine = date.mine;
  const answer = mine ? mine.answer : null;
  const guestsId = `guests-${date.id}`;
  const select = h("select", { id: guestsId, class: "guests", onchange: (event) => {
    if (answer === "in") act("answer", date, { answer: "in", guests: Number(event.target.value) });
  } }, ...Array.from({ length: MAX_GUESTS + 1 }, (_, count) =>
    h("option", { value: String(count), selected: (mine ? mine.guests : 0) === count }, number(count))));
  const guests = () => Number(select.value);
  return h("div", { class: "answer-row" },
    h("button", { type: "button", class: "answer-in", "aria-pressed": String(answer === "in"),
      onclick: () => act("answer", date, { answer: "in", guests: guests() }) }, t("answer.in")),
    h("button", { type: "button", class: "answer-out secondary", "aria-pressed": String(answer === "out"),
      onclick: () => act("answer", date, { answer: "out", guests: 0 }) }, t("answer.out")),
    h("label", { class: "guests-pick", for: guestsId }, h("span", {}, t("answer.guests")), select));
}

function people(date, openLists) {
  const confirmed = date.confirmed || [];
  const waiting = date.waitingList || [];
  const list = (key, title, items, ordered) => {
    const details = h("details", { class: "people", open: openLists.has(`${date.id}.${key}`),
      ontoggle: (event) => { event.target.open ? openLists.add(`${date.id}.${key}`) : openLists.delete(`${date.id}.${key}`); } },
    h("summary", {}, title),
    items.length ? h(ordered ? "ol" : "ul", { class: "names" }, items) : h("p", { class: "empty" }, t("people.nobody")));
    return details;
  };
  return [
    list("in", t("people.in", { count: confirmed.length }), confirmed.map((entry) => h("li", {}, nameWithGuests(entry))), false),
    waiting.length ? list("waiting", t("people.waiting", { count: waiting.length }),
      waiting.map((entry) => h("li", {}, `${number(entry.position)}. ${nameWithGuests(entry)}`)), true) : null,
  ];
}

/** The date's card. `openLists` remembers which name lists the member opened, across redraws. */
export function dateCard(date, act, openLists, now = Date.now()) {
  const offered = date.mine && date.mine.state === "offered" && date.status === "scheduled" && date.mine.offerExpiresAt > now;
  return h("li", { class: "card club-date", id: `date-${date.id}`, dataset: { date: date.id, state: date.mine ? date.mine.state : "none" } },
    h("h2", {}, date.title),
    h("p", { class: "when" }, whenText(date.startsAt), date.place ? h("span", { class: "place" }, ` · ${date.place}`) : null),
    h("p", { class: "count" }, countText(date)),
    stateLine(date, now),
    h("p", { class: "mine", role: "status" }, mineLine(date.mine)),
    offered ? offerBox(date, act, now) : null,
    answerable(date, now) ? answerControls(date, act) : null,
    date.status === "cancelled" ? null : people(date, openLists));
}
