/**
 * The metrics of the `delivery_module` node as Prometheus exposition text (operator.md §4.2: `Metrics`
 * node info and `collectOpenMetricsText()`, the text of the node's registry). A small registry of
 * counters and gauges with optional labels, rendered with `# HELP` and `# TYPE` lines.
 */

type Labels = Readonly<Record<string, string>>;

interface Family {
  readonly help: string;
  readonly type: 'counter' | 'gauge';
  readonly values: Map<string, { labels: Labels; value: number }>;
  /** For a gauge read when rendered. */
  readonly read?: () => number;
}

const escapeLabel = (v: string): string =>
  v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');

function labelText(labels: Labels): string {
  const keys = Object.keys(labels).sort();
  return keys.length === 0 ? '' : `{${keys.map((k) => `${k}="${escapeLabel(labels[k]!)}"`).join(',')}}`;
}

export class MetricsRegistry {
  private readonly families = new Map<string, Family>();

  counter(name: string, help: string): (labels?: Labels, by?: number) => void {
    const f: Family = { help, type: 'counter', values: new Map() };
    this.families.set(name, f);
    return (labels = {}, by = 1) => {
      const key = labelText(labels);
      const cur = f.values.get(key);
      if (cur === undefined) f.values.set(key, { labels, value: by });
      else cur.value += by;
    };
  }

  /** A gauge whose value is read at render time. */
  gauge(name: string, help: string, read: () => number): void {
    this.families.set(name, { help, type: 'gauge', values: new Map(), read });
  }

  /** A gauge with a fixed value per label set (an info gauge). */
  info(name: string, help: string, labels: Labels): void {
    const f: Family = { help, type: 'gauge', values: new Map() };
    f.values.set(labelText(labels), { labels, value: 1 });
    this.families.set(name, f);
  }

  /** Prometheus text format 0.0.4. */
  render(): string {
    const lines: string[] = [];
    for (const [name, f] of this.families) {
      lines.push(`# HELP ${name} ${f.help}`, `# TYPE ${name} ${f.type}`);
      if (f.read !== undefined) lines.push(`${name} ${f.read()}`);
      else if (f.values.size === 0 && f.type === 'counter') lines.push(`${name} 0`);
      for (const [key, v] of f.values) lines.push(`${name}${key} ${v.value}`);
    }
    return `${lines.join('\n')}\n`;
  }
}
