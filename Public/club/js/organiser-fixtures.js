// The organisers' Fixtures tab: the weekly games (add, edit, pause, resume). A fixture's dates
// follow it (the server moves every date not yet started); pausing cancels them, so it asks first.
// The form's limits are the contract's; the server checks them again.

import { $, h, replace } from "/js/dom.js";
import { t, weekdayName, number } from "./words.js";

// [name, label key, min, max, default]: the numbers a fixture has (PROTOCOL.md, "Members, fixtures and dates").
const MAIN_NUMBERS = [["durationMinutes", "fix.duration", 10, 240, 60], ["capacity", "fix.capacity", 2, 60, 14]];
const MORE_NUMBERS = [["opensHoursBefore", "fix.opens_hours", 1, 336, 144], ["closesMinutesBefore", "fix.closes_minutes", 0, 1440, 60],
  ["claimHours", "fix.claim_hours", 1, 72, 12], ["lastMinuteHours", "fix.last_minute_hours", 0, 48, 3]];

function numberField(prefix, [name, key, min, max, fallback], fixture) {
  const id = `${prefix}-${name}`;
  return h("label", { for: id }, h("span", {}, t(key)),
    h("input", { id, name, type: "number", inputmode: "numeric", required: true, min: String(min), max: String(max), step: "1",
      value: String(fixture[name] ?? fallback) }));
}

function fixtureFields(prefix, fixture = {}) {
  return [
    h("label", { for: `${prefix}-title` }, h("span", {}, t("fix.title")),
      h("input", { id: `${prefix}-title`, name: "title", required: true, maxlength: "60", value: fixture.title || "" })),
    h("div", { class: "row" },
      h("label", { for: `${prefix}-weekday` }, h("span", {}, t("fix.weekday")),
        h("select", { id: `${prefix}-weekday`, name: "weekday" },
          ...[1, 2, 3, 4, 5, 6, 7].map((day) => h("option", { value: String(day), selected: (fixture.weekday ?? 7) === day }, weekdayName(day))))),
      h("label", { for: `${prefix}-time` }, h("span", {}, t("fix.time")),
        h("input", { id: `${prefix}-time`, name: "time", type: "time", required: true, value: fixture.time || "10:00" }))),
    h("label", { for: `${prefix}-place` }, h("span", {}, t("fix.place")),
      h("input", { id: `${prefix}-place`, name: "place", maxlength: "80", value: fixture.place || "" })),
    h("div", { class: "row" }, ...MAIN_NUMBERS.map((spec) => numberField(prefix, spec, fixture))),
    h("details", { class: "more" }, h("summary", {}, t("fix.more")),
      h("div", { class: "stack" }, ...MORE_NUMBERS.map((spec) => numberField(prefix, spec, fixture)))),
  ];
}

/** The form's values as the API wants them (numbers as numbers). */
function valuesOf(form) {
  const values = {
    title: form.elements.title.value.trim(),
    weekday: Number(form.elements.weekday.value),
    time: form.elements.time.value,
    place: form.elements.place.value.trim(),
  };
  for (const [name] of [...MAIN_NUMBERS, ...MORE_NUMBERS]) values[name] = Number(form.elements[name].value);
  return values;
}

export function fixturesView(page) {
  let fixtures = [];
  let editing = null;

  function summary(fixture) {
    return t("fix.summary", { weekday: weekdayName(fixture.weekday), time: fixture.time, minutes: fixture.durationMinutes,
      capacity: fixture.capacity }) + (fixture.place ? ` · ${fixture.place}` : "");
  }

  async function setActive(fixture, active) {
    if (!active && !(await page.confirmFirst(t("fix.pause_question", { title: fixture.title }), t("fix.pause")))) return;
    try {
      await page.call("PATCH", `/club/api/fixtures/${fixture.id}`, { active });
      page.refresh();
    } catch { /* said */ }
  }

  function editForm(fixture) {
    const save = async (event) => {
      event.preventDefault();
      const values = valuesOf(event.target);
      const body = Object.fromEntries(Object.entries(values).filter(([name, value]) => value !== fixture[name]));
      try {
        if (Object.keys(body).length) await page.call("PATCH", `/club/api/fixtures/${fixture.id}`, body);
        editing = null;
        draw();
        page.refresh();
      } catch { /* said */ }
    };
    return h("form", { class: "stack edit-fixture", onsubmit: save },
      h("h3", {}, t("fix.edit_title", { title: fixture.title })),
      ...fixtureFields(`edit-${fixture.id}`, fixture),
      h("p", { class: "hint" }, t("fix.dates_follow")),
      h("div", { class: "row" },
        h("button", { type: "submit" }, t("org.save")),
        h("button", { type: "button", class: "secondary", onclick: () => { editing = null; draw(); } }, t("org.cancel"))));
  }

  function row(fixture) {
    const id = String(fixture.id);
    const paused = fixture.active === false;
    if (editing === id) return h("li", { class: "fixture-row", dataset: { fixture: id } }, editForm(fixture));
    return h("li", { class: `fixture-row${paused ? " paused" : ""}`, dataset: { fixture: id } },
      h("div", {}, h("strong", {}, fixture.title), paused ? h("span", { class: "badge" }, t("org.paused")) : null),
      h("span", {}, summary(fixture)),
      h("div", { class: "actions" },
        h("button", { type: "button", class: "secondary edit", onclick: () => { editing = id; draw(); } }, t("org.edit")),
        paused ? h("button", { type: "button", class: "resume", onclick: () => setActive(fixture, true) }, t("fix.resume"))
          : h("button", { type: "button", class: "secondary pause", onclick: () => setActive(fixture, false) }, t("fix.pause"))));
  }

  function draw() {
    replace($("#fixture-list"), fixtures.length ? fixtures.map(row) : h("li", { class: "empty" }, t("fix.none")));
    $("#fixtures-title").textContent = `${t("org.fixtures")} (${number(fixtures.length)})`;
  }

  const form = $("#fixture-form");
  replace(form, ...fixtureFields("add"), h("button", { type: "submit", id: "add-fixture" }, t("fix.add")));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      await page.call("POST", "/club/api/fixtures", valuesOf(form));
      form.reset();
      page.refresh();
    } catch { /* said */ }
  });

  return {
    render(club) {
      fixtures = club.fixtures || [];
      if (editing === null) draw();
    },
  };
}
