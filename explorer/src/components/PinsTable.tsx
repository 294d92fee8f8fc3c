import type { PinsFieldsFragment } from "../api/generated";

/** A run's four replay pins; a missing one is marked, since it makes the run's outputs unprovable. */
export function PinsTable({ pins }: { pins: PinsFieldsFragment }) {
  const rows: [string, React.ReactNode, boolean][] = [
    ["Input versions", pins.inputVersions ? <code>{JSON.stringify(pins.inputVersions)}</code> : null, !!pins.inputVersions],
    ["Code version", pins.codeVersion ? <code>{pins.codeVersion}</code> : null, !!pins.codeVersion],
    ["Image digest", pins.imageDigest ? <code className="wrap">{pins.imageDigest}</code> : null, !!pins.imageDigest],
    ["Deterministic", pins.deterministic == null ? null : pins.deterministic ? "yes" : "no", pins.deterministic === true],
  ];
  return (
    <table className="pins" data-testid="replay-pins">
      <tbody>
        {rows.map(([name, value, ok]) => (
          <tr key={name} className={ok ? "ok" : "missing"}>
            <th>
              <span aria-hidden="true">{ok ? "✓" : "!"}</span> {name}
            </th>
            <td>{value ?? <span className="muted">not pinned</span>}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
