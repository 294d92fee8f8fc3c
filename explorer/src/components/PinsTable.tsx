import type { PinsFieldsFragment } from "../api/generated";

/** An input version as provgraph resolved it for an OpenLineage run (src/openlineage/record-events.ts, inputVersionsOf). */
interface ResolvedInput {
  namespace: string;
  name: string;
  version: string | null;
  pinned: boolean;
  resolvedBy: string;
}

const HOW: Record<string, string> = {
  VERSION_FACET: "pinned by its version facet",
  LATEST_KNOWN: "not pinned: the newest version known when it ran",
  UNVERSIONED: "not pinned: the dataset has no version",
};

function isResolvedList(value: unknown): value is ResolvedInput[] {
  return Array.isArray(value) && value.every((entry) => !!entry && typeof entry === "object" && typeof (entry as ResolvedInput).pinned === "boolean" && typeof (entry as ResolvedInput).name === "string");
}

/**
 * A run's input versions: each input of an OpenLineage run with whether its version was pinned (the
 * evidence gate's MISSING_INPUT_VERSION counts the others), or the versions a client declared, as given.
 */
function InputVersions({ value }: { value: unknown }) {
  if (isResolvedList(value)) {
    if (!value.length) return <span className="muted">no inputs</span>;
    return (
      <ul className="pin-inputs">
        {value.map((input) => (
          <li key={`${input.namespace}/${input.name}@${input.version}`} className={input.pinned ? "ok" : "missing"}>
            <span className="pin-input-name">
              {input.namespace}/{input.name}
            </span>{" "}
            {input.version && <code>v {input.version}</code>} <span className="pin-input-how">{HOW[input.resolvedBy] ?? (input.pinned ? "pinned" : "not pinned")}</span>
          </li>
        ))}
      </ul>
    );
  }
  if (value && typeof value === "object" && !Array.isArray(value)) {
    const entries = Object.entries(value);
    if (!entries.length) return <span className="muted">none declared</span>;
    return (
      <ul className="pin-inputs">
        {entries.map(([key, version]) => (
          <li key={key}>
            <span className="pin-input-name">{key}</span> <code>{typeof version === "string" ? version : JSON.stringify(version)}</code>
          </li>
        ))}
      </ul>
    );
  }
  return <code>{JSON.stringify(value)}</code>;
}

/** A run's four replay pins; a missing one is marked, since it makes the run's outputs unprovable. */
export function PinsTable({ pins }: { pins: PinsFieldsFragment }) {
  const inputs: unknown = pins.inputVersions;
  const rows: [string, React.ReactNode, boolean][] = [
    ["Input versions", inputs == null ? null : <InputVersions value={inputs} />, inputs != null && (!isResolvedList(inputs) || inputs.every((input) => input.pinned))],
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
