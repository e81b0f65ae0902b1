// usage: node load.tmp.ts url key amount scen
import { runLoad, scenariosFor } from "./src/load.ts";

const [url, key, amount, scen] = process.argv.slice(2);
const s = scenariosFor(0, "/work/main").find((x) => x.name === (scen ?? "json"))!;
const r = await runLoad({
  baseUrl: url!,
  bearer: key!,
  scenario: s,
  connections: 50,
  until: { amount: Number(amount) },
});
console.log(`rps ${Math.round(r.requests.total / r.duration)} non2xx ${r.non2xx} errors ${r.errors}`);
