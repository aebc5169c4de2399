// Memory stores at the edge: one Durable Object per memory store, and one catalog
// object that knows which store ids exist.
//
// Each store's memories, versions and record live in its own object's storage
// through durableObjectStore, so a store is as strongly consistent as one object,
// and deleting it is one deleteAll. The engine answers every request (memory.api);
// this file only finds the object a request is for.
//
// The catalog is one object (idFromName('catalog')): it hands out store ids and is
// asked, before any request reaches a store's object, whether the id is one it
// handed out. So an unknown id is a 404 from the catalog, and never creates an
// object (opening a memory on an empty object would write its first commit).

import { DurableObject } from 'cloudflare:workers';
import { defaults, durableObjectStore, openMemory } from 'memdir';
import { apiHandler, keysFrom, newStoreId, parseDuration, requestId, upkeepStore } from 'memdir/server';

/**
 * The most stores one deployment holds. Listing stores asks every store's object
 * for its record, one subrequest each (plus one to the catalog), and a Worker
 * invocation may make at most 1,000 subrequests on the free plan.
 */
export const MAX_STORES = 500;

/** The catalog's storage: one key per store id, under this prefix. */
const STORE_KEY = 'store:';

/** The ids of the memory stores that exist; one instance per deployment. */
export class StoreCatalogObject extends DurableObject {
  /** A fresh id (the engine's), recorded before any store object is touched; null when full. */
  async create() {
    const ids = await this.ids();
    if (ids.length >= MAX_STORES) return null;
    let id;
    do id = newStoreId();
    while (ids.includes(id));
    await this.ctx.storage.put(STORE_KEY + id, Date.now());
    return id;
  }

  async has(id) {
    // Far past any id the engine makes, and under the storage's 2 KiB key limit.
    return typeof id === 'string' && id.length <= 256 && (await this.ctx.storage.get(STORE_KEY + id)) !== undefined;
  }

  async ids() {
    const found = await this.ctx.storage.list({ prefix: STORE_KEY, limit: MAX_STORES });
    return [...found.keys()].map((k) => k.slice(STORE_KEY.length));
  }

  /**
   * Forgets `id` after its object's storage is gone: if emptying the object fails,
   * the id stays listed and a second delete can finish the job, so no store's data
   * outlives its entry unseen.
   */
  async drop(id) {
    if (!(await this.has(id))) return false;
    await this.env.MEMORY_STORE.get(this.env.MEMORY_STORE.idFromName(id)).drop();
    await this.ctx.storage.delete(STORE_KEY + id);
    return true;
  }
}

/** One memory store: its memories, versions and record in this object's storage. */
export class MemoryStoreObject extends DurableObject {
  /** The memory over this object's storage, opened once per instance (a promise). */
  memory() {
    if (!this.opened) {
      this.opened = openMemory({ store: durableObjectStore(this.ctx.storage) });
      // A failed open is not kept: the next request tries again.
      this.opened.catch(() => {
        this.opened = undefined;
      });
    }
    return this.opened;
  }

  /** One engine request `{op, id?, query, body, actor?}` -> `{status, body}`. */
  async api(request) {
    const answer = await (await this.memory()).api(request);
    // A store that exists gets its upkeep: the alarm, once set, sets itself again.
    if (answer.status === 200 && (await this.ctx.storage.getAlarm()) === null) {
      await this.ctx.storage.setAlarm(Date.now() + upkeepSettings(this.env).intervalMs);
    }
    return answer;
  }

  /**
   * Upkeep (docs/serve.md): versions past the retention period are dropped, then gc
   * deletes what no longer reaches, keeping nothing unreachable for less than an
   * interval. Runs again an interval later, until `drop` removes the alarm.
   */
  async alarm() {
    const { intervalMs, retentionMs } = upkeepSettings(this.env);
    await this.ctx.storage.setAlarm(Date.now() + intervalMs);
    await upkeepStore(await this.memory(), { retentionMs, minAgeMs: intervalMs, keepCommits: defaults().upkeepKeepCommits });
  }

  /** Empties this object's storage: the store is gone, and so is its alarm. */
  async drop() {
    this.opened = undefined;
    await this.ctx.storage.deleteAlarm();
    await this.ctx.storage.deleteAll();
  }
}

/**
 * The upkeep's settings: MEMDIR_RETENTION (a duration such as 30d, or off) and
 * MEMDIR_UPKEEP_EVERY (such as 1h), else the engine's defaults. A bad value is
 * refused at the alarm, which the platform retries, and logged.
 */
function upkeepSettings(env) {
  const d = defaults();
  return {
    retentionMs: env.MEMDIR_RETENTION === undefined ? d.retentionMs : parseDuration('MEMDIR_RETENTION', env.MEMDIR_RETENTION, { off: true }),
    intervalMs: env.MEMDIR_UPKEEP_EVERY === undefined ? d.upkeepIntervalMs : parseDuration('MEMDIR_UPKEEP_EVERY', env.MEMDIR_UPKEEP_EVERY),
  };
}

/**
 * The catalog interface the memory-store router (apiHandler) takes, over the two
 * Durable Object namespaces: `create()`, `open(id)`, `ids()`, `drop(id)`, and
 * `inWorkspace(name)`: each workspace has its own catalog object, so a key of one
 * never finds another's stores.
 */
export function storeCatalog(env, workspace = 'default') {
  const name = workspace === 'default' ? 'catalog' : `catalog:${workspace}`;
  const catalog = env.MEMORY_CATALOG.get(env.MEMORY_CATALOG.idFromName(name));
  const handle = (id) => {
    const object = env.MEMORY_STORE.get(env.MEMORY_STORE.idFromName(id));
    return { api: (request) => object.api(request) };
  };
  // The ids this request's listing saw: opening one of them needs no second
  // question to the catalog, so a listing costs one subrequest per store.
  let listed = new Set();
  return {
    async create() {
      const id = await catalog.create();
      if (id === null) return { refused: `This service holds at most ${MAX_STORES} memory stores; delete one first.` };
      return { id, store: handle(id) };
    },
    async open(id) {
      return listed.has(id) || (await catalog.has(id)) ? handle(id) : null;
    },
    async ids() {
      const ids = await catalog.ids();
      listed = new Set(ids);
      return ids;
    },
    async drop(id) {
      listed.delete(id);
      await catalog.drop(id);
    },
    inWorkspace: (other) => storeCatalog(env, other),
  };
}

/** The API keys a deployment accepts: the secret MEMDIR_API_KEYS, comma-separated `KEY` or `KEY=WORKSPACE`. */
export function apiKeys(env) {
  return keysFrom(env.MEMDIR_API_KEYS);
}

/** Answers a request under /v1/memory_stores. */
export function memoryStores(request, env) {
  const keys = apiKeys(env);
  if (keys.length === 0) {
    // Never serve without keys: the stores would be open to anyone.
    return Response.json(
      { type: 'error', error: { type: 'api_error', message: 'The service has no MEMDIR_API_KEYS configured.' } },
      { status: 500, headers: { 'request-id': requestId() } },
    );
  }
  return apiHandler({ catalog: storeCatalog(env), keys, log: (line) => console.error(line) })(request);
}
