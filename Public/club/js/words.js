// The club pages' words and times. The page's language is the venue pages' choice (i18n.js:
// `?lang=`, the one picked on this device, else the phone's); the club's sentences live in
// catalogues of their own (/i18n/club.LANG.json), so the venue's catalogues stay the venue's.
// Every date and time is written in the club's time zone (the API's `timeZone`) and always with
// the page's language passed: headless Chromium's default locale is en-US whatever the page says.

import { lang, number } from "/js/i18n.js";

export { lang, number };

async function load(code) {
  try {
    const response = await fetch(`/i18n/club.${code}.json`);
    return response.ok ? await response.json() : {};
  } catch {
    return {};
  }
}

const [english, own] = await Promise.all([load("en"), lang === "en" ? null : load(lang)]);
const catalogue = own || english;

function pick(entry, params) {
  if (typeof entry === "string") return entry;
  const count = Number(params[entry.plural]);
  if (entry[`=${count}`] !== undefined) return entry[`=${count}`];
  return entry[new Intl.PluralRules(lang).select(count)] ?? entry.other;
}

/** The sentence `key` in the page's language (else English) with `{names}` filled in. */
export function t(key, params = {}) {
  const entry = catalogue[key] ?? english[key];
  if (entry === undefined) return key;
  return pick(entry, params).replace(/\{(\w+)\}/g, (_, name) => {
    const value = params[name];
    if (value === undefined || value === null) return "";
    return typeof value === "number" ? number(value) : String(value);
  });
}

/** Writes the catalogue's words into `data-t` (text) and `data-t-label` (aria-label) elements. */
export function translate(root = document) {
  for (const element of root.querySelectorAll("[data-t]")) element.textContent = t(element.dataset.t);
  for (const element of root.querySelectorAll("[data-t-label]")) element.setAttribute("aria-label", t(element.dataset.tLabel));
}

let zone; // the club's IANA time zone, once the API has said it

/** Sets the club's time zone; a name this browser does not know falls back to the phone's own. */
export function setTimeZone(name) {
  try {
    new Intl.DateTimeFormat(lang, { timeZone: name });
    zone = name;
  } catch {
    zone = undefined;
  }
}

function format(epochMs, options) {
  return new Intl.DateTimeFormat(lang, { timeZone: zone, ...options }).format(new Date(epochMs));
}

/** "Sunday 6 December, 10:00" (the reader's order and words). */
export function whenText(epochMs) {
  return format(epochMs, { weekday: "long", day: "numeric", month: "long", hour: "2-digit", minute: "2-digit", hourCycle: "h23" });
}

/** "Sun 6 Dec, 10:00": a line of a list. */
export function shortWhenText(epochMs) {
  return format(epochMs, { weekday: "short", day: "numeric", month: "short", hour: "2-digit", minute: "2-digit", hourCycle: "h23" });
}

const WEEK_MS = 6 * 24 * 3600 * 1000;

/** "18:00" on the day of `reference` (the club's zone), "Sat 18:00" within the week, else "Sat 12 Dec, 18:00". */
export function timeText(epochMs, reference = Date.now()) {
  const day = (ms) => format(ms, { year: "numeric", month: "numeric", day: "numeric" });
  const time = format(epochMs, { hour: "2-digit", minute: "2-digit", hourCycle: "h23" });
  if (day(epochMs) === day(reference)) return time;
  if (Math.abs(epochMs - reference) > WEEK_MS) return shortWhenText(epochMs);
  return `${format(epochMs, { weekday: "short" })} ${time}`;
}

/** A weekday's name, 1 = Monday … 7 = Sunday (the contract's numbering). */
export function weekdayName(weekday) {
  // 2024-01-01 was a Monday; noon UTC is that same weekday in every zone.
  return new Intl.DateTimeFormat(lang, { weekday: "long", timeZone: "UTC" }).format(new Date(Date.UTC(2024, 0, weekday, 12)));
}

/** Time left as the phone should say it: "2 h 05 min", or "04:59" in the last hour. */
export function leftText(ms) {
  const seconds = Math.max(0, Math.ceil(ms / 1000));
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  if (hours > 0) return t("time.hours_minutes", { hours, minutes: String(minutes).padStart(2, "0") });
  return `${String(minutes).padStart(2, "0")}:${String(seconds % 60).padStart(2, "0")}`;
}

/** "9 of 14 in · 2 waiting" (the waiting part only when someone waits). */
export function countText(date) {
  const base = t("count.in", { confirmed: date.confirmedSeats, capacity: date.capacity });
  return date.waiting ? `${base} · ${t("count.waiting", { count: date.waiting })}` : base;
}

/** "Ann", "Ann +2". */
export function nameWithGuests(entry) {
  return entry.guests ? `${entry.name} +${number(entry.guests)}` : entry.name;
}

/** An ordinal for a waiting position: "2nd", "2.º", "2e"… (forms by Intl's ordinal rules). */
export function ordinal(position) {
  const forms = catalogue.ordinal ?? english.ordinal ?? {};
  const form = forms[new Intl.PluralRules(lang, { type: "ordinal" }).select(position)] ?? forms.other ?? "{n}";
  return form.replace("{n}", number(position));
}
