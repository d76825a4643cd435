// The "Activity" tab: who changed what and when, newest first, from the server's journal
// (`activity`), a page of 20 at a time with "Show older" going back.

import { $, h, replace } from "./dom.js";
import { lang, t, timeText } from "./i18n.js";

const PAGE = 20;

export function whenText(at, now = Date.now()) {
  const date = new Date(at);
  const time = timeText(date);
  const sameDay = new Date(now).toDateString() === date.toDateString();
  return sameDay ? time : `${date.toLocaleDateString(lang, { day: "numeric", month: "short" })} ${time}`;
}

export class ActivityView {
  constructor(live) {
    this.live = live;
    this.items = [];
    $("#activity-refresh").addEventListener("click", () => this.load());
    $("#activity-older").addEventListener("click", () => this.load(this.items.at(-1)?.version));
  }

  /** `before` nil: the newest page (replacing the list); a version: the page before it (appended). */
  async load(before) {
    const status = $("#activity-status");
    const reply = await this.live.request(before == null ? { type: "activity", limit: PAGE }
                                                          : { type: "activity", limit: PAGE, before });
    if (reply.type !== "activity") {
      status.textContent = reply.message;
      return;
    }
    this.items = before == null ? reply.items : this.items.concat(reply.items);
    const more = reply.items.length === PAGE && this.items.at(-1).version > 1;
    $("#activity-older").hidden = !more;
    status.textContent = this.items.length ? "" : t("org.no_changes_yet");
    this.render();
  }

  render() {
    const pitches = new Map((this.live.state?.pitches || []).map((pitch) => [pitch.id, pitch.name]));
    const several = pitches.size > 1;
    replace($("#activity-list"), this.items.map((item) => h("li", { class: "activity-item" },
      h("p", { class: "summary" }, item.summary),
      h("p", { class: "hint" },
        h("strong", {}, item.organiser || t("org.the_server")), ` · ${whenText(item.at)}`,
        several && item.pitch != null ? ` · ${pitches.get(item.pitch) || t("page.pitch_number", { id: item.pitch })}` : ""))));
  }
}
