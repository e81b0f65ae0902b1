// The secured PostgreSQL's smoke check (infra/secure/smoke.sh): verify-full with the CA and
// the application user in; a wrong password, plaintext and the wrong CA out.
import { dependency, env, expectOk, expectRefused, finish, pem } from "./common.mjs";

const postgres = dependency("packages/db", "postgres");
const url = new URL(env("SECURE_PG_URL"));
const base = {
  host: url.hostname,
  port: Number(url.port),
  database: url.pathname.slice(1),
  username: decodeURIComponent(url.username),
  password: decodeURIComponent(url.password),
  max: 1,
  connect_timeout: 5,
  onnotice: () => {},
};
// verify-full: the chain up to the CA, and the name (127.0.0.1 is in the certificate's SAN)
const verifyFull = { ca: pem("ca.crt"), rejectUnauthorized: true };

async function query(options) {
  const sql = postgres({ ...base, ...options });
  try {
    const [row] =
      await sql`SELECT current_user AS who, ssl, version FROM pg_stat_ssl WHERE pid = pg_backend_pid()`;
    return `${row.who}, ssl ${row.ssl} (${row.version})`;
  } finally {
    await sql.end({ timeout: 1 });
  }
}

console.log("postgres: who gets in");
await expectOk("verify-full with the CA, scram-sha-256 password", () => query({ ssl: verifyFull }));
await expectRefused("a wrong password", () => query({ ssl: verifyFull, password: "wrong" }));
await expectRefused("plaintext (no TLS)", () => query({ ssl: false }));
await expectRefused("verify-full trusting the wrong CA", () =>
  query({ ssl: { ca: pem("wrong-ca.crt"), rejectUnauthorized: true } }),
);
finish();
