export * from "./config.ts";
export * from "./gateway.ts";
export { isGatewayPath } from "./routes.ts";
