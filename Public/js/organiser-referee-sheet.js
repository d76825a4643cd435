// The day's sheet of referee QR codes: one button makes a link for each pitch of the tournament
// (every pitch when there is none) that has no link made on this page, then shows a page of its
// own, one card per pitch (pitch, label, QR code, valid until), for the printer (@media print in
// referees.css) or the screen.
//
// Codes exist only where they were made (the server keeps a hash): the sheet holds the links made
// on this page since it was opened, and says so. A pitch whose link was made elsewhere gets a new
// one; the older link keeps working until it is revoked or expires.

import { $, h, replace, replaceFor } from "./dom.js";
import { dateTimeText, t } from "./i18n.js";

/** What a referee's phone scans: the trust steps first when the server has its own CA, then the page. */
export function qrSource(code) { return `/qr.svg?referee=${code}`; }

export class RefereeSheet {
  /** `referees` is the console's RefereesView: its `made` codes and its `create(pitch)`. */
  constructor(live, referees) {
    Object.assign(this, { live, referees });
    this.status = h("p", { id: "referee-sheet-status", class: "hint", role: "status" });
    this.cards = h("ul", { id: "referee-sheet-cards", class: "sheet-cards" });
    this.title = h("h1", { id: "referee-sheet-title" });
    // The page's one visible main while it is open (the console's are hidden meanwhile).
    this.root = h("main", { id: "referee-sheet", class: "referee-sheet", hidden: true, "aria-labelledby": "referee-sheet-title" },
      h("div", { class: "sheet-head" }, this.title,
        h("p", { class: "hint sheet-note" }, t("ref.sheet_note")),
        h("div", { class: "row sheet-actions" },
          h("button", { type: "button", id: "referee-sheet-print", onclick: () => print() }, t("ref.print")),
          h("button", { type: "button", id: "referee-sheet-close", class: "secondary", onclick: () => this.close() }, t("ref.close"))),
        this.status),
      this.cards);
    document.body.append(this.root);
  }

  /** The pitches the day needs a referee on: the tournament's (still there), else every pitch. */
  pitches(state) {
    const tournament = state.tournament && state.tournament.phase !== "finished" ? state.tournament : null;
    return tournament ? state.pitches.filter((pitch) => tournament.rules.pitches.includes(pitch.id)) : state.pitches;
  }

  /** A live link of `pitch` whose code this page holds, or null. */
  knownLink(state, pitch) {
    return this.referees.linksOn(state, pitch).find((link) => this.referees.made.has(link.id)) || null;
  }

  /** Makes the missing links, one after the other, then shows the sheet. */
  async make() {
    const state = this.live.state;
    if (!state) return;
    const button = $("#referee-sheet-make");
    button.disabled = true;
    let failed = 0;
    try {
      for (const pitch of this.pitches(state)) {
        if (this.knownLink(this.live.state, pitch.id)) continue;
        if (await this.referees.create(pitch.id) === null) failed += 1;
      }
    } finally {
      button.disabled = false;
    }
    this.open(failed);
  }

  open(failed = 0) {
    this.root.hidden = false;
    document.body.classList.add("sheet-open");
    this.status.textContent = failed ? t("ref.sheet_some_failed", { count: failed }) : "";
    this.render(this.live.state);
    scrollTo(0, 0);
    $("#referee-sheet-print").focus();
  }

  close() {
    this.root.hidden = true;
    document.body.classList.remove("sheet-open");
    $("#referee-sheet-make").focus();
  }

  render(state) {
    if (this.root.hidden || !state) return;
    const tournament = state.tournament;
    this.title.textContent = tournament ? t("ref.sheet_title_of", { name: tournament.name }) : t("ref.sheet_title");
    const made = [...this.referees.made.keys()].join(",");
    replaceFor(this.cards, [state.pitches, this.referees.links(state), state.tournament, made], () => this.pitches(state).map((pitch) => {
      const link = this.knownLink(state, pitch.id);
      const code = link && this.referees.made.get(link.id);
      return h("li", { class: "sheet-card", dataset: { pitch: pitch.id } },
        h("h2", {}, pitch.name),
        link ? [h("p", { class: "sheet-label" }, link.label),
          h("img", { class: "sheet-qr", src: qrSource(code.code), width: "240", height: "240", alt: t("ref.qr_of", { label: link.label }) }),
          h("p", { class: "sheet-expiry" }, t("ref.valid_until", { time: dateTimeText(link.expiresAt) })),
          h("p", { class: "sheet-steps" }, t("ref.sheet_steps")),
          h("p", { class: "sheet-url" }, code.link)]
          : h("p", { class: "hint" }, t("ref.sheet_no_code")));
    }));
  }
}
