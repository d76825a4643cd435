// Our own small t(): there is no package registry for browser libraries here; the browser's Intl
// does the hard parts (plural rules, numbers, dates, language names).
//
// The page's language: `?lang=` (the projector), else the one chosen on this device, else the
// best match of the phone's languages, English last. Importing this module loads its catalogue
// (top-level await), so every page module can call t() at once. A key missing in a language
// falls back to English, and a sentence the server sent with a key no catalogue knows falls
// back to the server's English message: never a raw key on screen.

export const LANGUAGES = ["en", "es", "pt", "fr", "de", "it"];
const STORED = "gather.language";

function stored() {
  try { return localStorage.getItem(STORED); } catch { return null; }
}

/** The first of `wanted` (BCP 47 tags, most wanted first) we have, by language ("pt-BR" → pt). */
export function bestMatch(wanted) {
  for (const tag of wanted || []) {
    const base = String(tag).toLowerCase().split("-")[0];
    if (LANGUAGES.includes(base)) return base;
  }
  return "en";
}

function chosen() {
  const asked = new URLSearchParams(location.search).get("lang");
  if (asked && LANGUAGES.includes(asked)) return asked;
  const kept = stored();
  if (kept && LANGUAGES.includes(kept)) return kept;
  return bestMatch(navigator.languages && navigator.languages.length ? navigator.languages : [navigator.language]);
}

async function load(code) {
  try {
    const response = await fetch(`/i18n/${code}.json`);
    return response.ok ? await response.json() : {};
  } catch {
    return {};
  }
}

export const lang = chosen();
const [english, own] = await Promise.all([load("en"), lang === "en" ? null : load(lang)]);
const catalogue = own || english;
document.documentElement.lang = lang;
// The installed app's description in this language (a manifest has no translations of its own:
// one file per language, same id and start_url, so it is the same app; its name is the brand).
const manifestLink = document.querySelector('link[rel="manifest"]');
if (manifestLink && lang !== "en") manifestLink.href = `/i18n/manifest.${lang}.webmanifest`;

function fill(text, params) {
  return text.replace(/\{(\w+)\}/g, (whole, name) => {
    const value = params[name];
    if (value === undefined || value === null) return whole === "{}" ? "" : "";
    return typeof value === "number" ? number(value) : String(value);
  });
}

function pick(entry, params) {
  if (typeof entry === "string") return entry;
  const count = Number(params[entry.plural]);
  if (entry[`=${count}`] !== undefined) return entry[`=${count}`];
  return entry[new Intl.PluralRules(lang).select(count)] ?? entry.other;
}

/** Whether a key has words in this page's language or in English. */
export function has(key) {
  return catalogue[key] !== undefined || english[key] !== undefined;
}

/**
 * The sentence `key` with its `{placeholders}` filled from `params` (numbers written the
 * reader's way), in the page's language, else in English, else `fallback`.
 */
export function t(key, params = {}, fallback = "") {
  const entry = catalogue[key] ?? english[key];
  if (entry === undefined) return fallback;
  return fill(pick(entry, params), params);
}

export function number(value) {
  return new Intl.NumberFormat(lang).format(value);
}

/**
 * Hours and minutes in the reader's way (Intl's default locale in headless Chromium is en-US
 * whatever the page's language, so the language is always passed).
 */
export function timeText(date, withSeconds = false) {
  return date.toLocaleTimeString(lang, { hour: "2-digit", minute: "2-digit", hourCycle: "h23", ...(withSeconds ? { second: "2-digit" } : {}) });
}

/** The weekday of an instant, in the page's language ("Sunday", "domingo"). */
export function weekdayText(epochMs) {
  return new Date(epochMs).toLocaleDateString(lang, { weekday: "long" });
}

export function dateTimeText(epochMs) {
  return new Date(epochMs).toLocaleString(lang, { dateStyle: "medium", timeStyle: "short" });
}

/**
 * What the server said (`rejected`, `error`, `activity` item, `session` reason, `link`), in the
 * page's language from its `reason` and `params`; the English `message` when no catalogue has it.
 */
export function serverText(reason, params = {}, message = "") {
  // English pages show the server's own words, which carry every detail (the field, the id).
  if (!reason || !has(`server.${reason}`) || (lang === "en" && message)) return message;
  const values = { ...params };
  if (typeof values.seconds === "number") values.seconds2 = String(values.seconds).padStart(2, "0");
  if (reason === "link_lost" && values.since) {
    const at = new Date(values.since);
    values.time = Number.isNaN(at.getTime()) ? "" : timeText(at);
  }
  const bare = `server.${reason}.bare`;
  if (values.team === undefined && values.teamA === undefined && has(bare)) return t(bare, values);
  const credit = values.scorer && values.assist ? "credit_both" : values.scorer ? "credit_scorer" : values.assist ? "credit_assist" : null;
  return t(`server.${reason}`, values, message) + (credit ? " " + t(`server.${credit}`, values) : "");
}

/** Catalogue text with **strong** and `code` spans, as DOM nodes (never parsed as HTML). */
function richNodes(text) {
  return text.split(/(\*\*[^*]+\*\*|`[^`]+`)/).filter(Boolean).map((part) => {
    const tag = part.startsWith("**") ? "strong" : part.startsWith("`") ? "code" : null;
    if (!tag) return document.createTextNode(part);
    const element = document.createElement(tag);
    element.textContent = part.slice(tag === "strong" ? 2 : 1, tag === "strong" ? -2 : -1);
    return element;
  });
}

/**
 * Writes the catalogue's words into the page's fixed text: `data-i18n` (text), `data-i18n-rich`
 * (text with **strong** and `code` parts),
 * `data-i18n-aria-label`, `data-i18n-placeholder`, `data-i18n-title`, `data-i18n-content`.
 */
export function translateDocument(root = document) {
  for (const element of root.querySelectorAll("[data-i18n]")) element.textContent = t(element.dataset.i18n, {}, element.textContent);
  for (const element of root.querySelectorAll("[data-i18n-rich]")) {
    if (has(element.dataset.i18nRich)) element.replaceChildren(...richNodes(t(element.dataset.i18nRich)));
  }
  for (const [attribute, data] of [["aria-label", "i18nAriaLabel"], ["placeholder", "i18nPlaceholder"], ["title", "i18nTitle"],
    ["content", "i18nContent"], ["alt", "i18nAlt"]]) {
    for (const element of root.querySelectorAll(`[data-i18n-${attribute}]`)) {
      element.setAttribute(attribute, t(element.dataset[data], {}, element.getAttribute(attribute) || ""));
    }
  }
}

/**
 * A language picker (each language named in itself), remembered on this device; choosing one
 * reloads the page in it.
 */
export function languageSwitch() {
  const id = "language-switch";
  const select = document.createElement("select");
  select.id = id;
  select.className = "language-switch";
  for (const code of LANGUAGES) {
    const option = document.createElement("option");
    option.value = code;
    option.textContent = new Intl.DisplayNames([code], { type: "language" }).of(code);
    option.lang = code;
    option.selected = code === lang;
    select.append(option);
  }
  select.setAttribute("aria-label", t("page.language"));
  select.addEventListener("change", () => {
    try { localStorage.setItem(STORED, select.value); } catch { /* private mode: this page only */ }
    const url = new URL(location.href);
    url.searchParams.delete("lang");
    location.replace(url.href);
  });
  return select;
}

/**
 * Translates the fixed text and puts the picker at the end of the page (the projector: beside Full screen),
 * where it crowds nothing a narrow header needs.
 */
export function localisePage(place = document.querySelector(".corner") || document.querySelector("main") || document.body) {
  translateDocument();
  if (!document.getElementById("language-switch")) place.append(languageSwitch());
}
