// A tiny element builder: text always goes in as text, never as HTML.

/** element -> { type: listener }: the listeners `h` attached, so that an update in place can hand a
 *  kept element the new listeners (closing over the new state) instead of the old ones. */
const listeners = new WeakMap();

function listen(element, type, listener) {
  let byType = listeners.get(element);
  if (!byType) listeners.set(element, byType = {});
  if (!(type in byType)) element.addEventListener(type, (event) => { const current = listeners.get(element)[type]; if (current) current(event); });
  byType[type] = listener;
}

export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (value === false || value === null || value === undefined) continue;
    if (key.startsWith("on")) listen(element, key.slice(2), value);
    else if (key === "class") element.className = value;
    else if (key === "dataset") Object.assign(element.dataset, value);
    else if (value === true) element.setAttribute(key, "");
    else element.setAttribute(key, value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return element;
}

export function $(selector) { return document.querySelector(selector); }

/** Writes `text` only when it differs. The clocks are written four times a second and on every
 *  tick of every pitch, and an identical write still replaces the text node: a relayout and a
 *  repaint each time (16 live pitches on the overview kept a third of a core busy). */
export function setText(element, text) {
  if (element.textContent !== text) element.textContent = text;
}

/**
 * Makes `container`'s children look like `children`, updating in place: an element already there
 * with the same key (see `keyOf`), or at the same place among the unkeyed ones with the same tag,
 * is kept and brought up to date (attributes, listeners, text, children, recursively); only
 * elements added or removed change. A list rebuilt between a finger going down and coming up
 * would put a new button under it, and the tap would be lost (a pitch list rebuilt 9 times in
 * 9 s while another organiser scored).
 */
export function replace(container, ...children) {
  reconcile(container, children.flat().filter((child) => child !== null && child !== undefined && child !== false)
    .map((child) => (child instanceof Node ? child : document.createTextNode(String(child)))));
}

/** What identifies a list's element across renders: `data-key`, else its id, else the id of the
 *  thing it shows (`data-id`, `data-pitch`, `data-match`, `data-team`). */
function keyOf(node) {
  if (node.nodeType !== Node.ELEMENT_NODE) return null;
  const data = node.dataset || {};
  const key = data.key ?? (node.id || null) ?? data.id ?? data.pitch ?? data.match ?? data.team ?? null;
  return key === null ? null : `${node.nodeName}#${key}`;
}

/** Nodes that live on between renders (a form kept by its owner, a panel shown again): these are
 *  placed as they are, never merged into another element. */
const placed = new WeakSet();

function reconcile(parent, fresh) {
  const old = [...parent.childNodes];
  const byKey = new Map();
  const unkeyed = [];
  for (const node of old) {
    const key = keyOf(node);
    if (key !== null && !byKey.has(key)) byKey.set(key, node); else unkeyed.push(node);
  }
  const reused = new Set(fresh.filter((node) => node.parentNode === parent));
  let next = 0;
  const result = fresh.map((node) => {
    if (reused.has(node) || node.isConnected || placed.has(node)) return node;
    const key = keyOf(node);
    let match = null;
    if (key !== null) {
      match = byKey.get(key) || null;
      if (match && reused.has(match)) match = null;
      byKey.delete(key);
    } else {
      while (next < unkeyed.length && reused.has(unkeyed[next])) next += 1;
      const candidate = unkeyed[next];
      if (candidate && candidate.nodeName === node.nodeName) { match = candidate; next += 1; }
    }
    if (!match) return node;
    reused.add(match);
    morph(match, node);
    return match;
  });
  const keep = new Set(result);
  for (const node of old) if (!keep.has(node)) node.remove();
  result.forEach((node, index) => {
    const here = parent.childNodes[index];
    if (here !== node) parent.insertBefore(node, here || null);
    if (node.nodeType === Node.ELEMENT_NODE) placed.add(node);
  });
}

/** Brings `element` (in the page) up to date with `fresh` (just built), keeping `element`. */
function morph(element, fresh) {
  if (element.nodeType !== Node.ELEMENT_NODE) {
    if (element.nodeValue !== fresh.nodeValue) element.nodeValue = fresh.nodeValue;
    return;
  }
  for (const { name } of [...element.attributes]) {
    // A <details> someone opened stays open.
    if (name === "style" || (name === "open" && element instanceof HTMLDetailsElement)) continue;
    if (!fresh.hasAttribute(name)) element.removeAttribute(name);
  }
  for (const { name, value } of [...fresh.attributes]) {
    if (name !== "style" && element.getAttribute(name) !== value) element.setAttribute(name, value);
  }
  // Styles go through the CSSOM: the pages' Content-Security-Policy refuses a style attribute.
  if (element.style && element.style.cssText !== fresh.style.cssText) element.style.cssText = fresh.style.cssText;
  const own = listeners.get(element) || {};
  const theirs = listeners.get(fresh) || {};
  for (const type of Object.keys(own)) if (!(type in theirs)) own[type] = null;
  for (const [type, listener] of Object.entries(theirs)) listen(element, type, listener);
  if (element instanceof HTMLInputElement || element instanceof HTMLTextAreaElement) {
    // What someone is typing stays; a box nobody is in shows the new value.
    if (element !== document.activeElement && element.value !== fresh.value) element.value = fresh.value;
    if (element.checked !== fresh.checked) element.checked = fresh.checked;
  }
  reconcile(element, [...fresh.childNodes]);
  if (element instanceof HTMLSelectElement && element.value !== fresh.value) element.value = fresh.value;
}

export function connectionPill(element, status, text) {
  element.textContent = text[status] || status;
  element.dataset.status = status;
}

const builtFrom = new WeakMap(); // container -> the inputs its children were built from

/**
 * Brings a container's children up to date only when something they are made from changed
 * (compared by identity: a patch keeps the untouched parts of the state identical); the update
 * itself keeps every element that stays (see `replace`).
 */
export function replaceFor(container, inputs, build) {
  const before = builtFrom.get(container);
  if (before && before.length === inputs.length && before.every((value, index) => value === inputs[index])) return;
  builtFrom.set(container, inputs);
  replace(container, build());
}
