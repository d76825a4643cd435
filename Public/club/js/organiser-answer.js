// Answering for someone on an opened date (the member who only texts the organiser): a member,
// In or Out, guests. POST /club/api/dates/DID/answer {memberId, answer, guests}. What was picked
// survives the date's redraws (a live change arriving while the organiser is choosing).

import { h } from "/js/dom.js";
import { t, number } from "./words.js";

const MAX_GUESTS = 3;
let picked = { memberId: "", guests: 0 };

export function answerFor(page, date, reload) {
  const members = [...(page.club.members || [])].sort((a, b) => a.name.localeCompare(b.name));
  if (!members.some((member) => String(member.id) === picked.memberId)) picked.memberId = "";
  const who = h("select", { id: "for-member", name: "memberId", required: true,
    onchange: (event) => { picked.memberId = event.target.value; } },
  h("option", { value: "" }, t("org.pick_member")),
  ...members.map((member) => h("option", { value: String(member.id), selected: String(member.id) === picked.memberId }, member.name)));
  const guests = h("select", { id: "for-guests", name: "guests", onchange: (event) => { picked.guests = Number(event.target.value); } },
    ...Array.from({ length: MAX_GUESTS + 1 }, (_, count) => h("option", { value: String(count), selected: count === picked.guests }, number(count))));

  const send = async (answer, button) => {
    if (!who.value) { page.notice(t("org.pick_member_first")); who.focus(); return; }
    button.disabled = true;
    try {
      await page.call("POST", `/club/api/dates/${date.id}/answer`, { memberId: who.value, answer, guests: answer === "in" ? Number(guests.value) : 0 });
      page.notice(t("org.answered_for", { name: who.selectedOptions[0].textContent }), "info");
      picked = { memberId: "", guests: 0 };
      reload();
    } catch { /* said in the notice */ } finally {
      button.disabled = false;
    }
  };

  return h("form", { id: "answer-for", class: "stack answer-for", onsubmit: (event) => event.preventDefault() },
    h("h3", {}, t("org.answer_for")),
    h("label", { for: "for-member" }, h("span", {}, t("org.member")), who),
    h("div", { class: "answer-row" },
      h("button", { type: "button", id: "for-in", class: "answer-in", onclick: (event) => send("in", event.currentTarget) }, t("answer.in")),
      h("button", { type: "button", id: "for-out", class: "answer-out secondary", onclick: (event) => send("out", event.currentTarget) }, t("answer.out")),
      h("label", { class: "guests-pick", for: "for-guests" }, h("span", {}, t("answer.guests")), guests)));
}
