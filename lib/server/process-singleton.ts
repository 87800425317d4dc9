// One value per process, whichever copy of a module asks for it. Next.js evaluates a module once for route
// handlers and once more for pages and server actions, and `next dev` re-evaluates it on every hot reload:
// a module-level `let` would give each copy its own limiter, timer, database connection or transaction
// store. The value lives on globalThis under Symbol.for('gatehouse.<name>') — the global symbol registry
// is shared by every copy, and a symbol key collides with no other library's globals.

type Slots = Record<symbol, unknown>;

const slots = globalThis as unknown as Slots;
const keyOf = (name: string) => Symbol.for(`gatehouse.${name}`);

/** The process's value named `name`, made by `create` on first use (if `create` throws, nothing is kept). */
export function processSingleton<T>(name: string, create: () => T): T {
  const key = keyOf(name);
  if (!(key in slots)) slots[key] = create();
  return slots[key] as T;
}

/** The process's value named `name` if one was made, without making one. */
export function existingProcessSingleton<T>(name: string): T | undefined {
  return slots[keyOf(name)] as T | undefined;
}

/** Forgets the value, so that the next `processSingleton(name, …)` makes a new one (closing, tests). */
export function forgetProcessSingleton(name: string): void {
  delete slots[keyOf(name)];
}

/** Puts `value` in place of the process's value named `name` (tests: a configuration of their own). */
export function replaceProcessSingleton<T>(name: string, value: T): void {
  slots[keyOf(name)] = value;
}
