// RFC 6902 JSON Patch for gather.v2 patches; our own because the pages load no libraries and
// have no build step.
//
// The server sends only add, remove and replace; move, copy and test are here too so that a
// patch from any RFC 6902 producer applies (the tests check against PyPI's jsonpatch, whose
// make_patch emits move).

export class PatchError extends Error {
  constructor(message) {
    super(message);
    this.name = "PatchError";
  }
}

/**
 * The document with `ops` applied in order. The input document and the ops are never
 * modified: containers on the touched paths are copied (once per call), the rest is shared,
 * so a page can keep the previous state and compare it with the new one.
 * Throws PatchError when an op does not apply; the caller then waits for a snapshot.
 */
export function applyPatch(doc, ops) {
  if (!Array.isArray(ops)) throw new PatchError("a patch is an array of operations");
  const fresh = new WeakSet(); // containers this call created, safe to edit in place
  let result = doc;
  for (const op of ops) result = applyOperation(result, op, fresh);
  return result;
}

// MARK: - Operations

function applyOperation(doc, op, fresh) {
  if (op === null || typeof op !== "object") throw new PatchError("an operation is an object");
  const path = pointer(op.path);
  switch (op.op) {
    case "add": return add(doc, path, valueOf(op), fresh);
    case "remove": return remove(doc, path, fresh);
    case "replace": return replace(doc, path, valueOf(op), fresh);
    case "move": {
      const from = pointer(op.from);
      if (isProperPrefix(from, path)) throw new PatchError(`cannot move ${op.from} into itself`);
      const value = valueAt(doc, from);
      return add(remove(doc, from, fresh), path, value, fresh);
    }
    // A deep copy: a later op of this patch may edit one of the two places in place.
    case "copy": return add(doc, path, JSON.parse(JSON.stringify(valueAt(doc, pointer(op.from)))), fresh);
    case "test":
      if (!jsonEqual(valueAt(doc, path), valueOf(op))) throw new PatchError(`test failed at ${op.path}`);
      return doc;
    default: throw new PatchError(`unknown op ${JSON.stringify(op.op)}`);
  }
}

function add(doc, path, value, fresh) {
  if (path.tokens.length === 0) return value;
  return editParent(doc, path, fresh, (container, token) => {
    if (!Array.isArray(container)) return setMember(container, token, value);
    const index = token === "-" ? container.length : arrayIndex(token, path);
    if (index > container.length) throw new PatchError(`index out of range: ${path.text}`);
    container.splice(index, 0, value);
  });
}

function remove(doc, path, fresh) {
  if (path.tokens.length === 0) throw new PatchError("cannot remove the whole document");
  return editParent(doc, path, fresh, (container, token) => {
    if (Array.isArray(container)) container.splice(existingIndex(container, token, path), 1);
    else delete container[existingKey(container, token, path)];
  });
}

function replace(doc, path, value, fresh) {
  if (path.tokens.length === 0) return value;
  return editParent(doc, path, fresh, (container, token) => {
    if (Array.isArray(container)) container[existingIndex(container, token, path)] = value;
    else setMember(container, existingKey(container, token, path), value);
  });
}

function valueOf(op) {
  if (!Object.prototype.hasOwnProperty.call(op, "value")) throw new PatchError(`${op.op} needs a value`);
  return op.value;
}

// MARK: - Walking the document

/**
 * Copies the containers from the root down to the target's parent (unless this call already
 * made them) and lets `edit` change that parent in place; returns the new root.
 */
function editParent(doc, path, fresh, edit) {
  const root = owned(doc, fresh, path);
  let container = root;
  for (const token of path.tokens.slice(0, -1)) {
    const child = owned(childOf(container, token, path), fresh, path);
    if (Array.isArray(container)) container[arrayIndex(token, path)] = child;
    else setMember(container, token, child);
    container = child;
  }
  edit(container, path.tokens[path.tokens.length - 1]);
  return root;
}

function owned(value, fresh, path) {
  if (value === null || typeof value !== "object") throw new PatchError(`not an object or array on ${path.text}`);
  if (fresh.has(value)) return value;
  const copy = Array.isArray(value) ? value.slice() : { ...value }; // spread keeps an own "__proto__" member
  fresh.add(copy);
  return copy;
}

function valueAt(doc, path) {
  let value = doc;
  for (const token of path.tokens) value = childOf(value, token, path);
  return value;
}

function childOf(container, token, path) {
  if (container === null || typeof container !== "object") throw new PatchError(`not an object or array on ${path.text}`);
  if (Array.isArray(container)) return container[existingIndex(container, token, path)];
  return container[existingKey(container, token, path)];
}

function existingIndex(array, token, path) {
  const index = arrayIndex(token, path);
  if (index >= array.length) throw new PatchError(`index out of range: ${path.text}`);
  return index;
}

function existingKey(object, token, path) {
  if (!Object.prototype.hasOwnProperty.call(object, token)) throw new PatchError(`no member at ${path.text}`);
  return token;
}

/** A plain assignment of "__proto__" would change the prototype instead of adding a member. */
function setMember(object, key, value) {
  Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true });
}

// MARK: - RFC 6901 JSON Pointer

function pointer(text) {
  if (typeof text !== "string") throw new PatchError("a path is a string");
  if (text === "") return { text, tokens: [] };
  if (text[0] !== "/" || /~([^01]|$)/.test(text)) throw new PatchError(`not a JSON Pointer: ${text}`);
  const tokens = text.slice(1).split("/").map((token) => token.replace(/~1/g, "/").replace(/~0/g, "~"));
  return { text, tokens };
}

function arrayIndex(token, path) {
  if (token === "-") throw new PatchError(`"-" names no element: ${path.text}`);
  if (!/^(0|[1-9][0-9]*)$/.test(token)) throw new PatchError(`not an array index: ${path.text}`);
  return Number(token);
}

function isProperPrefix(from, path) {
  return from.tokens.length < path.tokens.length && from.tokens.every((token, i) => token === path.tokens[i]);
}

function jsonEqual(a, b) {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((key) => Object.prototype.hasOwnProperty.call(b, key) && jsonEqual(a[key], b[key]));
}
