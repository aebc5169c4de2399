// Compile-time check (tsc --noEmit, Node's resolution): the `node` entry's types
// have what js/node.js exports and nothing another runtime's entry alone has.
import { directoryCatalog, directoryStore, inMemoryStore, postgresStore } from 'memdir';
// @ts-expect-error indexedDbStore is the browser entry's: under Node it does not exist.
import { indexedDbStore } from 'memdir';
// @ts-expect-error durableObjectStore is the workerd entry's.
import { durableObjectStore } from 'memdir';

export const node = [directoryStore('./.memdir'), inMemoryStore(), directoryCatalog('./stores'), postgresStore('postgres://app@db/memdir', { namespace: 'team' })];
export const closing: Promise<void> = postgresStore('postgres://app@db/memdir').close();
// The server's pieces are memdir/server's; under Node it has both catalogs.
import { directoryCatalog as onDisk, postgresCatalog } from 'memdir/server';
export const catalogs = [onDisk('./stores'), postgresCatalog('postgres://app@db/memdir')];
export const others = [indexedDbStore, durableObjectStore];
