// The console's "Referees" card (Group tab): per pitch a "Referee link" button
// (`createRefereeLink`), the link it made with its QR code, and the live links (state `referees`)
// with whether a phone is on them now (presence `referees`) and Revoke; and the button that
// makes the day's sheet of QR codes (organiser-referee-sheet.js).
//
// A link's code is known only when it is made (the server keeps its hash), so the link and its QR
// code are shown only on the page that made it, while that page stays open; links made elsewhere
// are listed without them.

import { $, h, replaceFor, replace } from "./dom.js";
import { dateTimeText, t } from "./i18n.js";
import { RefereeSheet, qrSource } from "./organiser-referee-sheet.js";

/** The code inside a link's `url` (`/organiser.html#referee=CODE`), or null. */
export function codeOf(url) {
  const hash = typeof url === "string" ? url.split("#")[1] || "" : "";
  const code = new URLSearchParams(hash).get("referee");
  return code && /^[A-Za-z0-9_-]{16,64}$/.test(code) ? code : null;
}

export class RefereesView {
  /** `perform(action)` sends a command; `confirm(title, text, action)` asks a modal question. */
  constructor(live, perform, confirm) {
    Object.assign(this, { live, perform, confirm });
    this.made = new Map(); // link id -> { code, link } made on this page
    this.connected = new Set(); // link ids with a phone on them now
    this.list = h("ul", { id: "referee-pitches", class: "referee-pitches" });
    this.sheet = new RefereeSheet(live, this);
    this.root = $("#referees");
    replace(this.root,
      h("h2", { id: "referees-title", tabindex: "-1" }, t("ref.referees")),
      h("p", { class: "hint" }, t("ref.console_hint")),
      this.list,
      h("button", { type: "button", id: "referee-sheet-make", class: "secondary wide", onclick: () => this.sheet.make() }, t("ref.sheet_button")),
      h("p", { class: "hint" }, t("ref.codes_here_only")));
  }

  /** The live links `[{id, pitch, label, expiresAt}]`: the state's `referees` where the server puts
   *  them there, else the organisers' last `referees` message. */
  links(state) {
    if (state && Array.isArray(state.referees)) return state.referees;
    const told = this.live.referees;
    return told && Array.isArray(told.referees) ? told.referees : [];
  }

  /** Links on `pitch` (oldest first). */
  linksOn(state, pitch) {
    return this.links(state).filter((link) => link.pitch === pitch).sort((a, b) => a.id - b.id);
  }

  render(state) {
    replaceFor(this.list, [state.pitches, this.links(state), this.made.size, this.connectedKey], () => state.pitches.map((pitch) =>
      h("li", { class: "referee-pitch", dataset: { pitch: pitch.id } },
        h("h3", {}, pitch.name),
        h("ul", { class: "referee-links" }, this.linksOn(state, pitch.id).map((link) => this.linkItem(link, pitch))),
        h("button", { type: "button", class: "referee-create", dataset: { pitch: pitch.id },
          "aria-label": t("ref.new_link_for", { pitch: pitch.name }), onclick: () => this.create(pitch.id) }, t("ref.referee_link")))));
    this.sheet.render(state);
  }

  linkItem(link, pitch) {
    const made = this.made.get(link.id);
    const on = this.connected.has(link.id);
    return h("li", { class: "referee-link", dataset: { id: link.id } },
      h("p", { class: "referee-who" }, h("strong", {}, link.label), " ",
        h("span", { class: on ? "dot on" : "dot", "aria-hidden": "true" }), " ",
        h("span", { class: "referee-phone" }, on ? t("ref.phone_connected") : t("ref.no_phone"))),
      h("p", { class: "hint" }, t("ref.valid_until", { time: dateTimeText(link.expiresAt) })),
      made ? h("div", { class: "referee-made" },
        h("p", { class: "referee-url" }, made.link),
        h("img", { class: "qr referee-qr", src: qrSource(made.code), width: "220", height: "220",
          alt: t("ref.qr_of", { label: link.label }) })) : null,
      h("button", { type: "button", class: "danger referee-revoke", dataset: { id: link.id },
        "aria-label": t("ref.revoke_label", { label: link.label }), onclick: () => this.revoke(link, pitch) }, t("ref.revoke")));
  }

  /** A `referees` message: the links, and `connected`, those with a phone on them now. */
  showLinks(message) {
    if (Array.isArray(message.connected)) this.showPresence(message.connected);
    else if (this.live.state) this.render(this.live.state);
  }

  /** The ids of links with a phone connected now (presence's or the `referees` message's). */
  showPresence(ids) {
    if (!Array.isArray(ids)) return;
    this.connected = new Set(ids);
    this.connectedKey = [...this.connected].sort((a, b) => a - b).join(",");
    if (this.live.state) this.render(this.live.state);
  }

  /** Makes a link for `pitch` and keeps its code for this page; resolves with the link's id, or null.
   *  Its label is "PITCH referee" in the console's language (the server's default is English),
   *  left to the server when that would pass the 40 characters a label may have. */
  async create(pitch) {
    const name = (this.live.state?.pitches || []).find((candidate) => candidate.id === pitch)?.name;
    const label = name ? t("ref.default_label", { pitch: name }) : "";
    const fits = label && [...new Intl.Segmenter().segment(label)].length <= 40;
    const reply = await this.perform(fits ? { kind: "createRefereeLink", pitch, label } : { kind: "createRefereeLink", pitch });
    const result = reply.type === "ack" ? reply.result || {} : {};
    const code = codeOf(result.url);
    if (!code) return null;
    this.made.set(result.id, { code, link: new URL(result.url, location.origin).href, pitch });
    if (this.live.state) this.render(this.live.state);
    return result.id;
  }

  async revoke(link, pitch) {
    const sure = await this.confirm(t("ref.confirm_revoke_title", { label: link.label }), t("ref.confirm_revoke_text", { pitch: pitch.name }), t("ref.revoke"));
    if (!sure) return;
    const reply = await this.perform({ kind: "revokeRefereeLink", id: link.id });
    if (reply.type === "ack") this.made.delete(link.id);
  }
}
