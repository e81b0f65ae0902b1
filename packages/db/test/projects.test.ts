import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type DbHandle,
  insertOrg,
  insertProjectWithDefaultWorkload,
  listAllLiveProjects,
  listWorkloadsOfLiveProjects,
  softDeleteLiveProject,
} from "../src/index.ts";
import { openTestDb, testStores } from "../src/testing/index.ts";

describe.each(testStores())("projects with their default workload on %s", (store) => {
  let handle: DbHandle;
  beforeAll(async () => {
    handle = await openTestDb(store);
    await insertOrg(handle.db, { id: "org_1", name: "o" });
  });
  afterAll(() => handle?.close());

  let n = 0;
  const create = (slug: string, isDefault = false) => {
    n += 1;
    return insertProjectWithDefaultWorkload(
      handle.db,
      { id: `proj_${n}`, orgId: "org_1", slug, name: slug, isDefault },
      { id: `wl_${n}`, name: "main" },
    );
  };
  const stored = async () => ({
    projects: (await listAllLiveProjects(handle.db)).map((p) => p.slug).sort(),
    workloads: (await listWorkloadsOfLiveProjects(handle.db)).length,
  });

  it("writes the project and its default workload together, or neither while a live project holds the slug", async () => {
    const first = await create("shop");
    expect(first?.project.slug).toBe("shop");
    expect(first?.workload).toMatchObject({ projectId: first?.project.id, name: "main", isDefault: true });
    expect(await create("shop")).toBeNull();
    expect(await stored()).toEqual({ projects: ["shop"], workloads: 1 });

    // deleting frees the slug
    expect((await softDeleteLiveProject(handle.db, "org_1", "shop"))?.deletedAt).toBeInstanceOf(Date);
    expect((await create("shop"))?.project.slug).toBe("shop");
    expect(await stored()).toEqual({ projects: ["shop"], workloads: 1 });
  });

  it("creates one default project per org when several requests race for it", async () => {
    const results = await Promise.all([
      create("default", true),
      create("default", true),
      create("default", true),
    ]);
    expect(results.filter((r) => r !== null)).toHaveLength(1);
    expect(await stored()).toEqual({ projects: ["default", "shop"], workloads: 2 });
  });
});
