/**
 * How an artifact's name is shown on its box. Names are often paths (`s3://bucket/warehouse/…/part-0001.parquet`)
 * whose start is the same for every file of a store and whose end tells them apart, while a box holds about
 * 28 characters of its title: a longer path is shown from its end, `…/` and as many of its last segments as
 * fit (at least the file's own name, which the box then cuts at its end if it must). The whole name stays in
 * the box's title (tooltip) and in the details.
 */
export const TITLE_ROOM = 28;

export function displayName(name: string, room = TITLE_ROOM): string {
  if (name.length <= room) return name;
  const segments = name.split(/(?<=[/\\])/); // each segment keeps the separator that ends it
  if (segments.length < 2) return name;
  // A trailing separator (a directory) belongs to its last segment.
  let tail = segments.pop()!;
  if (tail === "" && segments.length) tail = segments.pop()!;
  while (segments.length > 1 && `…/${segments[segments.length - 1]}${tail}`.length <= room) tail = segments.pop()! + tail;
  // The separator before what is shown, as the name writes it (`/`, or `\\` in a Windows path).
  return `…${segments[segments.length - 1].slice(-1)}${tail}`;
}
