// The organisers' Dates tab: the next 8 weeks as a list (each with its count), and one date opened
// (GET /club/api/dates/DID): confirmed, offered with time left, waiting with positions, not
// answered, out; answering for someone; cancelling the date; the group-chat message to copy; the
// mail sent and failed when the server mails.

import { $, h, replace } from "/js/dom.js";
import { t, whenText, shortWhenText, timeText, leftText, countText, nameWithGuests, number } from "./words.js";
import { answerFor } from "./organiser-answer.js";

function statusWord(date) {
  return date.status === "scheduled" ? "" : ` · ${t(`date.status_${date.status}`)}`;
}

function section(title, items, ordered = false) {
  return [h("h3", {}, `${title} (${number(items.length)})`),
    items.length ? h(ordered ? "ol" : "ul", { class: "answer-list" }, items) : h("p", { class: "empty" }, t("people.nobody"))];
}

function copyBox(page, message) {
  const id = "group-message";
  const area = h("textarea", { id, class: "message-text", readonly: true, rows: "4" }, message);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(message);
    } catch {
      area.select();
      document.execCommand("copy"); // an http:// page on the LAN has no clipboard API
    }
    page.notice(t("org.copied"), "info");
  };
  return [h("h3", {}, h("label", { for: id }, t("org.group_message"))), area,
    h("button", { type: "button", id: "copy-message", class: "wide", onclick: copy }, t("org.copy"))];
}

function mailList(date, nameOf) {
  if (!Array.isArray(date.mail) || !date.mail.length) return null;
  return [h("h3", {}, t("org.mail")), h("ul", { class: "mail-list" }, date.mail.map((mail) =>
    h("li", { class: mail.state }, `${nameOf(mail.memberId)} · ${t(`mail.kind_${mail.kind}`)} · ${t(`mail.state_${mail.state}`)}`,
      mail.at ? ` · ${shortWhenText(mail.at)}` : "")))];
}

/** Once the date is played (docs/PROTOCOL.md §22.3): whether a confirmed member played or did not come. */
function attendance(answer) {
  if (typeof answer.attended !== "boolean") return null;
  return h("span", { class: answer.attended ? "attended" : "attended no-show", dataset: { attended: String(answer.attended) } },
    t(answer.attended ? "list.attended" : "list.no_show"));
}

/** The opened date's card. */
function dateDetail(page, date, close, reload) {
  const members = new Map((page.club.members || []).map((member) => [String(member.id), member]));
  const nameOf = (id) => (members.get(String(id)) || { name: `#${id}` }).name;
  const answers = date.answers || [];
  const by = (state) => answers.filter((answer) => answer.state === state);
  const now = Date.now();
  const cancel = async () => {
    if (!(await page.confirmFirst(t("org.cancel_question", { title: date.title, when: whenText(date.startsAt) }), t("org.cancel_date")))) return;
    try { await page.call("POST", `/club/api/dates/${date.id}/cancel`, {}); reload(); } catch { /* said */ }
  };
  return [
    h("div", { class: "row spread" }, h("h2", { id: "date-title", tabindex: "-1" }, date.title),
      h("button", { type: "button", id: "date-back", class: "secondary", onclick: close }, t("org.back"))),
    h("p", { class: "when" }, whenText(date.startsAt), date.place ? ` · ${date.place}` : "", statusWord(date)),
    h("p", { class: "count" }, countText({ ...date, waiting: by("waiting").length })),
    ...section(t("list.confirmed"), by("confirmed").map((answer) => h("li", {}, h("span", {}, nameWithGuests(answer)), attendance(answer)))),
    ...section(t("list.offered"), by("offered").map((answer) => h("li", {}, h("span", {}, nameWithGuests(answer)),
      h("span", { class: "left" }, t("list.offer_left", { time: timeText(answer.offerExpiresAt, now) }), " · ",
        h("span", { class: "countdown", dataset: { expires: String(answer.offerExpiresAt) } }, leftText(answer.offerExpiresAt - now)))))),
    ...section(t("list.waiting"), by("waiting").sort((a, b) => (a.position || 0) - (b.position || 0))
      .map((answer) => h("li", {}, `${number(answer.position)}. ${nameWithGuests(answer)}`)), true),
    ...section(t("list.not_answered"), (date.notAnswered || []).map((id) => h("li", {}, nameOf(id)))),
    ...section(t("list.out"), by("out").map((answer) => h("li", {}, answer.name || nameOf(answer.memberId)))),
    date.status === "scheduled" ? answerFor(page, date, reload) : null,
    date.message ? copyBox(page, date.message) : null,
    mailList(date, nameOf),
    date.status === "scheduled" ? h("p", {}, h("button", { type: "button", id: "cancel-date", class: "danger wide", onclick: cancel }, t("org.cancel_date"))) : null,
  ];
}

export function datesView(page) {
  let openId = null;
  let opened = null; // the opened date as last read

  const close = () => {
    openId = null;
    opened = null;
    $("#date-view").hidden = true;
    $("#date-list-card").hidden = false;
  };

  async function readDate() {
    const id = openId;
    if (!id) return;
    try {
      const date = await page.call("GET", `/club/api/dates/${encodeURIComponent(id)}`);
      if (openId !== id) return;
      opened = date;
      replace($("#date-view"), dateDetail(page, date, close, readDate).flat());
      $("#date-view").hidden = false;
      $("#date-list-card").hidden = true;
    } catch (error) {
      if (error.status === 404) close();
    }
  }

  const open = (id) => { openId = String(id); readDate().then(() => $("#date-title")?.focus?.()); };

  setInterval(() => {
    const now = Date.now();
    for (const element of document.querySelectorAll("#date-view .countdown[data-expires]")) {
      const text = leftText(Number(element.dataset.expires) - now);
      if (element.textContent !== text) element.textContent = text;
    }
  }, 1000);

  return {
    render(club, changed) {
      const list = club.dates || [];
      replace($("#date-list"), list.length ? list.map((date) => h("li", {},
        h("button", { type: "button", class: "date-row", dataset: { date: String(date.id), status: date.status }, onclick: () => open(date.id) },
          h("strong", {}, shortWhenText(date.startsAt)), h("span", {}, date.title),
          h("span", { class: "count" }, date.status === "cancelled" ? t("date.cancelled") : countText(date))))) :
        h("li", { class: "empty" }, t("org.no_dates")));
      if (openId && (!changed || changed.includes(openId))) readDate();
    },
    get opened() { return opened; },
  };
}
