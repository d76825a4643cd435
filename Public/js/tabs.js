// The organiser's sections as a WAI-ARIA tab set: one tab in the Tab order (roving tabindex);
// Left/Right (wrapping), Home and End move to a tab and show its panel at once.

export class Tabs {
  constructor(list, onSelect = () => {}) {
    this.tabs = [...list.querySelectorAll('[role="tab"]')];
    this.onSelect = onSelect;
    for (const tab of this.tabs) {
      tab.addEventListener("click", () => this.select(tab.dataset.tab));
      tab.addEventListener("keydown", (event) => this.move(event, tab));
    }
  }

  get selected() {
    const tab = this.tabs.find((candidate) => candidate.getAttribute("aria-selected") === "true");
    return tab ? tab.dataset.tab : null;
  }

  select(name, { focus = false } = {}) {
    for (const tab of this.tabs) {
      const chosen = tab.dataset.tab === name;
      tab.setAttribute("aria-selected", String(chosen));
      tab.tabIndex = chosen ? 0 : -1;
      document.getElementById(tab.getAttribute("aria-controls")).hidden = !chosen;
      if (chosen && focus) tab.focus();
    }
    this.onSelect(name);
  }

  move(event, tab) {
    const index = this.tabs.indexOf(tab);
    const last = this.tabs.length - 1;
    const target = { ArrowLeft: index === 0 ? last : index - 1, ArrowRight: index === last ? 0 : index + 1, Home: 0, End: last }[event.key];
    if (target === undefined || event.altKey || event.ctrlKey || event.metaKey) return;
    event.preventDefault();
    this.select(this.tabs[target].dataset.tab, { focus: true });
  }
}
