/**
 * Generated from the control plane's /openapi.json by `pnpm client:generate`; do not edit.
 * packages/client/test/schema-drift.test.ts fails when this file no longer matches the server.
 */

export interface paths {
  "/openapi.json": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** This API as an OpenAPI 3.1 document */
    get: operations["getOpenapiJson"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/docs": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** This API as a readable reference page (HTML) */
    get: operations["getDocs"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/livez": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Alive: the process answers */
    get: operations["getLivez"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/readyz": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Ready for traffic: PostgreSQL answers within 1 s */
    get: operations["getReadyz"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/operator/v1/orgs": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** List orgs */
    get: operations["getOperatorV1Orgs"];
    put?: never;
    /**
     * Create an org with its default project and starter key
     * @description The starter key's value is in this response only.
     */
    post: operations["postOperatorV1Orgs"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/operator/v1/orgs/{org_id}/retention": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Get an org's retention
     * @description What the org keeps, its defaults filled in. Defaults: calls 90 days, captures 30 days, rollups 400 days.
     */
    get: operations["getOperatorV1OrgsOrgIdRetention"];
    /**
     * Set an org's retention
     * @description Each field given is set (1 to 3,650 days), `null` goes back to the default, a field left out keeps its value. Defaults: calls 90 days, captures 30 days, rollups 400 days. Data goes by whole UTC days: a day is removed once all of it is older than the retention, by the retention jobs of the costing worker (call rows, rollups) and the capture writer (captures), which run every hour. The rollups must be kept at least as long as the call rows, or the reports could not answer for days whose rows are gone.
     */
    put: operations["putOperatorV1OrgsOrgIdRetention"];
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/operator/v1/models": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** List every catalog model with its deployments */
    get: operations["getOperatorV1Models"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/operator/v1/models/{model_id}": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Get one catalog model with its deployments */
    get: operations["getOperatorV1ModelsModelId"];
    /**
     * Create or replace a catalog model and its deployments
     * @description The deployment list replaces the model's previous one. Set active to false to withdraw a model (models are never deleted: workloads and calls keep referring to their id).
     */
    put: operations["putOperatorV1ModelsModelId"];
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/operator/v1/prices": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** List price rows */
    get: operations["getOperatorV1Prices"];
    put?: never;
    /** Add a price row */
    post: operations["postOperatorV1Prices"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/admin/v1/orgs/{org_id}/api_keys": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** List the org's live keys (metadata only) */
    get: operations["getAdminV1OrgsOrgIdApiKeys"];
    put?: never;
    /** Create a key; its value is shown once */
    post: operations["postAdminV1OrgsOrgIdApiKeys"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/admin/v1/orgs/{org_id}/api_keys/{key_id}": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    /**
     * Revoke a key of this org
     * @description Every gateway refuses the key within 2 seconds. Unknown, foreign or revoked ids answer 404.
     */
    delete: operations["deleteAdminV1OrgsOrgIdApiKeysKeyId"];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/admin/v1/orgs/{org_id}/projects": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** List the org's live projects */
    get: operations["getAdminV1OrgsOrgIdProjects"];
    put?: never;
    /** Create a project (with its main workload) */
    post: operations["postAdminV1OrgsOrgIdProjects"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/admin/v1/orgs/{org_id}/projects/default": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Ensure the default project exists
     * @description Idempotent: creates the default project and its main workload when absent.
     */
    post: operations["postAdminV1OrgsOrgIdProjectsDefault"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/admin/v1/orgs/{org_id}/projects/{slug}": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Get a live project by slug */
    get: operations["getAdminV1OrgsOrgIdProjectsSlug"];
    put?: never;
    post?: never;
    /**
     * Soft-delete a project
     * @description Drops out of listings, stops resolving on the gateway, frees the slug; written captures remain.
     */
    delete: operations["deleteAdminV1OrgsOrgIdProjectsSlug"];
    options?: never;
    head?: never;
    /** Rename a project (the slug never changes) */
    patch: operations["patchAdminV1OrgsOrgIdProjectsSlug"];
    trace?: never;
  };
  "/admin/v1/orgs/{org_id}/models": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List the catalog models that can be routed to
     * @description The active catalog models: the same ids as the gateway's GET /v1/models.
     */
    get: operations["getAdminV1OrgsOrgIdModels"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/admin/v1/orgs/{org_id}/projects/{project_id}/workloads/{workload_id}/route": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    /** Set or clear a workload's route */
    put: operations["putAdminV1OrgsOrgIdProjectsProjectIdWorkloadsWorkloadIdRoute"];
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/admin/v1/orgs/{org_id}/projects/{project_id}/workloads/{workload_id}": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    /** Change a workload's route, dial, capture or name */
    patch: operations["patchAdminV1OrgsOrgIdProjectsProjectIdWorkloadsWorkloadId"];
    trace?: never;
  };
  "/admin/v1/orgs/{org_id}/api_keys/{key_id}/limits": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Get the limits of an API key
     * @description A scope without limits answers every limit null. A revoked key or a deleted project is 404.
     */
    get: operations["getAdminV1OrgsOrgIdApiKeysKeyIdLimits"];
    /**
     * Set or clear the limits of an API key
     * @description Each field given is set, `null` clears it, and a field left out keeps its value (`{}` changes nothing). Counts are whole numbers from 1 to 1,000,000,000. `budget` is set or cleared as a whole: `usd` a decimal string of US dollars above zero with at most 6 decimals ("250.00"), `period` a calendar `day` or `month` in UTC, `applies_to` `managed` (calls served with the operator's credentials) or `all` (every priced call). The scope's gateway config entries are republished with the new limits.
     */
    put: operations["putAdminV1OrgsOrgIdApiKeysKeyIdLimits"];
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/admin/v1/orgs/{org_id}/projects/{project_id}/limits": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Get the limits of a project
     * @description A scope without limits answers every limit null. A revoked key or a deleted project is 404.
     */
    get: operations["getAdminV1OrgsOrgIdProjectsProjectIdLimits"];
    /**
     * Set or clear the limits of a project
     * @description Each field given is set, `null` clears it, and a field left out keeps its value (`{}` changes nothing). Counts are whole numbers from 1 to 1,000,000,000. `budget` is set or cleared as a whole: `usd` a decimal string of US dollars above zero with at most 6 decimals ("250.00"), `period` a calendar `day` or `month` in UTC, `applies_to` `managed` (calls served with the operator's credentials) or `all` (every priced call). The scope's gateway config entries are republished with the new limits.
     */
    put: operations["putAdminV1OrgsOrgIdProjectsProjectIdLimits"];
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/admin/v1/orgs/{org_id}/projects/{project_id}/workloads/{workload_id}/limits": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Get the limits of a workload
     * @description A scope without limits answers every limit null. A revoked key or a deleted project is 404.
     */
    get: operations["getAdminV1OrgsOrgIdProjectsProjectIdWorkloadsWorkloadIdLimits"];
    /**
     * Set or clear the limits of a workload
     * @description Each field given is set, `null` clears it, and a field left out keeps its value (`{}` changes nothing). Counts are whole numbers from 1 to 1,000,000,000. `budget` is set or cleared as a whole: `usd` a decimal string of US dollars above zero with at most 6 decimals ("250.00"), `period` a calendar `day` or `month` in UTC, `applies_to` `managed` (calls served with the operator's credentials) or `all` (every priced call). The scope's gateway config entries are republished with the new limits.
     */
    put: operations["putAdminV1OrgsOrgIdProjectsProjectIdWorkloadsWorkloadIdLimits"];
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/admin/v1/orgs/{org_id}/projects/{project_id}/routing-status": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Routing status
     * @description Each workload's declared route; route_mode follows active_traffic_pct.
     */
    get: operations["getAdminV1OrgsOrgIdProjectsProjectIdRoutingStatus"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/admin/v1/orgs/{org_id}/projects/{project_id}/provider-health": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Provider health
     * @description Per provider, workload and model over the window (default 30m, at most 24h).
     */
    get: operations["getAdminV1OrgsOrgIdProjectsProjectIdProviderHealth"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/admin/v1/orgs/{org_id}/projects/{project_id}/status": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Compact status
     * @description Lines to print as they are, plus the routing-status and provider-health records.
     */
    get: operations["getAdminV1OrgsOrgIdProjectsProjectIdStatus"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/admin/v1/orgs/{org_id}/projects/{project_id}/workload-status": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Workload status
     * @description Observed health, mode and route shares next to the declared route (window default and max 24h).
     */
    get: operations["getAdminV1OrgsOrgIdProjectsProjectIdWorkloadStatus"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/admin/v1/orgs/{org_id}/projects/{project_id}/usage-summary": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Usage summary
     * @description Tokens, cost and error rate per group (window default 7d, at most 30d).
     */
    get: operations["getAdminV1OrgsOrgIdProjectsProjectIdUsageSummary"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/admin/v1/orgs/{org_id}/projects/{project_id}/limits-status": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Limits status
     * @description The limits of the project, its workloads and the org's keys that have some, with current use, each budget's priced spend in its period, and the calls each refused in the window (default 1h, at most 24h).
     */
    get: operations["getAdminV1OrgsOrgIdProjectsProjectIdLimitsStatus"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/admin/v1/orgs/{org_id}/calls/{correlation_id}/cost": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Call cost
     * @description By our request id, the upstream request id or the upstream response/message id; always answers the canonical request_id.
     */
    get: operations["getAdminV1OrgsOrgIdCallsCorrelationIdCost"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/admin/v1/orgs/{org_id}/projects/{project_id}/calls": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Call log
     * @description The project's calls, newest first, keyset-paged, with filters; never bodies. A cursor is bound to its project and filters. A page filtering by mode, route, status or stream outcome examines at most 5000 calls: it may come back short or empty with a cursor, `scanned_through` saying how far back it looked.
     */
    get: operations["getAdminV1OrgsOrgIdProjectsProjectIdCalls"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/admin/v1/orgs/{org_id}/projects/{project_id}/calls/{request_id}": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * One call with its cost's provenance
     * @description Everything the call row holds but the bodies (read them from the capture), and which price row priced it, how, when, and whether it was re-priced.
     */
    get: operations["getAdminV1OrgsOrgIdProjectsProjectIdCallsRequestId"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/admin/v1/orgs/{org_id}/projects/{project_id}/timeseries": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Time series
     * @description Calls, errors, spend and p50/p95 latencies over the window, in UTC slices, overall and per group.
     */
    get: operations["getAdminV1OrgsOrgIdProjectsProjectIdTimeseries"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/customer/v1/orgs/{org_id}/projects/{project_id}/workloads": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** List the project's workloads */
    get: operations["getCustomerV1OrgsOrgIdProjectsProjectIdWorkloads"];
    put?: never;
    /** Create a workload */
    post: operations["postCustomerV1OrgsOrgIdProjectsProjectIdWorkloads"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/customer/v1/orgs/{org_id}/projects/{project_id}/workloads/{workload_id}": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    /**
     * Delete a workload
     * @description Its captures remain. The default workload cannot be deleted.
     */
    delete: operations["deleteCustomerV1OrgsOrgIdProjectsProjectIdWorkloadsWorkloadId"];
    options?: never;
    head?: never;
    /** Rename a workload or switch its capture */
    patch: operations["patchCustomerV1OrgsOrgIdProjectsProjectIdWorkloadsWorkloadId"];
    trace?: never;
  };
  "/customer/v1/orgs/{org_id}/projects/{project_id}/captures": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** List the project's captures, newest first */
    get: operations["getCustomerV1OrgsOrgIdProjectsProjectIdCaptures"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/customer/v1/orgs/{org_id}/projects/{project_id}/workloads/{workload_id}/captures": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** List one workload's captures, newest first */
    get: operations["getCustomerV1OrgsOrgIdProjectsProjectIdWorkloadsWorkloadIdCaptures"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/customer/v1/orgs/{org_id}/projects/{project_id}/captures/{request_id}": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Read one capture envelope */
    get: operations["getCustomerV1OrgsOrgIdProjectsProjectIdCapturesRequestId"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
}
export type webhooks = Record<string, never>;
export interface components {
  schemas: {
    Error: {
      error: {
        /** @enum {string} */
        code:
          | "bad_request"
          | "unauthorized"
          | "not_found"
          | "conflict"
          | "idempotency_in_progress"
          | "unprocessable"
          | "idempotency_key_reused"
          | "payload_too_large"
          | "internal_error";
        /** @description What went wrong, naming the offending field for a 400. */
        message: string;
        /** @description For a 400: `issues`, one `{field, message}` each. */
        details?: unknown;
      };
    };
  };
  responses: never;
  parameters: never;
  requestBodies: never;
  headers: never;
  pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
  getOpenapiJson: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The document. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            /** @enum {string} */
            openapi: "3.1.0";
          } & {
            [key: string]: unknown;
          };
        };
      };
      /** @description Invalid input; the message and `details.issues` name the field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  getDocs: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description An HTML page. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Invalid input; the message and `details.issues` name the field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  getLivez: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Always, while the process runs. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            /** @enum {string} */
            status: "alive";
          };
        };
      };
      /** @description Invalid input; the message and `details.issues` name the field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  getReadyz: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Ready. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            /** @enum {string} */
            status: "ready";
          };
        };
      };
      /** @description Invalid input; the message and `details.issues` name the field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Not ready: `database_unreachable` (PostgreSQL does not answer) or `draining` (stopping: finishing what it has); on the standalone process also `starting` or `syncing`. */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            /** @enum {string} */
            status: "database_unreachable" | "starting" | "draining" | "syncing";
          };
        };
      };
    };
  };
  getOperatorV1Orgs: {
    parameters: {
      query?: {
        /** @description Page size, 1 to 100 (default 20). */
        limit?: string;
        /** @description The `cursor` of the previous page; omit for the first page. */
        cursor?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description One page, oldest first. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            orgs: {
              id: string;
              name: string;
              /**
               * Format: date-time
               * @description ISO 8601 UTC timestamp
               */
              created_at: string;
            }[];
            cursor: string | null;
          };
        };
      };
      /** @description Invalid input; the message and `details.issues` name the field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Missing or invalid credential. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  postOperatorV1Orgs: {
    parameters: {
      query?: never;
      header?: {
        /** @description Makes the create safe to retry (send a new UUID per create): a retry with the same key within 24 hours, same path and body, answers the first success again with `Idempotent-Replayed: true` instead of creating twice. A failure is not kept: its retry runs again. Secrets are never stored: in a replay, `api_key.value` is null (shown once, in the first answer). */
        "Idempotency-Key"?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": {
          name: string;
        };
      };
    };
    responses: {
      /** @description The org, its starter key and default project. */
      201: {
        headers: {
          /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
          "Idempotent-Replayed"?: "true";
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            org: {
              id: string;
              name: string;
              /**
               * Format: date-time
               * @description ISO 8601 UTC timestamp
               */
              created_at: string;
            };
            api_key: {
              /** @description The plaintext `sk_` key. Shown in this response only, never again: null in an idempotent replay (`Idempotent-Replayed: true`), as the value is never stored; revoke the key if its value was lost. */
              value: string | null;
              metadata: {
                /** @description Prefix `api_key_`; safe to log. */
                id: string;
                name: string | null;
                /** @description `sk_` + masked middle + last four characters. */
                obfuscated_value: string;
                /**
                 * Format: date-time
                 * @description ISO 8601 UTC timestamp
                 */
                created_at: string;
                /**
                 * Format: date-time
                 * @description Null until the key is first used on the gateway.
                 */
                last_used_at: string | null;
              };
            };
            default_project: {
              /** @description Prefix `proj_`. */
              id: string;
              org_id: string;
              /** @description Immutable; unique among the org's live projects. */
              slug: string;
              name: string;
              /**
               * Format: date-time
               * @description ISO 8601 UTC timestamp
               */
              created_at: string;
              /** @description Reserved; empty. */
              settings: Record<string, never>;
              /**
               * Format: date-time
               * @description ISO 8601 UTC timestamp
               */
              deleted_at: string | null;
            };
          };
        };
      };
      /** @description Invalid input; the message and `details.issues` name the field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Missing or invalid credential. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description `idempotency_in_progress`: the first request with this Idempotency-Key is still running; retry after `Retry-After`. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description `idempotency_key_reused`: this Idempotency-Key was sent with another path or body. */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  getOperatorV1OrgsOrgIdRetention: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        org_id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The org's retention. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            /** @description Days call rows are kept (whole UTC days). */
            calls_days: number;
            /** @description Days captures are kept: index rows and objects. */
            captures_days: number;
            /** @description Days the hourly rollups the reports sum are kept; at least `calls_days`. */
            rollups_days: number;
          };
        };
      };
      /** @description Invalid input; the message and `details.issues` name the field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Missing or invalid credential. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Not found, or it belongs to another org. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  putOperatorV1OrgsOrgIdRetention: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        org_id: string;
      };
      cookie?: never;
    };
    requestBody?: {
      content: {
        "application/json": {
          calls_days?: number | null;
          captures_days?: number | null;
          rollups_days?: number | null;
        };
      };
    };
    responses: {
      /** @description The org's retention as it now is. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            /** @description Days call rows are kept (whole UTC days). */
            calls_days: number;
            /** @description Days captures are kept: index rows and objects. */
            captures_days: number;
            /** @description Days the hourly rollups the reports sum are kept; at least `calls_days`. */
            rollups_days: number;
          };
        };
      };
      /** @description Invalid input; the message and `details.issues` name the field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Missing or invalid credential. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Not found, or it belongs to another org. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  getOperatorV1Models: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Active and inactive models, oldest first. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            models: {
              id: string;
              display_name: string;
              active: boolean;
              /**
               * Format: date-time
               * @description ISO 8601 UTC timestamp
               */
              created_at: string;
              deployments: {
                /** @description Prefix `dep_`. */
                id: string;
                /** @enum {string} */
                provider_label: "provider_a" | "provider_b" | "managed";
                /** @enum {string} */
                wire_format: "messages" | "chat_completions" | "responses";
                base_url: string;
                upstream_model: string;
                credential_env: string;
                priority: number;
              }[];
            }[];
          };
        };
      };
      /** @description Invalid input; the message and `details.issues` name the field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Missing or invalid credential. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  getOperatorV1ModelsModelId: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        model_id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The model. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            id: string;
            display_name: string;
            active: boolean;
            /**
             * Format: date-time
             * @description ISO 8601 UTC timestamp
             */
            created_at: string;
            deployments: {
              /** @description Prefix `dep_`. */
              id: string;
              /** @enum {string} */
              provider_label: "provider_a" | "provider_b" | "managed";
              /** @enum {string} */
              wire_format: "messages" | "chat_completions" | "responses";
              base_url: string;
              upstream_model: string;
              credential_env: string;
              priority: number;
            }[];
          };
        };
      };
      /** @description Invalid input; the message and `details.issues` name the field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Missing or invalid credential. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Not found, or it belongs to another org. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  putOperatorV1ModelsModelId: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        model_id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": {
          display_name: string;
          /** @default true */
          active?: boolean;
          deployments: {
            /** @enum {string} */
            provider_label: "provider_a" | "provider_b" | "managed";
            /** @enum {string} */
            wire_format: "messages" | "chat_completions" | "responses";
            /**
             * Format: uri
             * @description http(s) URL of the upstream, no `/v1`.
             */
            base_url: string;
            upstream_model: string;
            /** @description Name of the env var holding the operator's credential, `GATEWAY_UPSTREAM_KEY_<NAME>`: the gateway reads no other variable for a deployment. The secret is never stored. */
            credential_env: string;
            /**
             * @description Lower is tried first.
             * @default 0
             */
            priority?: number;
          }[];
        };
      };
    };
    responses: {
      /** @description Replaced. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            id: string;
            display_name: string;
            active: boolean;
            /**
             * Format: date-time
             * @description ISO 8601 UTC timestamp
             */
            created_at: string;
            deployments: {
              /** @description Prefix `dep_`. */
              id: string;
              /** @enum {string} */
              provider_label: "provider_a" | "provider_b" | "managed";
              /** @enum {string} */
              wire_format: "messages" | "chat_completions" | "responses";
              base_url: string;
              upstream_model: string;
              credential_env: string;
              priority: number;
            }[];
          };
        };
      };
      /** @description Created. */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            id: string;
            display_name: string;
            active: boolean;
            /**
             * Format: date-time
             * @description ISO 8601 UTC timestamp
             */
            created_at: string;
            deployments: {
              /** @description Prefix `dep_`. */
              id: string;
              /** @enum {string} */
              provider_label: "provider_a" | "provider_b" | "managed";
              /** @enum {string} */
              wire_format: "messages" | "chat_completions" | "responses";
              base_url: string;
              upstream_model: string;
              credential_env: string;
              priority: number;
            }[];
          };
        };
      };
      /** @description Invalid input; the message and `details.issues` name the field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Missing or invalid credential. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Not found, or it belongs to another org. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  getOperatorV1Prices: {
    parameters: {
      query?: {
        model?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description By model, then effective_from. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            prices: {
              /** @description Prefix `price_`. */
              id: string;
              model: string;
              /** Format: date-time */
              effective_from: string;
              input_usd_per_mtok: string;
              cache_write_5m_usd_per_mtok: string;
              cache_write_1h_usd_per_mtok: string;
              cache_read_usd_per_mtok: string;
              output_usd_per_mtok: string;
              /** Format: date-time */
              created_at: string;
            }[];
          };
        };
      };
      /** @description Invalid input; the message and `details.issues` name the field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Missing or invalid credential. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  postOperatorV1Prices: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": {
          /** @description The model name calls are priced by. */
          model: string;
          /**
           * Format: date-time
           * @description When the price starts to apply, from 2000-01-01T00:00:00Z to year 9999; default now.
           */
          effective_from?: string;
          /** @description US dollars per million tokens, as a decimal string. */
          input_usd_per_mtok: string;
          /** @description US dollars per million tokens, as a decimal string. */
          cache_write_5m_usd_per_mtok: string;
          /** @description US dollars per million tokens, as a decimal string. */
          cache_write_1h_usd_per_mtok: string;
          /** @description US dollars per million tokens, as a decimal string. */
          cache_read_usd_per_mtok: string;
          /** @description US dollars per million tokens, as a decimal string. */
          output_usd_per_mtok: string;
        };
      };
    };
    responses: {
      /** @description The new row; re-pricing of the model's calls is queued. */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            /** @description Prefix `price_`. */
            id: string;
            model: string;
            /** Format: date-time */
            effective_from: string;
            input_usd_per_mtok: string;
            cache_write_5m_usd_per_mtok: string;
            cache_write_1h_usd_per_mtok: string;
            cache_read_usd_per_mtok: string;
            output_usd_per_mtok: string;
            /** Format: date-time */
            created_at: string;
            /**
             * @description The model's calls are re-priced by a background job (`costing.reprice-model`), after this answer: reports show the new row once it has run.
             * @enum {string}
             */
            repricing: "queued";
          };
        };
      };
      /** @description Invalid input; the message and `details.issues` name the field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Missing or invalid credential. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The model already has a price starting at that instant. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  getAdminV1OrgsOrgIdApiKeys: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        org_id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Oldest first; never a value or a hash. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            api_keys: {
              /** @description Prefix `api_key_`; safe to log. */
              id: string;
              name: string | null;
              /** @description `sk_` + masked middle + last four characters. */
              obfuscated_value: string;
              /**
               * Format: date-time
               * @description ISO 8601 UTC timestamp
               */
              created_at: string;
              /**
               * Format: date-time
               * @description Null until the key is first used on the gateway.
               */
              last_used_at: string | null;
            }[];
          };
        };
      };
      /** @description Invalid input; the message and `details.issues` name the field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Missing or invalid credential. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Not found, or it belongs to another org. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  postAdminV1OrgsOrgIdApiKeys: {
    parameters: {
      query?: never;
      header?: {
        /** @description Makes the create safe to retry (send a new UUID per create): a retry with the same key within 24 hours, same path and body, answers the first success again with `Idempotent-Replayed: true` instead of creating twice. A failure is not kept: its retry runs again. Secrets are never stored: in a replay, `value` is null (shown once, in the first answer). */
        "Idempotency-Key"?: string;
      };
      path: {
        org_id: string;
      };
      cookie?: never;
    };
    requestBody?: {
      content: {
        "application/json": {
          name?: string;
        };
      };
    };
    responses: {
      /** @description The value (only here) and the metadata. */
      201: {
        headers: {
          /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
          "Idempotent-Replayed"?: "true";
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            /** @description The plaintext `sk_` key. Shown in this response only, never again: null in an idempotent replay (`Idempotent-Replayed: true`), as the value is never stored; revoke the key if its value was lost. */
            value: string | null;
            metadata: {
              /** @description Prefix `api_key_`; safe to log. */
              id: string;
              name: string | null;
              /** @description `sk_` + masked middle + last four characters. */
              obfuscated_value: string;
              /**
               * Format: date-time
               * @description ISO 8601 UTC timestamp
               */
              created_at: string;
              /**
               * Format: date-time
               * @description Null until the key is first used on the gateway.
               */
              last_used_at: string | null;
            };
          };
        };
      };
      /** @description Invalid input; the message and `details.issues` name the field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Missing or invalid credential. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Not found, or it belongs to another org. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description `idempotency_in_progress`: the first request with this Idempotency-Key is still running; retry after `Retry-After`. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description `idempotency_key_reused`: this Idempotency-Key was sent with another path or body. */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  deleteAdminV1OrgsOrgIdApiKeysKeyId: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        org_id: string;
        key_id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Revoked. */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Invalid input; the message and `details.issues` name the field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Missing or invalid credential. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Not found, or it belongs to another org. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  getAdminV1OrgsOrgIdProjects: {
    parameters: {
      query?: {
        /** @description Page size, 1 to 100 (default 20). */
        limit?: string;
        /** @description The `cursor` of the previous page; omit for the first page. */
        cursor?: string;
      };
      header?: never;
      path: {
        org_id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description One page, oldest first. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            projects: {
              /** @description Prefix `proj_`. */
              id: string;
              org_id: string;
              /** @description Immutable; unique among the org's live projects. */
              slug: string;
              name: string;
              /**
               * Format: date-time
               * @description ISO 8601 UTC timestamp
               */
              created_at: string;
              /** @description Reserved; empty. */
              settings: Record<string, never>;
              /**
               * Format: date-time
               * @description ISO 8601 UTC timestamp
               */
              deleted_at: string | null;
            }[];
            /** @description Pass back as `cursor` for the next page; null on the last. */
            cursor: string | null;
          };
        };
      };
      /** @description Invalid input; the message and `details.issues` name the field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Missing or invalid credential. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Not found, or it belongs to another org. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  postAdminV1OrgsOrgIdProjects: {
    parameters: {
      query?: never;
      header?: {
        /** @description Makes the create safe to retry (send a new UUID per create): a retry with the same key within 24 hours, same path and body, answers the first success again with `Idempotent-Replayed: true` instead of creating twice. A failure is not kept: its retry runs again. */
        "Idempotency-Key"?: string;
      };
      path: {
        org_id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": {
          /** @description Immutable; travels in the `x-gateway-project` header. */
          slug: string;
          name: string;
        };
      };
    };
    responses: {
      /** @description The new project. */
      201: {
        headers: {
          /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
          "Idempotent-Replayed"?: "true";
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            /** @description Prefix `proj_`. */
            id: string;
            org_id: string;
            /** @description Immutable; unique among the org's live projects. */
            slug: string;
            name: string;
            /**
             * Format: date-time
             * @description ISO 8601 UTC timestamp
             */
            created_at: string;
            /** @description Reserved; empty. */
            settings: Record<string, never>;
            /**
             * Format: date-time
             * @description ISO 8601 UTC timestamp
             */
            deleted_at: string | null;
          };
        };
      };
      /** @description Invalid input; the message and `details.issues` name the field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Missing or invalid credential. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Not found, or it belongs to another org. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description A live project holds the slug, or the slug is `default`. Or `idempotency_in_progress`: the first request with this Idempotency-Key is still running; retry after `Retry-After`. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description `idempotency_key_reused`: this Idempotency-Key was sent with another path or body. */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  postAdminV1OrgsOrgIdProjectsDefault: {
    parameters: {
      query?: never;
      header?: {
        /** @description Makes the create safe to retry (send a new UUID per create): a retry with the same key within 24 hours, same path and body, answers the first success again with `Idempotent-Replayed: true` instead of creating twice. A failure is not kept: its retry runs again. */
        "Idempotency-Key"?: string;
      };
      path: {
        org_id: string;
      };
      cookie?: never;
    };
    requestBody?: {
      content: {
        "application/json": Record<string, never>;
      };
    };
    responses: {
      /** @description The default project. */
      200: {
        headers: {
          /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
          "Idempotent-Replayed"?: "true";
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            /** @description Prefix `proj_`. */
            id: string;
            org_id: string;
            /** @description Immutable; unique among the org's live projects. */
            slug: string;
            name: string;
            /**
             * Format: date-time
             * @description ISO 8601 UTC timestamp
             */
            created_at: string;
            /** @description Reserved; empty. */
            settings: Record<string, never>;
            /**
             * Format: date-time
             * @description ISO 8601 UTC timestamp
             */
            deleted_at: string | null;
          };
        };
      };
      /** @description Invalid input; the message and `details.issues` name the field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Missing or invalid credential. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Not found, or it belongs to another org. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description `idempotency_in_progress`: the first request with this Idempotency-Key is still running; retry after `Retry-After`. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description `idempotency_key_reused`: this Idempotency-Key was sent with another path or body. */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  getAdminV1OrgsOrgIdProjectsSlug: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        org_id: string;
        slug: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The project. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            /** @description Prefix `proj_`. */
            id: string;
            org_id: string;
            /** @description Immutable; unique among the org's live projects. */
            slug: string;
            name: string;
            /**
             * Format: date-time
             * @description ISO 8601 UTC timestamp
             */
            created_at: string;
            /** @description Reserved; empty. */
            settings: Record<string, never>;
            /**
             * Format: date-time
             * @description ISO 8601 UTC timestamp
             */
            deleted_at: string | null;
          };
        };
      };
      /** @description Invalid input; the message and `details.issues` name the field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Missing or invalid credential. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Not found, or it belongs to another org. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  deleteAdminV1OrgsOrgIdProjectsSlug: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        org_id: string;
        slug: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Deleted. */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Invalid input; the message and `details.issues` name the field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Missing or invalid credential. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Not found, or it belongs to another org. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  patchAdminV1OrgsOrgIdProjectsSlug: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        org_id: string;
        slug: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": {
          name: string;
        };
      };
    };
    responses: {
      /** @description The renamed project. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            /** @description Prefix `proj_`. */
            id: string;
            org_id: string;
            /** @description Immutable; unique among the org's live projects. */
            slug: string;
            name: string;
            /**
             * Format: date-time
             * @description ISO 8601 UTC timestamp
             */
            created_at: string;
            /** @description Reserved; empty. */
            settings: Record<string, never>;
            /**
             * Format: date-time
             * @description ISO 8601 UTC timestamp
             */
            deleted_at: string | null;
          };
        };
      };
      /** @description Invalid input; the message and `details.issues` name the field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Missing or invalid credential. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Not found, or it belongs to another org. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  getAdminV1OrgsOrgIdModels: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        org_id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Catalog model items (admin shape). */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            id: string;
            display_name: string;
            active: boolean;
            /**
             * Format: date-time
             * @description ISO 8601 UTC timestamp
             */
            created_at: string;
          }[];
        };
      };
      /** @description Invalid input; the message and `details.issues` name the field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Missing or invalid credential. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Not found, or it belongs to another org. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  putAdminV1OrgsOrgIdProjectsProjectIdWorkloadsWorkloadIdRoute: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        org_id: string;
        project_id: string;
        workload_id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": {
          /** @description A public catalog id to route to, or null to clear to passthrough. */
          model_id: string | null;
          /** @description Share of matching traffic sent to the route, 0 to 100; 100 when omitted on a new route. */
          route_traffic_pct?: number;
          /** @description Setting a route turns capture on unless this is false; clearing leaves it as is. */
          capture_enabled?: boolean;
        };
      };
    };
    responses: {
      /** @description The workload. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            /** @description Prefix `usp_`. */
            id: string;
            project_id: string;
            name: string;
            capture_enabled: boolean;
            /** @description Catalog id routed to; null is passthrough. */
            route_model_id: string | null;
            route_traffic_pct: number;
            capture_sample_rate: number;
            is_default: boolean;
            /**
             * Format: date-time
             * @description ISO 8601 UTC timestamp
             */
            created_at: string;
          };
        };
      };
      /** @description Invalid input; the message and `details.issues` name the field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Missing or invalid credential. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Not found, or it belongs to another org. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description A dial without a route, or the new name is taken. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description model_id is not an active catalog model; nothing changed. */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  patchAdminV1OrgsOrgIdProjectsProjectIdWorkloadsWorkloadId: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        org_id: string;
        project_id: string;
        workload_id: string;
      };
      cookie?: never;
    };
    requestBody?: {
      content: {
        "application/json": {
          /** @description Tri-state: omitted leaves the route, null clears it, an id routes. */
          model_id?: string | null;
          /** @description Share of matching traffic sent to the route, 0 to 100; 100 when omitted on a new route. */
          route_traffic_pct?: number;
          /** @description Setting a route turns capture on unless this is false; clearing leaves it as is. */
          capture_enabled?: boolean;
          /** @description Fraction; 1 is 100%. */
          capture_sample_rate?: number;
          /** @description Unique per project; travels in the `x-gateway-workload` header. */
          name?: string;
        };
      };
    };
    responses: {
      /** @description The workload. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            /** @description Prefix `usp_`. */
            id: string;
            project_id: string;
            name: string;
            capture_enabled: boolean;
            /** @description Catalog id routed to; null is passthrough. */
            route_model_id: string | null;
            route_traffic_pct: number;
            capture_sample_rate: number;
            is_default: boolean;
            /**
             * Format: date-time
             * @description ISO 8601 UTC timestamp
             */
            created_at: string;
          };
        };
      };
      /** @description Invalid input; the message and `details.issues` name the field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Missing or invalid credential. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Not found, or it belongs to another org. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description A dial without a route, or the new name is taken. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description model_id is not an active catalog model; nothing changed. */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  getAdminV1OrgsOrgIdApiKeysKeyIdLimits: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        org_id: string;
        key_id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The scope's limits. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            /** @enum {string} */
            scope: "api_key" | "project" | "workload";
            /** @description The key's `api_key_`, the project's `proj_` or the workload's `usp_` id. */
            scope_id: string;
            requests_per_minute: number | null;
            tokens_per_minute: number | null;
            max_concurrent: number | null;
            budget: {
              usd: string;
              /** @enum {string} */
              period: "day" | "month";
              /** @enum {string} */
              applies_to: "managed" | "all";
            } | null;
            /**
             * Format: date-time
             * @description When the limits last changed; null while the scope has none.
             */
            updated_at: string | null;
          };
        };
      };
      /** @description Invalid input; the message and `details.issues` name the field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Missing or invalid credential. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Not found, or it belongs to another org. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  putAdminV1OrgsOrgIdApiKeysKeyIdLimits: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        org_id: string;
        key_id: string;
      };
      cookie?: never;
    };
    requestBody?: {
      content: {
        "application/json": {
          requests_per_minute?: number | null;
          tokens_per_minute?: number | null;
          max_concurrent?: number | null;
          budget?: {
            usd: string;
            /** @enum {string} */
            period: "day" | "month";
            /** @enum {string} */
            applies_to: "managed" | "all";
          } | null;
        };
      };
    };
    responses: {
      /** @description The limits as they now are. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            /** @enum {string} */
            scope: "api_key" | "project" | "workload";
            /** @description The key's `api_key_`, the project's `proj_` or the workload's `usp_` id. */
            scope_id: string;
            requests_per_minute: number | null;
            tokens_per_minute: number | null;
            max_concurrent: number | null;
            budget: {
              usd: string;
              /** @enum {string} */
              period: "day" | "month";
              /** @enum {string} */
              applies_to: "managed" | "all";
            } | null;
            /**
             * Format: date-time
             * @description When the limits last changed; null while the scope has none.
             */
            updated_at: string | null;
          };
        };
      };
      /** @description Invalid input; the message and `details.issues` name the field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Missing or invalid credential. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Not found, or it belongs to another org. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  getAdminV1OrgsOrgIdProjectsProjectIdLimits: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        org_id: string;
        project_id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The scope's limits. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            /** @enum {string} */
            scope: "api_key" | "project" | "workload";
            /** @description The key's `api_key_`, the project's `proj_` or the workload's `usp_` id. */
            scope_id: string;
            requests_per_minute: number | null;
            tokens_per_minute: number | null;
            max_concurrent: number | null;
            budget: {
              usd: string;
              /** @enum {string} */
              period: "day" | "month";
              /** @enum {string} */
              applies_to: "managed" | "all";
            } | null;
            /**
             * Format: date-time
             * @description When the limits last changed; null while the scope has none.
             */
            updated_at: string | null;
          };
        };
      };
      /** @description Invalid input; the message and `details.issues` name the field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Missing or invalid credential. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Not found, or it belongs to another org. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  putAdminV1OrgsOrgIdProjectsProjectIdLimits: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        org_id: string;
        project_id: string;
      };
      cookie?: never;
    };
    requestBody?: {
      content: {
        "application/json": {
          requests_per_minute?: number | null;
          tokens_per_minute?: number | null;
          max_concurrent?: number | null;
          budget?: {
            usd: string;
            /** @enum {string} */
            period: "day" | "month";
            /** @enum {string} */
            applies_to: "managed" | "all";
          } | null;
        };
      };
    };
    responses: {
      /** @description The limits as they now are. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            /** @enum {string} */
            scope: "api_key" | "project" | "workload";
            /** @description The key's `api_key_`, the project's `proj_` or the workload's `usp_` id. */
            scope_id: string;
            requests_per_minute: number | null;
            tokens_per_minute: number | null;
            max_concurrent: number | null;
            budget: {
              usd: string;
              /** @enum {string} */
              period: "day" | "month";
              /** @enum {string} */
              applies_to: "managed" | "all";
            } | null;
            /**
             * Format: date-time
             * @description When the limits last changed; null while the scope has none.
             */
            updated_at: string | null;
          };
        };
      };
      /** @description Invalid input; the message and `details.issues` name the field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Missing or invalid credential. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Not found, or it belongs to another org. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  getAdminV1OrgsOrgIdProjectsProjectIdWorkloadsWorkloadIdLimits: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        org_id: string;
        project_id: string;
        workload_id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The scope's limits. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            /** @enum {string} */
            scope: "api_key" | "project" | "workload";
            /** @description The key's `api_key_`, the project's `proj_` or the workload's `usp_` id. */
            scope_id: string;
            requests_per_minute: number | null;
            tokens_per_minute: number | null;
            max_concurrent: number | null;
            budget: {
              usd: string;
              /** @enum {string} */
              period: "day" | "month";
              /** @enum {string} */
              applies_to: "managed" | "all";
            } | null;
            /**
             * Format: date-time
             * @description When the limits last changed; null while the scope has none.
             */
            updated_at: string | null;
          };
        };
      };
      /** @description Invalid input; the message and `details.issues` name the field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Missing or invalid credential. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Not found, or it belongs to another org. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  putAdminV1OrgsOrgIdProjectsProjectIdWorkloadsWorkloadIdLimits: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        org_id: string;
        project_id: string;
        workload_id: string;
      };
      cookie?: never;
    };
    requestBody?: {
      content: {
        "application/json": {
          requests_per_minute?: number | null;
          tokens_per_minute?: number | null;
          max_concurrent?: number | null;
          budget?: {
            usd: string;
            /** @enum {string} */
            period: "day" | "month";
            /** @enum {string} */
            applies_to: "managed" | "all";
          } | null;
        };
      };
    };
    responses: {
      /** @description The limits as they now are. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            /** @enum {string} */
            scope: "api_key" | "project" | "workload";
            /** @description The key's `api_key_`, the project's `proj_` or the workload's `usp_` id. */
            scope_id: string;
            requests_per_minute: number | null;
            tokens_per_minute: number | null;
            max_concurrent: number | null;
            budget: {
              usd: string;
              /** @enum {string} */
              period: "day" | "month";
              /** @enum {string} */
              applies_to: "managed" | "all";
            } | null;
            /**
             * Format: date-time
             * @description When the limits last changed; null while the scope has none.
             */
            updated_at: string | null;
          };
        };
      };
      /** @description Invalid input; the message and `details.issues` name the field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Missing or invalid credential. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Not found, or it belongs to another org. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  getAdminV1OrgsOrgIdProjectsProjectIdRoutingStatus: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        org_id: string;
        project_id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Routing-status record. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            /** @description The project's `proj_` id. */
            project_id: string;
            workloads: {
              workload_id: string;
              display_name: string;
              /** @description Always null: the service has no environments. */
              environment: string | null;
              /**
               * @description Legacy, kept for compatibility; workload-status is preferred. `primary`: 100% of matching traffic is routed through the service. `gateway`: partial canary split of 1 to 99%. `passthrough`: no route; models served as requested.
               * @enum {string}
               */
              route_mode: "primary" | "gateway" | "passthrough";
              /** @description 0 to 100; percentage of matching requests routed to the managed model. */
              active_traffic_pct: number;
              /**
               * @description `provider_a` or `provider_b` for frontier-API routes; `managed` for routes served by the service's own serving infrastructure; null when passthrough.
               * @enum {string|null}
               */
              provider_label: "provider_a" | "provider_b" | "managed" | null;
              /** @description Model id the route targets. Managed routes report `gateway-managed`. Null when passthrough. */
              model: string | null;
              /**
               * Format: date-time
               * @description When the workload last changed.
               */
              updated_at: string;
            }[];
            /** @description Number of workloads. */
            workload_count: number;
            /**
             * Format: date-time
             * @description When the record was generated (UTC, milliseconds).
             */
            generated_at: string;
          };
        };
      };
      /** @description Invalid input; the message and `details.issues` name the field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Missing or invalid credential. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Not found, or it belongs to another org. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  getAdminV1OrgsOrgIdProjectsProjectIdProviderHealth: {
    parameters: {
      query?: {
        window?: string;
      };
      header?: never;
      path: {
        org_id: string;
        project_id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Provider-health record. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            /** @description The project's `proj_` id. */
            project_id: string;
            /** @description The window as asked: a positive whole number and a unit `m`, `h` or `d`. */
            window: string;
            /**
             * Format: date-time
             * @description Start of the window (UTC, milliseconds).
             */
            window_start: string;
            /**
             * Format: date-time
             * @description End of the window: the moment of the request.
             */
            window_end: string;
            /** @description Requests in the window. */
            total_requests: number;
            /** @description Failing requests: 5xx, broken streams and fallbacks. */
            total_errors: number;
            providers: {
              /**
               * @description Provider label that served the requests.
               * @enum {string}
               */
              provider: "provider_a" | "provider_b" | "managed";
              /** @description Workload name. */
              workload: string;
              /** @description Served model; null when none was recorded. */
              model: string | null;
              /** @description Requests in the window. */
              request_count: number;
              /** @description Requests answered with a 5xx. */
              error_5xx_count: number;
              /** @description error_5xx_count divided by request_count, rounded to four decimal places. */
              error_5xx_rate: number;
              /** @description Requests where the upstream timed out and triggered a fallback. */
              timeout_count: number;
              /** @description Requests that fell back to an alternative route for any reason. */
              fallback_count: number;
              /**
               * Format: date-time
               * @description Last failing request (5xx, broken stream or fallback); null when none.
               */
              last_failing_at: string | null;
              /** @description Up to 5 request ids of failing requests in the window. */
              example_request_ids: string[];
            }[];
            /**
             * Format: date-time
             * @description When the record was generated (UTC, milliseconds).
             */
            generated_at: string;
          };
        };
      };
      /** @description Invalid input; the message and `details.issues` name the field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Missing or invalid credential. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Not found, or it belongs to another org. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  getAdminV1OrgsOrgIdProjectsProjectIdStatus: {
    parameters: {
      query?: {
        window?: string;
      };
      header?: never;
      path: {
        org_id: string;
        project_id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Compact-status record. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            /** @description The project's `proj_` id. */
            project_id: string;
            /** @description Human-readable lines, one or more per workload, to be printed as is. */
            lines: string[];
            /** @description The full routing-status record. */
            routing: {
              /** @description The project's `proj_` id. */
              project_id: string;
              workloads: {
                workload_id: string;
                display_name: string;
                /** @description Always null: the service has no environments. */
                environment: string | null;
                /**
                 * @description Legacy, kept for compatibility; workload-status is preferred. `primary`: 100% of matching traffic is routed through the service. `gateway`: partial canary split of 1 to 99%. `passthrough`: no route; models served as requested.
                 * @enum {string}
                 */
                route_mode: "primary" | "gateway" | "passthrough";
                /** @description 0 to 100; percentage of matching requests routed to the managed model. */
                active_traffic_pct: number;
                /**
                 * @description `provider_a` or `provider_b` for frontier-API routes; `managed` for routes served by the service's own serving infrastructure; null when passthrough.
                 * @enum {string|null}
                 */
                provider_label: "provider_a" | "provider_b" | "managed" | null;
                /** @description Model id the route targets. Managed routes report `gateway-managed`. Null when passthrough. */
                model: string | null;
                /**
                 * Format: date-time
                 * @description When the workload last changed.
                 */
                updated_at: string;
              }[];
              /** @description Number of workloads. */
              workload_count: number;
              /**
               * Format: date-time
               * @description When the record was generated (UTC, milliseconds).
               */
              generated_at: string;
            };
            /** @description The full provider-health record. */
            health: {
              /** @description The project's `proj_` id. */
              project_id: string;
              /** @description The window as asked: a positive whole number and a unit `m`, `h` or `d`. */
              window: string;
              /**
               * Format: date-time
               * @description Start of the window (UTC, milliseconds).
               */
              window_start: string;
              /**
               * Format: date-time
               * @description End of the window: the moment of the request.
               */
              window_end: string;
              /** @description Requests in the window. */
              total_requests: number;
              /** @description Failing requests: 5xx, broken streams and fallbacks. */
              total_errors: number;
              providers: {
                /**
                 * @description Provider label that served the requests.
                 * @enum {string}
                 */
                provider: "provider_a" | "provider_b" | "managed";
                /** @description Workload name. */
                workload: string;
                /** @description Served model; null when none was recorded. */
                model: string | null;
                /** @description Requests in the window. */
                request_count: number;
                /** @description Requests answered with a 5xx. */
                error_5xx_count: number;
                /** @description error_5xx_count divided by request_count, rounded to four decimal places. */
                error_5xx_rate: number;
                /** @description Requests where the upstream timed out and triggered a fallback. */
                timeout_count: number;
                /** @description Requests that fell back to an alternative route for any reason. */
                fallback_count: number;
                /**
                 * Format: date-time
                 * @description Last failing request (5xx, broken stream or fallback); null when none.
                 */
                last_failing_at: string | null;
                /** @description Up to 5 request ids of failing requests in the window. */
                example_request_ids: string[];
              }[];
              /**
               * Format: date-time
               * @description When the record was generated (UTC, milliseconds).
               */
              generated_at: string;
            };
            /**
             * Format: date-time
             * @description When the record was generated (UTC, milliseconds).
             */
            generated_at: string;
          };
        };
      };
      /** @description Invalid input; the message and `details.issues` name the field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Missing or invalid credential. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Not found, or it belongs to another org. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  getAdminV1OrgsOrgIdProjectsProjectIdWorkloadStatus: {
    parameters: {
      query?: {
        window?: string;
      };
      header?: never;
      path: {
        org_id: string;
        project_id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Workload-status record. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            /** @description The project's `proj_` id. */
            project_id: string;
            /** @description The window as asked: a positive whole number and a unit `m`, `h` or `d`. */
            window: string;
            /**
             * Format: date-time
             * @description Start of the window (UTC, milliseconds).
             */
            window_start: string;
            /**
             * Format: date-time
             * @description End of the window: the moment of the request.
             */
            window_end: string;
            workloads: {
              workload_id: string;
              display_name: string;
              /**
               * @description `healthy`: traffic flowing and 5xx rate under 5%; `degraded`: 5xx rate at or above 5%; `idle`: no traffic in the window.
               * @enum {string}
               */
              status: "healthy" | "degraded" | "idle";
              /**
               * @description Observed provider label; the dominant one when traffic is mixed (ties alphabetical); null when idle. Compare with `declared` to spot drift.
               * @enum {string|null}
               */
              mode: "provider_a" | "provider_b" | "managed" | null;
              /** @description The declared route. */
              declared: {
                /**
                 * @description `pin` (routed to a specific deployment), `steer` (routed to a model), or `none` (no route; primary).
                 * @enum {string}
                 */
                routed: "pin" | "steer" | "none";
                /** @description The traffic dial (0 without a route). */
                split_pct: number;
              };
              /** @description Requests in the window. */
              requests: number;
              /** @description Observed shares by route outcome; numbers 0 to 1. `primary`: requested model served, no route fired. `gateway`: a route moved the traffic. `fallback`: recovery re-issue of the original model after a failed route. */
              route_shares: {
                /** @description Requested model served, no route fired. */
                primary: number;
                /** @description A route moved the traffic. */
                gateway: number;
                /** @description Recovery re-issue of the original model after a failed route. */
                fallback: number;
              };
              /** @description Share of requests that errored (status ≥ 400 or a broken stream). */
              error_rate: number;
              /** @description Date-time with a space separator, milliseconds, no zone designator (UTC); null without errors. */
              last_error_at: string | null;
              /** @description Request ids of erroring requests. */
              example_request_ids: string[];
              served_models: {
                /** @description Served model; null when none was recorded. */
                model: string | null;
                /** @enum {string} */
                provider_label: "provider_a" | "provider_b" | "managed";
                /** @description Requests served by this model and provider. */
                requests: number;
                /** @description Share of the workload's requests, 0 to 1. */
                share: number;
              }[];
              /** @description Share of requests moved by a configured route; equals `route_shares.gateway`. Choosing a catalog model by name is not rerouting; that traffic counts as primary. */
              rerouted_pct: number;
            }[];
            /** @description Number of workloads. */
            workload_count: number;
            /**
             * Format: date-time
             * @description When the record was generated (UTC, milliseconds).
             */
            generated_at: string;
          };
        };
      };
      /** @description Invalid input; the message and `details.issues` name the field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Missing or invalid credential. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Not found, or it belongs to another org. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  getAdminV1OrgsOrgIdProjectsProjectIdUsageSummary: {
    parameters: {
      query?: {
        window?: string;
        group_by?: string;
      };
      header?: never;
      path: {
        org_id: string;
        project_id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Usage-summary record. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            /** @description The project's `proj_` id. */
            project_id: string;
            /** @description The window as asked: a positive whole number and a unit `m`, `h` or `d`. */
            window: string;
            /**
             * Format: date-time
             * @description Start of the window (UTC, milliseconds).
             */
            window_start: string;
            /**
             * Format: date-time
             * @description End of the window: the moment of the request.
             */
            window_end: string;
            /** @description The grouping keys, in fixed order. */
            group_by: ("workload" | "model" | "day")[];
            groups: {
              /** @description Null when not grouped by workload. */
              workload_id: string | null;
              /** @description Workload name; null when not grouped by workload. */
              workload: string | null;
              /** @description Null when not grouped by model. */
              model: string | null;
              /**
               * Format: date
               * @description Calendar date (UTC); null when not grouped by day.
               */
              day: string | null;
              /** @description Requests in the group. */
              requests: number;
              /** @description Uncached input tokens. */
              input_tokens: number;
              /** @description Output tokens. */
              output_tokens: number;
              /** @description Input tokens read from the cache. */
              cache_read_input_tokens: number;
              /** @description Input tokens written to the cache. */
              cache_creation_input_tokens: number;
              /** @description Share of prompt tokens served from cache, four decimals. */
              cache_read_pct: number;
              /** @description Cost from the same records that drive billing (priced calls only). */
              customer_cost_usd: number;
              /** @description Requests not (yet) priced, hence not in customer_cost_usd. */
              unpriced_requests: number;
              /** @description Share of requests that errored. */
              error_rate: number;
            }[];
            /**
             * Format: date-time
             * @description When the record was generated (UTC, milliseconds).
             */
            generated_at: string;
          };
        };
      };
      /** @description Invalid input; the message and `details.issues` name the field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Missing or invalid credential. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Not found, or it belongs to another org. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  getAdminV1OrgsOrgIdProjectsProjectIdLimitsStatus: {
    parameters: {
      query?: {
        window?: string;
      };
      header?: never;
      path: {
        org_id: string;
        project_id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Limits-status record. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            /** @description The project's `proj_` id. */
            project_id: string;
            /** @description The window as asked: a positive whole number and a unit `m`, `h` or `d`. */
            window: string;
            /**
             * Format: date-time
             * @description Start of the window (UTC, milliseconds).
             */
            window_start: string;
            /**
             * Format: date-time
             * @description End of the window: the moment of the request.
             */
            window_end: string;
            /** @description The project, each of its workloads, and each live key of the org that has limits. */
            scopes: {
              /** @enum {string} */
              scope: "api_key" | "project" | "workload";
              scope_id: string;
              /** @description The project's slug, the workload's name, or the key's name (null when the key has none). */
              name: string | null;
              /** @description The limits as set (the admin shape); null means no limit. */
              limits: {
                requests_per_minute: number | null;
                tokens_per_minute: number | null;
                max_concurrent: number | null;
                budget: {
                  usd: string;
                  /** @enum {string} */
                  period: "day" | "month";
                  /** @enum {string} */
                  applies_to: "managed" | "all";
                } | null;
              };
              /** @description Current use, as the gateway's limiter sees it: requests and tokens held in the last minute's bucket, calls in flight. Null everywhere when the limiter is not reachable from the control plane. */
              use: {
                /** @description Use the limiter counts against requests_per_minute; null when that limit is not set. */
                requests_per_minute: number | null;
                /** @description Use the limiter counts against tokens_per_minute; null when that limit is not set. */
                tokens_per_minute: number | null;
                /** @description Use the limiter counts against max_concurrent; null when that limit is not set. */
                concurrent: number | null;
              };
              /** @description The budget and its spend; null without a budget. */
              budget: {
                usd: string;
                /** @enum {string} */
                period: "day" | "month";
                /** @enum {string} */
                applies_to: "managed" | "all";
                /** @description Priced spend in the current period, exact (decimal string): the calls' customer cost, managed calls only when applies_to is managed. Calls not priced yet do not count. */
                spent_usd: string;
                /**
                 * Format: date-time
                 * @description First instant of the current period (UTC).
                 */
                period_start: string;
                /**
                 * Format: date-time
                 * @description First instant of the next period, when the spend starts again from zero.
                 */
                resets_at: string;
              } | null;
              /** @description Refusals (429) in the window, by the limit that refused. */
              refused: {
                /** @description Calls of the project this scope's limits refused in the window. */
                total: number;
                by_limit: {
                  /** @description Refused by requests_per_minute. */
                  requests_per_minute: number;
                  /** @description Refused by tokens_per_minute. */
                  tokens_per_minute: number;
                  /** @description Refused by max_concurrent. */
                  max_concurrent: number;
                  /** @description Refused by the budget. */
                  budget: number;
                };
              };
            }[];
            /**
             * Format: date-time
             * @description When the record was generated (UTC, milliseconds).
             */
            generated_at: string;
          };
        };
      };
      /** @description Invalid input; the message and `details.issues` name the field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Missing or invalid credential. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Not found, or it belongs to another org. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  getAdminV1OrgsOrgIdCallsCorrelationIdCost: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        org_id: string;
        correlation_id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Call-cost record. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            org_id: string;
            /** @description Canonical request id. */
            request_id: string;
            /** @enum {string} */
            pricing_status: "priced" | "unpriced";
            /**
             * @description Why the call is not priced; null once priced.
             * @enum {string|null}
             */
            unpriced_reason:
              | "pricing_pending"
              | "no_price"
              | "stream_without_usage"
              | "incomplete_stream"
              | "error_response"
              | "not_billable"
              | "no_usage"
              | null;
            /** @description Null while unpriced; never a guessed zero. */
            customer_cost_usd: number | null;
            /** @description The cost by category, in US dollars. */
            cost_categories: {
              /** @description US dollars; null while unpriced. */
              uncached_input_usd: number | null;
              /** @description US dollars; null while unpriced. */
              cache_write_usd: number | null;
              /** @description US dollars; null while unpriced. */
              cache_read_usd: number | null;
              /** @description US dollars; null while unpriced. */
              output_usd: number | null;
            };
            /** @description The normalised usage; null when the call had none. */
            usage: {
              /** @description Uncached input tokens. */
              input_tokens: number;
              /** @description Input tokens read from the cache. */
              cache_read_input_tokens: number;
              /** @description Input tokens written to the cache (both TTLs). */
              cache_creation_input_tokens: number;
              /** @description Output tokens, reasoning included. */
              output_tokens: number;
            } | null;
          };
        };
      };
      /** @description Invalid input; the message and `details.issues` name the field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Missing or invalid credential. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Not found, or it belongs to another org. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  getAdminV1OrgsOrgIdProjectsProjectIdCalls: {
    parameters: {
      query?: {
        /** @description Page size, 1 to 100 (default 50). */
        limit?: string;
        /** @description The `cursor` of the previous page; omit for the first page. */
        cursor?: string;
        /** @description Calls received at or after this instant (RFC 3339, UTC: `Z`). */
        from?: string;
        /** @description Calls received before this instant (RFC 3339, UTC: `Z`). */
        to?: string;
        workload_id?: string;
        /** @description The served or the requested model. */
        model?: string;
        mode?: "byo" | "managed";
        /** @description `primary`, `gateway` (a route moved the call) or `fallback`. */
        route?: "primary" | "gateway" | "fallback";
        /** @description One status code (`429`), a class (`5xx`), or `error`: status >= 400 or a stream that broke (truncated, upstream_error). */
        status?: string;
        stream_outcome?: "complete" | "truncated" | "upstream_error" | "client_aborted";
        request_id?: string;
      };
      header?: never;
      path: {
        org_id: string;
        project_id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description One page. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            /** @description Newest first; never bodies, headers or tags. */
            calls: {
              request_id: string;
              /**
               * Format: date-time
               * @description When the gateway received the call (UTC, milliseconds).
               */
              received_at: string;
              workload_id: string;
              /** @enum {string} */
              endpoint: "messages" | "count_tokens" | "chat_completions" | "responses" | "responses_compact";
              /** @enum {string} */
              mode: "byo" | "managed";
              /** @enum {string} */
              route: "primary" | "gateway" | "fallback";
              /**
               * @description How a route chose the arm; null without one.
               * @enum {string|null}
               */
              arm_source: "affinity" | "draw" | null;
              requested_model: string | null;
              served_model: string | null;
              /** @enum {string} */
              provider_label: "provider_a" | "provider_b" | "managed";
              stream: boolean;
              /** @description The status the caller received. */
              status: number;
              /** @enum {string} */
              stream_outcome: "complete" | "truncated" | "upstream_error" | "client_aborted";
              /** @description Time to the first byte of the answer; null when none came. */
              first_byte_ms: number | null;
              total_ms: number;
              /** @description Uncached input tokens; null without usage. */
              input_tokens: number | null;
              /** @description Input tokens read from the cache. */
              cache_read_input_tokens: number | null;
              /** @description Input tokens written to the cache (both TTLs). */
              cache_creation_input_tokens: number | null;
              /** @description Output tokens. */
              output_tokens: number | null;
              /** @enum {string} */
              pricing_status: "priced" | "unpriced";
              /** @description Null while unpriced; never a guessed zero. */
              customer_cost_usd: number | null;
              /** @description Whether a capture exists: read it at /customer/v1/orgs/{org_id}/projects/{project_id}/captures/{request_id}. */
              captured: boolean;
            }[];
            /** @description Pass back as `cursor` (with the same filters); null on the last page. */
            cursor: string | null;
            /**
             * Format: date-time
             * @description Set when the page stopped at its scan budget (a filter by mode, route, status or stream outcome): nothing more matched back to this instant yet; go on with the cursor. Null otherwise.
             */
            scanned_through: string | null;
          };
        };
      };
      /** @description Invalid input; the message and `details.issues` name the field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Missing or invalid credential. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Not found, or it belongs to another org. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  getAdminV1OrgsOrgIdProjectsProjectIdCallsRequestId: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        org_id: string;
        project_id: string;
        request_id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The call. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            request_id: string;
            /**
             * Format: date-time
             * @description When the gateway received the call (UTC, milliseconds).
             */
            received_at: string;
            workload_id: string;
            /** @enum {string} */
            endpoint: "messages" | "count_tokens" | "chat_completions" | "responses" | "responses_compact";
            /** @enum {string} */
            mode: "byo" | "managed";
            /** @enum {string} */
            route: "primary" | "gateway" | "fallback";
            /**
             * @description How a route chose the arm; null without one.
             * @enum {string|null}
             */
            arm_source: "affinity" | "draw" | null;
            requested_model: string | null;
            served_model: string | null;
            /** @enum {string} */
            provider_label: "provider_a" | "provider_b" | "managed";
            stream: boolean;
            /** @description The status the caller received. */
            status: number;
            /** @enum {string} */
            stream_outcome: "complete" | "truncated" | "upstream_error" | "client_aborted";
            /** @description Time to the first byte of the answer; null when none came. */
            first_byte_ms: number | null;
            total_ms: number;
            /** @description Uncached input tokens; null without usage. */
            input_tokens: number | null;
            /** @description Input tokens read from the cache. */
            cache_read_input_tokens: number | null;
            /** @description Input tokens written to the cache (both TTLs). */
            cache_creation_input_tokens: number | null;
            /** @description Output tokens. */
            output_tokens: number | null;
            /** @enum {string} */
            pricing_status: "priced" | "unpriced";
            /** @description Null while unpriced; never a guessed zero. */
            customer_cost_usd: number | null;
            /** @description Whether a capture exists: read it at /customer/v1/orgs/{org_id}/projects/{project_id}/captures/{request_id}. */
            captured: boolean;
            api_key_id: string;
            tags: {
              [key: string]: string;
            };
            error_type: string | null;
            /** @description `<scope>.<limit>` of the limit that refused the call. */
            refused_by: string | null;
            fallback_reason: string | null;
            upstream_request_id: string | null;
            upstream_response_id: string | null;
            /** @description Cache writes with the 5-minute TTL. */
            cache_creation_5m_input_tokens: number | null;
            /** @description Cache writes with the 1-hour TTL. */
            cache_creation_1h_input_tokens: number | null;
            cost: {
              /** @enum {string} */
              pricing_status: "priced" | "unpriced";
              /** @enum {string|null} */
              unpriced_reason:
                | "pricing_pending"
                | "no_price"
                | "stream_without_usage"
                | "incomplete_stream"
                | "error_response"
                | "not_billable"
                | "no_usage"
                | null;
              /** @description The sum of the four categories; null while unpriced. */
              customer_cost_usd: number | null;
              /**
               * Format: date-time
               * @description When the cost was computed (its latest costing run).
               */
              priced_at: string | null;
              /** @description The price row that priced the call: the model's latest row in force at received_at. */
              price: {
                /** @description The price row (`price_`), as /operator/v1/prices lists it. */
                id: string;
                model: string;
                /**
                 * Format: date-time
                 * @description When the row started to apply.
                 */
                effective_from: string;
                /**
                 * Format: date-time
                 * @description When the model's next row took over; null while this one still applies.
                 */
                effective_until: string | null;
                /** @description US dollars per million tokens, exact decimal. */
                input_usd_per_mtok: string;
                /** @description US dollars per million tokens, exact decimal. */
                cache_write_5m_usd_per_mtok: string;
                /** @description US dollars per million tokens, exact decimal. */
                cache_write_1h_usd_per_mtok: string;
                /** @description US dollars per million tokens, exact decimal. */
                cache_read_usd_per_mtok: string;
                /** @description US dollars per million tokens, exact decimal. */
                output_usd_per_mtok: string;
              } | null;
              /** @description How the cost is computed, per token class; null while unpriced. */
              lines: {
                uncached_input: {
                  tokens: number;
                  /** @description US dollars per million tokens, exact decimal. */
                  usd_per_mtok: string;
                  /** @description tokens x usd_per_mtok / 1,000,000, exact, rounded once to a JSON number. */
                  usd: number;
                };
                cache_write: {
                  tokens_5m: number;
                  /** @description US dollars per million tokens, exact decimal. */
                  usd_per_mtok_5m: string;
                  tokens_1h: number;
                  /** @description US dollars per million tokens, exact decimal. */
                  usd_per_mtok_1h: string;
                  /** @description tokens_5m x usd_per_mtok_5m + tokens_1h x usd_per_mtok_1h, / 1,000,000. */
                  usd: number;
                };
                cache_read: {
                  tokens: number;
                  /** @description US dollars per million tokens, exact decimal. */
                  usd_per_mtok: string;
                  /** @description tokens x usd_per_mtok / 1,000,000, exact, rounded once to a JSON number. */
                  usd: number;
                };
                output: {
                  tokens: number;
                  /** @description US dollars per million tokens, exact decimal. */
                  usd_per_mtok: string;
                  /** @description tokens x usd_per_mtok / 1,000,000, exact, rounded once to a JSON number. */
                  usd: number;
                };
              } | null;
              /** @description Null when the call kept the price of its first costing. */
              repriced: {
                /**
                 * Format: date-time
                 * @description When the latest re-pricing changed this call's price.
                 */
                at: string;
                /** @description The price row it had before; null when it had none. */
                from_price_id: string | null;
              } | null;
            };
          };
        };
      };
      /** @description Invalid input; the message and `details.issues` name the field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Missing or invalid credential. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Not found, or it belongs to another org. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  getAdminV1OrgsOrgIdProjectsProjectIdTimeseries: {
    parameters: {
      query?: {
        /** @description hour (1-minute slices), day (1h), week (6h) or 30d (1d); default day. */
        window?: "hour" | "day" | "week" | "30d";
        /** @description Also one series per served model or per workload. */
        group_by?: "model" | "workload";
      };
      header?: never;
      path: {
        org_id: string;
        project_id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Time-series record. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            project_id: string;
            /** @enum {string} */
            window: "hour" | "day" | "week" | "30d";
            /**
             * Format: date-time
             * @description The window's start (UTC): the moment of the request minus the window.
             */
            window_start: string;
            /**
             * Format: date-time
             * @description The moment of the request (UTC).
             */
            window_end: string;
            /**
             * @description Every time in the record is UTC; slices are aligned on UTC.
             * @enum {string}
             */
            time_zone: "UTC";
            /**
             * @description The slice length.
             * @enum {string}
             */
            step: "1m" | "1h" | "6h" | "1d";
            /** @enum {string|null} */
            group_by: "model" | "workload" | null;
            /** @description Every slice from the one holding window_start to the one holding window_end (those two partial), oldest first. */
            series: {
              /**
               * Format: date-time
               * @description Start of the slice (UTC).
               */
              start: string;
              calls: number;
              /** @description Calls without a complete answer (status >= 400 or a broken stream). */
              errors: number;
              /** @description The priced calls' customer cost, summed exactly, rounded once. */
              spend_usd: number;
              /** @description Median total time: nearest rank, in whole milliseconds rounded down to the E12 series (10, 12, 15, 18, 22, 27, 33, 39, 47, 56, 68, 82 x 10^n; exact below 10 ms); null without calls. */
              p50_total_ms: number | null;
              /** @description 95th percentile of the total time: nearest rank, in whole milliseconds rounded down to the E12 series (10, 12, 15, 18, 22, 27, 33, 39, 47, 56, 68, 82 x 10^n; exact below 10 ms); null without calls. */
              p95_total_ms: number | null;
              /** @description Median time to first byte: nearest rank, in whole milliseconds rounded down to the E12 series (10, 12, 15, 18, 22, 27, 33, 39, 47, 56, 68, 82 x 10^n; exact below 10 ms); null without calls. */
              p50_first_byte_ms: number | null;
              /** @description 95th percentile of the time to first byte: nearest rank, in whole milliseconds rounded down to the E12 series (10, 12, 15, 18, 22, 27, 33, 39, 47, 56, 68, 82 x 10^n; exact below 10 ms); null without calls. */
              p95_first_byte_ms: number | null;
            }[];
            /** @description One series per group with calls in the window; empty without group_by. */
            groups: {
              workload_id: string | null;
              /** @description The workload's name. */
              workload: string | null;
              /** @description The served model; null for calls that had none. */
              model: string | null;
              series: {
                /**
                 * Format: date-time
                 * @description Start of the slice (UTC).
                 */
                start: string;
                calls: number;
                /** @description Calls without a complete answer (status >= 400 or a broken stream). */
                errors: number;
                /** @description The priced calls' customer cost, summed exactly, rounded once. */
                spend_usd: number;
                /** @description Median total time: nearest rank, in whole milliseconds rounded down to the E12 series (10, 12, 15, 18, 22, 27, 33, 39, 47, 56, 68, 82 x 10^n; exact below 10 ms); null without calls. */
                p50_total_ms: number | null;
                /** @description 95th percentile of the total time: nearest rank, in whole milliseconds rounded down to the E12 series (10, 12, 15, 18, 22, 27, 33, 39, 47, 56, 68, 82 x 10^n; exact below 10 ms); null without calls. */
                p95_total_ms: number | null;
                /** @description Median time to first byte: nearest rank, in whole milliseconds rounded down to the E12 series (10, 12, 15, 18, 22, 27, 33, 39, 47, 56, 68, 82 x 10^n; exact below 10 ms); null without calls. */
                p50_first_byte_ms: number | null;
                /** @description 95th percentile of the time to first byte: nearest rank, in whole milliseconds rounded down to the E12 series (10, 12, 15, 18, 22, 27, 33, 39, 47, 56, 68, 82 x 10^n; exact below 10 ms); null without calls. */
                p95_first_byte_ms: number | null;
              }[];
            }[];
            /** Format: date-time */
            generated_at: string;
          };
        };
      };
      /** @description Invalid input; the message and `details.issues` name the field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Missing or invalid credential. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Not found, or it belongs to another org. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  getCustomerV1OrgsOrgIdProjectsProjectIdWorkloads: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        org_id: string;
        project_id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Oldest first; exactly one is_default. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            workloads: {
              /** @description Prefix `usp_`. */
              id: string;
              project_id: string;
              name: string;
              capture_enabled: boolean;
              /** @description Catalog id routed to; null is passthrough. */
              route_model_id: string | null;
              route_traffic_pct: number;
              capture_sample_rate: number;
              is_default: boolean;
              /**
               * Format: date-time
               * @description ISO 8601 UTC timestamp
               */
              created_at: string;
            }[];
          };
        };
      };
      /** @description Invalid input; the message and `details.issues` name the field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Missing or invalid credential. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Not found, or it belongs to another org. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  postCustomerV1OrgsOrgIdProjectsProjectIdWorkloads: {
    parameters: {
      query?: never;
      header?: {
        /** @description Makes the create safe to retry (send a new UUID per create): a retry with the same key within 24 hours, same path and body, answers the first success again with `Idempotent-Replayed: true` instead of creating twice. A failure is not kept: its retry runs again. */
        "Idempotency-Key"?: string;
      };
      path: {
        org_id: string;
        project_id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": {
          /** @description Unique per project; travels in the `x-gateway-workload` header. */
          name: string;
          /** @description Default true (100% sampling). */
          capture_enabled?: boolean;
        };
      };
    };
    responses: {
      /** @description The new workload. */
      201: {
        headers: {
          /** @description `true` when this is the stored answer of an earlier request with the same Idempotency-Key. */
          "Idempotent-Replayed"?: "true";
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            /** @description Prefix `usp_`. */
            id: string;
            project_id: string;
            name: string;
            capture_enabled: boolean;
            /** @description Catalog id routed to; null is passthrough. */
            route_model_id: string | null;
            route_traffic_pct: number;
            capture_sample_rate: number;
            is_default: boolean;
            /**
             * Format: date-time
             * @description ISO 8601 UTC timestamp
             */
            created_at: string;
          };
        };
      };
      /** @description Invalid input; the message and `details.issues` name the field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Missing or invalid credential. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Not found, or it belongs to another org. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The name is taken in this project. Or `idempotency_in_progress`: the first request with this Idempotency-Key is still running; retry after `Retry-After`. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description `idempotency_key_reused`: this Idempotency-Key was sent with another path or body. */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  deleteCustomerV1OrgsOrgIdProjectsProjectIdWorkloadsWorkloadId: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        org_id: string;
        project_id: string;
        workload_id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Deleted. */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Invalid input; the message and `details.issues` name the field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Missing or invalid credential. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Not found, or it belongs to another org. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description It is the default workload. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  patchCustomerV1OrgsOrgIdProjectsProjectIdWorkloadsWorkloadId: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        org_id: string;
        project_id: string;
        workload_id: string;
      };
      cookie?: never;
    };
    requestBody?: {
      content: {
        "application/json": {
          /** @description Unique per project; travels in the `x-gateway-workload` header. */
          name?: string;
          capture_enabled?: boolean;
        };
      };
    };
    responses: {
      /** @description The workload. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            /** @description Prefix `usp_`. */
            id: string;
            project_id: string;
            name: string;
            capture_enabled: boolean;
            /** @description Catalog id routed to; null is passthrough. */
            route_model_id: string | null;
            route_traffic_pct: number;
            capture_sample_rate: number;
            is_default: boolean;
            /**
             * Format: date-time
             * @description ISO 8601 UTC timestamp
             */
            created_at: string;
          };
        };
      };
      /** @description Invalid input; the message and `details.issues` name the field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Missing or invalid credential. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Not found, or it belongs to another org. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The new name is taken in this project. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  getCustomerV1OrgsOrgIdProjectsProjectIdCaptures: {
    parameters: {
      query?: {
        /** @description Page size, 1 to 100 (default 25). */
        limit?: string;
        /** @description The `cursor` of the previous page; omit for the first page. */
        cursor?: string;
      };
      header?: never;
      path: {
        org_id: string;
        project_id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description One page. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            captures: {
              key: string;
              request_id: string;
              /**
               * Format: date-time
               * @description ISO 8601 UTC timestamp
               */
              uploaded: string;
              size: number;
              idp_org_id: string;
              idp_api_key_id: string;
            }[];
            /** @description True when more rows exist past this page. */
            truncated: boolean;
            /** @description Pass back as `cursor`; null when not truncated. */
            cursor: string | null;
          };
        };
      };
      /** @description Invalid input; the message and `details.issues` name the field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Missing or invalid credential. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Not found, or it belongs to another org. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  getCustomerV1OrgsOrgIdProjectsProjectIdWorkloadsWorkloadIdCaptures: {
    parameters: {
      query?: {
        /** @description Page size, 1 to 100 (default 25). */
        limit?: string;
        /** @description The `cursor` of the previous page; omit for the first page. */
        cursor?: string;
      };
      header?: never;
      path: {
        org_id: string;
        project_id: string;
        workload_id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description One page. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            captures: {
              key: string;
              request_id: string;
              /**
               * Format: date-time
               * @description ISO 8601 UTC timestamp
               */
              uploaded: string;
              size: number;
              idp_org_id: string;
              idp_api_key_id: string;
            }[];
            /** @description True when more rows exist past this page. */
            truncated: boolean;
            /** @description Pass back as `cursor`; null when not truncated. */
            cursor: string | null;
            /**
             * Format: date
             * @description The oldest day the listing has examined.
             */
            scanned_through: string;
          };
        };
      };
      /** @description Invalid input; the message and `details.issues` name the field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Missing or invalid credential. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Not found, or it belongs to another org. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  getCustomerV1OrgsOrgIdProjectsProjectIdCapturesRequestId: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        org_id: string;
        project_id: string;
        request_id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The envelope as stored. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            request_id: string;
          } & {
            [key: string]: unknown;
          };
        };
      };
      /** @description Invalid input; the message and `details.issues` name the field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Missing or invalid credential. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Not found, or it belongs to another org. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
}
