/** One sample of a scrape: its metric name, labels and value. */
export interface PromSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** A scrape in Prometheus's text format, read for assertions. */
export interface Scrape {
  samples: PromSample[];
  /** The metric families declared by `# TYPE` lines. */
  families: Set<string>;
  /** The sum of the samples of `name` whose labels include `labels`; undefined when there is none. */
  value(name: string, labels?: Record<string, string>): number | undefined;
}

const sampleLine = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)/;
const labelPair = /([a-zA-Z_]\w*)="((?:[^"\\]|\\.)*)"/g;

/** Parses Prometheus's text exposition format (what `GET /metrics` answers). */
function parsePrometheusText(text: string): Scrape {
  const samples: PromSample[] = [];
  const families = new Set<string>();
  for (const line of text.split("\n")) {
    if (line.startsWith("# TYPE ")) families.add(line.split(" ")[2]!);
    const match = line.startsWith("#") ? null : sampleLine.exec(line);
    if (!match) continue;
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? "").matchAll(labelPair))
      labels[key!] = JSON.parse(`"${value}"`);
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return {
    samples,
    families,
    value(name, labels = {}) {
      const matching = samples.filter(
        (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
      );
      return matching.length === 0 ? undefined : matching.reduce((sum, s) => sum + s.value, 0);
    },
  };
}

/** `GET <base>/metrics`, parsed; throws unless it answers 200. */
export async function scrape(base: string): Promise<Scrape> {
  const res = await fetch(`${base}/metrics`);
  const text = await res.text();
  if (res.status !== 200) throw new Error(`GET ${base}/metrics answered ${res.status}: ${text}`);
  return parsePrometheusText(text);
}
