// Loaded with `node --import`: the process resolves `pg` as where it is not
// installed (the module not found), whatever node_modules holds, so a test sees
// what a new user without node-postgres sees.
import { register } from 'node:module';

const hook = `export async function resolve(specifier, context, next) {
  if (specifier === 'pg' || specifier.startsWith('pg/')) {
    const e = new Error("Cannot find package 'pg'");
    e.code = 'ERR_MODULE_NOT_FOUND';
    throw e;
  }
  return next(specifier, context);
}`;
register(`data:text/javascript,${encodeURIComponent(hook)}`);
