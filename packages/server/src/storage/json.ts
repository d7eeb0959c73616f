/** JSON columns are stored as text on both engines. */
export function toJson(value: unknown): string {
  return JSON.stringify(value);
}

export function fromJson<T>(value: string): T;
export function fromJson<T>(value: string | null): T | null;
export function fromJson<T>(value: string | null): T | null {
  return value === null ? null : (JSON.parse(value) as T);
}

export function nowIso(): string {
  return new Date().toISOString();
}
