// Compile-time check (tsc --noEmit, a bundler's resolution with the `browser`
// condition, as Vite resolves it): the browser entry's types.
import { indexedDbStore, inMemoryStore, openMemory } from 'memdir';
// @ts-expect-error directoryStore is the Node entry's: in a page it does not exist.
import { directoryStore } from 'memdir';
// @ts-expect-error listStores is a server's catalog: the browser build leaves it out.
import { listStores } from 'memdir';
// @ts-expect-error memdir/server has no browser build: a page serves no memory stores.
import { apiHandler } from 'memdir/server';

export const memory = openMemory({ store: indexedDbStore('agent') });
export const stores = [inMemoryStore(), directoryStore, listStores, apiHandler];
