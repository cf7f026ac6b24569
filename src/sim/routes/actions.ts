import type { OperationDef, OperationName } from '../../schema/index.js';
import type { SimState } from '../state.js';
import { numericId } from './ids.js';

/** The write operations (create, update, delete), carried out by src/sim/actions.ts. */
export function runAction(
  state: SimState,
  name: OperationName,
  kind: OperationDef['kind'],
  id: string | undefined,
  body: unknown,
): [number, unknown] {
  const { actions } = state;
  switch (kind) {
    case 'create':
      if (name === 'createPayment') return [200, actions.createPayment(body)];
      if (name === 'createPerson') return [200, actions.createPerson(body)];
      return [200, actions.createOrg(body)];
    case 'update':
      if (name === 'updatePerson') return [200, actions.updatePerson(numericId(id), body)];
      return [200, actions.updateApplicant(numericId(id), body)];
    default: {
      const deleted = actions.deletePerson(numericId(id));
      return state.options.deleteAnswer === '204' ? [204, undefined] : [200, deleted];
    }
  }
}
