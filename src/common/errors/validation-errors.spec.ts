import type { ValidationError } from 'class-validator';
import { toApiError } from './validation-errors';

const error = (property: string, value: unknown, constraints?: Record<string, string>, children: ValidationError[] = []): ValidationError =>
  ({ property, value, constraints, children }) as ValidationError;

describe('toApiError', () => {
  it('names an unknown field by its JSON path', () => {
    const tree = [error('input', [], undefined, [error('0', {}, undefined, [error('colour', 'red', { whitelistValidation: 'property colour should not exist' })])])];
    expect(toApiError(tree).toBody()).toEqual({
      error: { message: "Unknown parameter: 'input.0.colour'.", type: 'invalid_request_error', param: 'input.0.colour', code: 'unknown_parameter' },
    });
  });

  it('reports a missing field as missing_required_parameter', () => {
    const api = toApiError([error('model', undefined, { isString: 'model must be a string' })]);
    expect([api.status, api.code, api.param, api.message]).toEqual([400, 'missing_required_parameter', 'model', "Missing required parameter: 'model'."]);
  });

  it('reports a wrong type as invalid_type, saying what it got', () => {
    const api = toApiError([error('temperature', 'hot', { isNumber: 'temperature must be a number' })]);
    expect([api.code, api.param, api.message]).toEqual(['invalid_type', 'temperature', "Invalid type for 'temperature': expected a number, but got a string instead."]);
  });

  it('reports other constraint failures as invalid_value', () => {
    const api = toApiError([error('input', [], undefined, [error('1', {}, undefined, [error('role', 'robot', { isIn: 'role must be one of the following values: user, assistant' })])])]);
    expect([api.code, api.param, api.message]).toEqual(['invalid_value', 'input.1.role', "Invalid value for 'input.1.role': must be one of the following values: user, assistant."]);
  });
});
