import { type ObjectSpec, type ResourceName, resources } from '../../schema/index.js';
import { badRequest, notFound } from '../http-error.js';
import type { SimOptions } from '../options.js';
import { project } from '../query.js';
import { listBody } from '../respond.js';
import type { SimState } from '../state.js';
import { numericId } from './ids.js';

/** The field selection of a GET (`fieldsParam`) and `isAdditionalData`; 400 for an unknown field. */
function selection(spec: ObjectSpec, url: URL, options: SimOptions) {
  const raw = url.searchParams.get(options.fieldsParam);
  const fields = raw === null || raw === '' ? undefined : raw.split(',').map((f) => f.trim());
  for (const f of fields ?? []) {
    if (!Object.hasOwn(spec.fields, f) && !Object.hasOwn(spec.arrays ?? {}, f)) {
      throw badRequest(`${options.fieldsParam}: unknown field '${f}'`);
    }
  }
  const extra = url.searchParams.get('isAdditionalData');
  if (extra !== null && extra !== 'true' && extra !== 'false')
    throw badRequest('isAdditionalData: "true" or "false"');
  return { fields, additional: extra === 'true' };
}

/** A list operation (GET, every record of a resource). */
export function runList(state: SimState, resource: ResourceName, url: URL): [number, unknown] {
  const { fields, additional } = selection(resources[resource].spec, url, state.options);
  const records = state.tables[resource].all().map((r) => project(r, fields, additional, state.options.lean));
  return [200, listBody(state.options, records, records.length)];
}

/** A read of one record by id (GET); 404 when there is none. */
export function runGet(
  state: SimState,
  resource: ResourceName,
  id: string | undefined,
  url: URL,
): [number, unknown] {
  const def: { spec: ObjectSpec; idType: 'number' | 'string' } = resources[resource];
  const { fields, additional } = selection(def.spec, url, state.options);
  const key = def.idType === 'number' ? numericId(id) : (id ?? '');
  const foreign = foreignRecord(state, resource, key);
  if (foreign !== undefined) return [200, foreign];
  const record = state.tables[resource].get(key);
  if (record === undefined) throw notFound(`${resource.toLowerCase()} ${key} not found`);
  return [200, project(record, fields, additional, state.options.lean)];
}

/** Whose record a read by id answers under option `foreignReads`: another resource's. */
const foreignOf: Partial<Record<ResourceName, ResourceName>> = {
  Staff: 'Invoice',
  Invoice: 'Staff',
  Applicant: 'Staff',
};

/**
 * Under option `foreignReads`, the answer to every read by id of `resource`, held or not: the
 * first record of another resource (foreignOf) under the id asked, as a service routing the read
 * to the wrong table does. Undefined when the option is off for it.
 */
function foreignRecord(state: SimState, resource: ResourceName, key: string | number) {
  if (!(state.options.foreignReads as readonly string[]).includes(`get${resource}`)) return undefined;
  const other = foreignOf[resource];
  const record = other === undefined ? undefined : state.tables[other].all()[0];
  return record === undefined ? undefined : { ...record, id: key };
}
