// The "Group" tab: the invite code and its QR code (the owner can rotate it), who organises
// (owner, last seen, online) with the owner's Remove / Make owner, and the organiser's own
// account: change password, log out everywhere. Every change that cannot be undone asks first,
// naming the person.

import { $, h, replace } from "./dom.js";
import { serverText, t } from "./i18n.js";

/** Why this phone stopped being an organiser (a `session` message's `reason`), in the page's language. */
export function sessionEndedText(reason) { return ["removed", "password_changed", "logged_out"].includes(reason) ? serverText(reason) : null; }

/** "online now", "3 min ago", "yesterday 18:04", "12 Nov". */
export function lastSeenText(organiser, now = Date.now()) {
  if (organiser.online) return "online now";
  if (organiser.lastSeenAt == null) return "never";
  const minutes = Math.round((now - organiser.lastSeenAt) / 60000);
  if (minutes < 1) return "just now";
  if (minutes < 60) return `${minutes} min ago`;
  if (minutes < 24 * 60) return `${Math.round(minutes / 60)} h ago`;
  return new Date(organiser.lastSeenAt).toLocaleDateString(undefined, { day: "numeric", month: "short" });
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
    $("#owner-note").textContent = session.owner ? "You are the owner of this group." : "";
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
    $("#organisers-status").textContent = `${list.length} organiser${list.length === 1 ? "" : "s"}`;
    replace($("#organiser-list"), list.map((organiser) => {
      const self = organiser.username === this.live.username;
      const actions = owner && !self && !organiser.owner ? h("div", { class: "row" },
        h("button", { type: "button", class: "secondary", onclick: () => this.makeOwner(organiser.username),
                      "aria-label": `Make ${organiser.username} the owner` }, "Make owner"),
        h("button", { type: "button", class: "danger", onclick: () => this.remove(organiser.username),
                      "aria-label": `Remove ${organiser.username}` }, "Remove")) : null;
      return h("li", { class: "organiser-row", dataset: { username: organiser.username } },
        h("div", { class: "who" },
          h("span", { class: `dot${organiser.online ? " on" : ""}`, "aria-hidden": "true" }),
          h("strong", {}, organiser.username),
          organiser.owner ? h("span", { class: "badge" }, "owner") : null,
          self ? h("span", { class: "hint" }, "(you)") : null),
        h("p", { class: "hint seen" }, `${lastSeenText(organiser)} · ${organiser.sessions} session${organiser.sessions === 1 ? "" : "s"}`),
        actions);
    }));
  }

  // MARK: - The owner's actions

  async remove(username) {
    const confirmed = await this.confirm(`Remove ${username}?`,
      `${username}'s phones become spectators at once and ${username} can no longer log in. What they did keeps their name.`,
      `Remove ${username}`);
    if (!confirmed) return;
    const reply = await this.live.request({ type: "removeOrganiser", username });
    this.report(reply, `${reply.removed} is no longer an organiser.`);
  }

  async makeOwner(username) {
    const confirmed = await this.confirm(`Make ${username} the owner?`,
      `${username} will manage the group (invite code, removing organisers); you stay an organiser.`,
      `Make ${username} owner`);
    if (!confirmed) return;
    const reply = await this.live.request({ type: "transferOwner", username });
    this.report(reply, `${reply.owner} is the owner now.`);
  }

  async rotate() {
    const confirmed = await this.confirm("Make a new invite code?",
      "The current code (and any printed QR code) stops working at once.", "New invite code");
    if (!confirmed) return;
    const reply = await this.live.request({ type: "rotateInvite" });
    if (reply.type === "account") {
      this.showSession({ inviteCode: reply.inviteCode, owner: true });
      this.notify(`New invite code: ${reply.inviteCode}`, "info");
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
      this.notify(`Password changed${others ? `; ${others} other session${others === 1 ? "" : "s"} logged out` : ""}.`, "info");
    } else {
      this.notify(reply.message);
    }
  }

  async logoutEverywhere() {
    const confirmed = await this.confirm("Log out everywhere?",
      "Every phone and computer logged in as you is logged out, this one included.", "Log out everywhere");
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
