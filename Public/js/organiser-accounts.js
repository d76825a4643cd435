// The "Group" tab: the invite code and its QR code (the owner can rotate it), who organises
// (owner, last seen, online) with the owner's Remove / Make owner, and the organiser's own
// account: change password, log out everywhere. Every change that cannot be undone asks first,
// naming the person.

import { $, h, replace } from "./dom.js";
import { lang, serverText, t } from "./i18n.js";

/** Why this phone stopped being an organiser (a `session` message's `reason`), in the page's language. */
export function sessionEndedText(reason) { return ["removed", "password_changed", "logged_out"].includes(reason) ? serverText(reason) : null; }

/** "online now", "3 min ago", "yesterday 18:04", "12 Nov". */
export function lastSeenText(organiser, now = Date.now()) {
  if (organiser.online) return t("org.online_now");
  if (organiser.lastSeenAt == null) return t("org.seen_never");
  const minutes = Math.round((now - organiser.lastSeenAt) / 60000);
  if (minutes < 1) return t("org.seen_just_now");
  if (minutes < 60) return t("org.seen_minutes_ago", { minutes });
  if (minutes < 24 * 60) return t("org.seen_hours_ago", { hours: Math.round(minutes / 60) });
  return new Date(organiser.lastSeenAt).toLocaleDateString(lang, { day: "numeric", month: "short" });
}

export class AccountsView {
  constructor(live, notify) {
    Object.assign(this, { live, notify });
    this.dialog = $("#confirm");
    $("#organisers-refresh").addEventListener("click", () => this.refresh());
    $("#rotate-invite").addEventListener("click", () => this.rotate());
    $("#logout-everywhere").addEventListener("click", () => this.logoutEverywhere());
    $("#password-form").addEventListener("submit", (event) => this.changePassword(event));
  }

  /** The session said who we are: show the code, its QR and what an owner may do. */
  showSession(session) {
    const code = session.inviteCode || "";
    $("#invite-code").textContent = code;
    const qr = $("#invite-qr");
    const source = code ? `/qr.svg?invite=${encodeURIComponent(code)}` : "/qr.svg?page=organiser";
    if (qr.getAttribute("src") !== source) qr.setAttribute("src", source);
    $("#rotate-invite").hidden = !session.owner;
    $("#owner-note").textContent = session.owner ? t("org.you_are_owner") : "";
    if (this.list) this.render(this.list);
  }

  async refresh() {
    const reply = await this.live.request({ type: "organisers" });
    if (reply.type !== "account") {
      $("#organisers-status").textContent = reply.message;
      return;
    }
    this.list = reply.organisers;
    this.render(this.list);
  }

  render(list) {
    const owner = this.live.owner;
    $("#organisers-status").textContent = t("org.organisers_count", { count: list.length });
    replace($("#organiser-list"), list.map((organiser) => {
      const self = organiser.username === this.live.username;
      const actions = owner && !self && !organiser.owner ? h("div", { class: "row" },
        h("button", { type: "button", class: "secondary", onclick: () => this.makeOwner(organiser.username),
                      "aria-label": t("org.make_name_owner", { name: organiser.username }) }, t("org.make_owner")),
        h("button", { type: "button", class: "danger", onclick: () => this.remove(organiser.username),
                      "aria-label": t("org.remove_name", { name: organiser.username }) }, t("org.remove"))) : null;
      return h("li", { class: "organiser-row", dataset: { username: organiser.username } },
        h("div", { class: "who" },
          h("span", { class: `dot${organiser.online ? " on" : ""}`, "aria-hidden": "true" }),
          h("strong", {}, organiser.username),
          organiser.owner ? h("span", { class: "badge" }, t("org.owner_badge")) : null,
          self ? h("span", { class: "hint" }, t("org.you_mark")) : null),
        h("p", { class: "hint seen" }, `${lastSeenText(organiser)} · ${t("org.sessions_count", { count: organiser.sessions })}`),
        actions);
    }));
  }

  // MARK: - The owner's actions

  async remove(username) {
    const confirmed = await this.confirm(t("org.confirm_remove_title", { name: username }),
      t("org.confirm_remove_text", { name: username }), t("org.remove_name", { name: username }));
    if (!confirmed) return;
    const reply = await this.live.request({ type: "removeOrganiser", username });
    this.report(reply, t("org.no_longer_organiser", { name: reply.removed }));
  }

  async makeOwner(username) {
    const confirmed = await this.confirm(t("org.confirm_owner_title", { name: username }),
      t("org.confirm_owner_text", { name: username }), t("org.confirm_owner_action", { name: username }));
    if (!confirmed) return;
    const reply = await this.live.request({ type: "transferOwner", username });
    this.report(reply, t("org.owner_now", { name: reply.owner }));
  }

  async rotate() {
    const confirmed = await this.confirm(t("org.confirm_rotate_title"), t("org.confirm_rotate_text"), t("org.new_invite_code"));
    if (!confirmed) return;
    const reply = await this.live.request({ type: "rotateInvite" });
    if (reply.type === "account") {
      this.showSession({ inviteCode: reply.inviteCode, owner: true });
      this.notify(t("org.new_invite_code_is", { code: reply.inviteCode }), "info");
    } else {
      this.notify(reply.message);
    }
  }

  // MARK: - Your own account

  async changePassword(event) {
    event.preventDefault();
    const form = event.target;
    const { currentPassword, newPassword } = Object.fromEntries(new FormData(form).entries());
    const reply = await this.live.request({ type: "changePassword", currentPassword, newPassword });
    if (reply.type === "account") {
      form.reset();
      this.refresh();
      const others = reply.sessionsEnded;
      this.notify(others ? t("org.password_changed_others", { count: others }) : t("org.password_changed"), "info");
    } else {
      this.notify(reply.message);
    }
  }

  async logoutEverywhere() {
    const confirmed = await this.confirm(t("org.confirm_everywhere_title"), t("org.confirm_everywhere_text"), t("org.log_out_everywhere"));
    if (!confirmed) return;
    const reply = await this.live.request({ type: "logoutEverywhere" });
    if (reply.type !== "account") this.notify(reply.message);
  }

  report(reply, success) {
    if (reply.type === "account") {
      this.notify(success, "info");
      this.refresh();
    } else {
      this.notify(reply.message);
    }
  }

  /** A modal question with the action named on its button; resolves true only on that button. */
  confirm(title, text, action) {
    const dialog = this.dialog;
    $("#confirm-title").textContent = title;
    $("#confirm-text").textContent = text;
    $("#confirm-yes").textContent = action;
    return new Promise((resolve) => {
      dialog.addEventListener("close", () => resolve(dialog.returnValue === "yes"), { once: true });
      dialog.returnValue = "";
      dialog.showModal();
    });
  }
}
