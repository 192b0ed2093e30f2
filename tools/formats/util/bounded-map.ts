// A map of values worth keeping from one use to the next (deflated package parts, the texts of dates): it
// forgets everything once it holds `max` entries, so whatever callers send it stays bounded.
export class BoundedMap<K, V> {
  private readonly map = new Map<K, V>();
  constructor(private readonly max: number) {}

  get(key: K): V | undefined {
    return this.map.get(key);
  }

  /** Keeps `value` for `key` (emptying the map first when it is full) and returns it. */
  set(key: K, value: V): V {
    if (this.map.size >= this.max) this.map.clear();
    this.map.set(key, value);
    return value;
  }
}
