// A tiny element builder: text always goes in as text, never as HTML.

export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (value === false || value === null || value === undefined) continue;
    if (key.startsWith("on")) element.addEventListener(key.slice(2), value);
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

export function replace(container, ...children) {
  container.replaceChildren(...children.flat().filter((child) => child !== null && child !== undefined && child !== false));
}

export function connectionPill(element, status, text) {
  element.textContent = text[status] || status;
  element.dataset.status = status;
}

const builtFrom = new WeakMap(); // container -> the inputs its children were built from

/**
 * Rebuilds a container's children only when something they are made from changed (compared by
 * identity: a patch keeps the untouched parts of the state identical). A rebuild between a
 * finger going down and coming up would swallow the tap.
 */
export function replaceFor(container, inputs, build) {
  const before = builtFrom.get(container);
  if (before && before.length === inputs.length && before.every((value, index) => value === inputs[index])) return;
  builtFrom.set(container, inputs);
  replace(container, build());
}
