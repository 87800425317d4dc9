// Look-ups by keys that come from a request — a header, a query parameter, a name in a JSON body — read a
// table's own entries only. `key in table` and `table[key]` also find what every object inherits from
// Object.prototype (`__proto__`, `constructor`, `toString`…): those are entries of no table, and once
// passed as a protocol version, answered as `MCP-Protocol-Version: undefined`.

/** Whether `table` itself defines `key` (never an inherited member). */
export function hasOwnKey<T extends object>(table: T, key: PropertyKey): key is keyof T {
  return Object.hasOwn(table, key);
}

/** The entry of `table` under `key`, or undefined when `table` itself does not define it. */
export function ownValue<T extends object>(table: T, key: PropertyKey): T[keyof T] | undefined {
  return hasOwnKey(table, key) ? table[key] : undefined;
}
